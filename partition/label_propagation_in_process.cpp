// Label propagation on P ranks computed in one process (partition.hpp): the P ranks' rounds
// (label_propagation_rounds.hpp) run in lockstep, their figures summed where the MPI driver reduces
// them, and each rank's ghost labels copied from their owners where it exchanges them. Every rank
// sees exactly what it would see on P processes, so the labels are the same (tests/partition).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "partition/label_propagation_rounds.hpp"
#include "partition/partition.hpp"

namespace distspmv::partition {
namespace {

constexpr const char* who = "partition_label_propagation_in_process";

/// Rank r's share of the graph, as build_distributed_graph gives it to rank r (the same sorted
/// neighbour lists), in local ids.
detail::lp_local_graph rank_graph(const graph& g, global_index_type first, global_index_type end) {
  detail::distributed_graph d;
  const auto n = static_cast<std::size_t>(end - first);
  d.xadj.resize(n + 1);
  for (std::size_t v = 0; v <= n; ++v) d.xadj[v] = g.xadj[first + v] - g.xadj[first];
  d.adjncy.assign(g.adjncy.begin() + g.xadj[first], g.adjncy.begin() + g.xadj[end]);
  d.weight.assign(g.weight.begin() + first, g.weight.begin() + end);
  detail::lp_local_graph l;
  if (!detail::localise(std::move(d), first, end - first, l))
    throw error(std::string(who) + ": a rank's vertices and ghosts exceed 32-bit local ids; partition over more ranks",
                __FILE__, __LINE__);
  return l;
}

template <typename Label>
std::vector<int> refine_all(const std::vector<detail::lp_local_graph>& graphs,
                            const std::vector<global_index_type>& ranges, const std::vector<std::vector<int>>& start,
                            int parts, offset_type total_weight, int seed, const label_propagation_options& options) {
  const int p = static_cast<int>(graphs.size());
  std::vector<std::unique_ptr<detail::lp_rank<Label>>> rank(p);
  for (int r = 0; r < p; ++r)
    rank[r] = std::make_unique<detail::lp_rank<Label>>(graphs[r], start[r], parts, total_weight, seed, r, p, options);
  // The exchange: each ghost's label from its owner (ghosts are sorted by global id, so their
  // owners come in rank order).
  const auto exchange = [&] {
    for (int r = 0; r < p; ++r) {
      const auto& g = graphs[r];
      int q = 0;
      for (std::size_t k = 0; k < g.ghost_id.size(); ++k) {
        const global_index_type id = g.ghost_id[k];
        while (ranges[q + 1] <= id) ++q;
        rank[r]->label[g.n + k] = rank[q]->label[id - ranges[q]];
      }
    }
  };
  exchange();
  for (auto& r : rank) r->ghosts_initialised();
  const auto stop_moves = static_cast<std::int64_t>(options.min_move_fraction * static_cast<double>(ranges.back()));
  std::vector<offset_type> agreed(2 * static_cast<std::size_t>(parts)), mine;
  for (int round = 0; round < options.max_rounds; ++round) {
    for (auto& r : rank) r->start_round(round);
    std::int64_t moves = 0;
    for (int up = 1; up >= 0; --up) {
      std::fill(agreed.begin(), agreed.end(), 0);
      for (auto& r : rank) {
        r->figures(up, mine);
        for (std::size_t b = 0; b < agreed.size(); ++b) agreed[b] += mine[b];
      }
      for (auto& r : rank) moves += r->sweep(up, agreed);
      exchange();
      for (auto& r : rank) r->ghosts_received();
    }
    if (moves <= stop_moves) break;
  }
  std::vector<int> label;
  label.reserve(static_cast<std::size_t>(ranges.back()));
  for (auto& r : rank) {
    const auto mine_labels = r->result();
    label.insert(label.end(), mine_labels.begin(), mine_labels.end());
  }
  return label;
}

}  // namespace

std::vector<int> partition_label_propagation_in_process(const graph& g, const std::vector<global_index_type>& ranges,
                                                        int parts, int seed, const label_propagation_options& options) {
  DSPMV_REQUIRE(parts >= 1, std::string(who) + ": parts must be >= 1, got " + std::to_string(parts));
  DSPMV_REQUIRE(options.imbalance >= 0 && options.max_rounds >= 0,
                std::string(who) + ": imbalance and max_rounds must be >= 0");
  DSPMV_REQUIRE(ranges.size() >= 2 && ranges.front() == 0 && ranges.back() == g.vertices &&
                    std::is_sorted(ranges.begin(), ranges.end()),
                std::string(who) + ": ranges must be non-decreasing from 0 to the graph's vertices");
  if (parts == 1) return std::vector<int>(static_cast<std::size_t>(g.vertices), 0);
  const int p = static_cast<int>(ranges.size()) - 1;
  // g.weight is the row nonzeros: the balance the MPI driver keeps.
  const offset_type total_weight = std::accumulate(g.weight.begin(), g.weight.end(), offset_type{0});
  std::vector<detail::lp_local_graph> graphs(p);
  std::vector<std::vector<int>> start(p);
  offset_type before = 0;
  for (int r = 0; r < p; ++r) {
    graphs[r] = rank_graph(g, ranges[r], ranges[r + 1]);
    start[r] = detail::block_labels(before, graphs[r].weight, parts, total_weight);
    before += std::accumulate(graphs[r].weight.begin(), graphs[r].weight.end(), offset_type{0});
  }
  return parts <= 256     ? refine_all<std::uint8_t>(graphs, ranges, start, parts, total_weight, seed, options)
         : parts <= 65536 ? refine_all<std::uint16_t>(graphs, ranges, start, parts, total_weight, seed, options)
                          : refine_all<std::int32_t>(graphs, ranges, start, parts, total_weight, seed, options);
}

}  // namespace distspmv::partition
