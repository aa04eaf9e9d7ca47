// Label propagation on P ranks computed in one process (partition.hpp): the P ranks' rounds
// (label_propagation_rounds.hpp) run in lockstep, their figures summed where the MPI driver reduces
// them, and each rank's ghost labels copied from their owners where it exchanges them. Every rank
// sees exactly what it would see on P processes, so the labels are the same (tests/partition,
// tests/apps/model_test).
//
// What makes it fast enough for `distspmv model` at 1024 ranks of 1e8 nonzeros on two cores:
// - each rank's local graph comes straight from the whole graph, its ghosts found with a bitmap of
//   the global ids (read out in id order: no hash map, no sort);
// - the exchange after a sweep carries only the vertices that moved, to the ranks that hold them
//   as ghosts (a table built once per P), instead of every ghost's label;
// - the ranks' sweeps within a sub-round touch only their own state, so OpenMP runs them side by
//   side (the figures are integer sums: no order matters).
// jobs/results/2026-11-28_model_check/README.md gives the time at gen:rmat:22:24 (97 M nonzeros).
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

/// A thread's tables for rank_graph: a bit per global id (set: a ghost of the rank at hand), and
/// a ghost's local id there.
struct ghost_table {
  std::vector<std::uint64_t> bits;
  std::vector<index_type> local;
  explicit ghost_table(global_index_type vertices)
      : bits(static_cast<std::size_t>(vertices / 64 + 1), 0), local(static_cast<std::size_t>(vertices), 0) {}
};

/// Rank r's share of the graph in local ids, [first, end) its vertices: what detail::localise
/// makes of build_distributed_graph's share for rank r (the same sorted neighbour lists, ghosts
/// numbered n.. in global id order, each ghost's own neighbours in vertex order). False where its
/// vertices and ghosts would not fit 32-bit ids.
bool rank_graph(const graph& g, global_index_type first, global_index_type end, ghost_table& t,
                detail::lp_local_graph& l) {
  const global_index_type n = end - first;
  if (n > INT_MAX) return false;
  l.n = n;
  const offset_type base = g.xadj[first], arcs = g.xadj[end] - base;
  l.xadj.resize(static_cast<std::size_t>(n) + 1);
  for (global_index_type v = 0; v <= n; ++v) l.xadj[v] = g.xadj[first + v] - base;
  const global_index_type* adj = g.adjncy.data() + base;
  for (offset_type k = 0; k < arcs; ++k) {
    const global_index_type c = adj[k];
    if (c < first || c >= end) t.bits[c >> 6] |= std::uint64_t{1} << (c & 63);
  }
  // The ghosts in id order, the bitmap cleared for the next rank.
  for (std::size_t w = 0; w < t.bits.size(); ++w)
    for (std::uint64_t word = t.bits[w]; word != 0; word &= word - 1) {
      const auto c = static_cast<global_index_type>(64 * w + static_cast<std::size_t>(__builtin_ctzll(word)));
      t.local[c] = static_cast<index_type>(n + static_cast<global_index_type>(l.ghost_id.size()));
      l.ghost_id.push_back(c);
      t.bits[w] = 0;
    }
  if (n + static_cast<global_index_type>(l.ghost_id.size()) > INT_MAX) return false;
  const std::size_t ghosts = l.ghost_id.size();
  l.adjncy.resize(static_cast<std::size_t>(arcs));
  l.ghost_xadj.assign(ghosts + 1, 0);
  for (offset_type k = 0; k < arcs; ++k) {
    const global_index_type c = adj[k];
    if (c >= first && c < end) {
      l.adjncy[k] = static_cast<index_type>(c - first);
    } else {
      l.adjncy[k] = t.local[c];
      ++l.ghost_xadj[l.adjncy[k] - n + 1];
    }
  }
  std::partial_sum(l.ghost_xadj.begin(), l.ghost_xadj.end(), l.ghost_xadj.begin());
  l.ghost_adjncy.resize(static_cast<std::size_t>(l.ghost_xadj.back()));
  std::vector<offset_type> fill(l.ghost_xadj.begin(), l.ghost_xadj.end() - 1);
  for (global_index_type v = 0; v < n; ++v)
    for (offset_type k = l.xadj[v]; k < l.xadj[v + 1]; ++k)
      if (l.adjncy[k] >= n) l.ghost_adjncy[fill[l.adjncy[k] - n]++] = static_cast<index_type>(v);
  l.weight.assign(g.weight.begin() + first, g.weight.begin() + end);
  return true;
}

/// Who holds each vertex as a ghost: for global id v, holder[first[v]..first[v + 1]) are the
/// (rank, ghost slot) pairs, ranks ascending.
struct ghost_holders {
  std::vector<offset_type> first;
  std::vector<std::pair<int, index_type>> holder;
  ghost_holders(const std::vector<detail::lp_local_graph>& graphs, global_index_type vertices)
      : first(static_cast<std::size_t>(vertices) + 1, 0) {
    for (const auto& g : graphs)
      for (global_index_type id : g.ghost_id) ++first[id + 1];
    std::partial_sum(first.begin(), first.end(), first.begin());
    holder.resize(static_cast<std::size_t>(first.back()));
    std::vector<offset_type> at(first.begin(), first.end() - 1);
    for (std::size_t r = 0; r < graphs.size(); ++r)
      for (std::size_t k = 0; k < graphs[r].ghost_id.size(); ++k)
        holder[at[graphs[r].ghost_id[k]]++] = {static_cast<int>(r), static_cast<index_type>(k)};
  }
};

template <typename Label>
std::vector<int> refine_all(const std::vector<detail::lp_local_graph>& graphs,
                            const std::vector<global_index_type>& ranges, const std::vector<std::vector<int>>& start,
                            int parts, offset_type total_weight, int seed, const label_propagation_options& options) {
  const int p = static_cast<int>(graphs.size());
  std::vector<std::unique_ptr<detail::lp_rank<Label>>> rank(p);
#pragma omp parallel for schedule(dynamic, 1)
  for (int r = 0; r < p; ++r)
    rank[r] = std::make_unique<detail::lp_rank<Label>>(graphs[r], start[r], parts, total_weight, seed, r, p, options);
  // The first exchange: every ghost's label from its owner.
  {
    std::vector<Label> all(static_cast<std::size_t>(ranges.back()));
    for (int r = 0; r < p; ++r)
      std::copy(rank[r]->label.begin(), rank[r]->label.begin() + graphs[r].n, all.begin() + ranges[r]);
#pragma omp parallel for schedule(dynamic, 1)
    for (int r = 0; r < p; ++r) {
      const auto& g = graphs[r];
      for (std::size_t k = 0; k < g.ghost_id.size(); ++k) rank[r]->label[g.n + k] = all[g.ghost_id[k]];
    }
  }
  // Later exchanges: the vertices each rank moved, to their holders (ghosts_received's wake-ups
  // included): gathered per thread and holder, then applied by the holders side by side (two
  // owners' moves may wake the same vertex of a holder).
  const ghost_holders holders(graphs, ranges.back());
  using update = std::pair<index_type, Label>;
  std::vector<std::vector<std::vector<update>>*> lists;  // each thread's, per holder
  const auto exchange = [&] {
#pragma omp parallel
    {
      std::vector<std::vector<update>> mine(static_cast<std::size_t>(p));
#pragma omp critical
      lists.push_back(&mine);
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
      for (int q = 0; q < p; ++q)
        for (index_type v : rank[q]->moved()) {
          const global_index_type id = ranges[q] + v;
          const Label to = rank[q]->label[v];
          for (offset_type h = holders.first[id]; h < holders.first[id + 1]; ++h)
            mine[holders.holder[h].first].emplace_back(holders.holder[h].second, to);
        }
#pragma omp for schedule(dynamic, 1)
      for (int r = 0; r < p; ++r)
        for (const auto* list : lists)
          for (const auto& [k, to] : (*list)[r]) rank[r]->ghost_moved(static_cast<std::size_t>(k), to);
#pragma omp barrier
#pragma omp single
      lists.clear();
    }
  };
  const auto stop_moves = static_cast<std::int64_t>(options.min_move_fraction * static_cast<double>(ranges.back()));
  std::vector<offset_type> agreed(2 * static_cast<std::size_t>(parts)), mine;
  for (int round = 0; round < options.max_rounds; ++round) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int r = 0; r < p; ++r) rank[r]->start_round(round);
    std::int64_t moves = 0;
    for (int up = 1; up >= 0; --up) {
      std::fill(agreed.begin(), agreed.end(), 0);
      for (auto& r : rank) {
        r->figures(up, mine);
        for (std::size_t b = 0; b < agreed.size(); ++b) agreed[b] += mine[b];
      }
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : moves)
      for (int r = 0; r < p; ++r) moves += rank[r]->sweep(up, agreed);
      exchange();
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
  int too_many = 0;
#pragma omp parallel reduction(+ : too_many)
  {
    ghost_table table(g.vertices);
#pragma omp for schedule(dynamic, 1)
    for (int r = 0; r < p; ++r) {
      detail::lp_local_graph l;  // built here, moved once: neighbouring ranks' vector headers share cache lines
      too_many += rank_graph(g, ranges[r], ranges[r + 1], table, l) ? 0 : 1;
      graphs[r] = std::move(l);
    }
  }
  if (too_many != 0)
    throw error(std::string(who) + ": a rank's vertices and ghosts exceed 32-bit local ids; partition over more ranks",
                __FILE__, __LINE__);
  std::vector<std::vector<int>> start(p);
  offset_type before = 0;
  for (int r = 0; r < p; ++r) {
    start[r] = detail::block_labels(before, graphs[r].weight, parts, total_weight);
    before += std::accumulate(graphs[r].weight.begin(), graphs[r].weight.end(), offset_type{0});
  }
  return parts <= 256     ? refine_all<std::uint8_t>(graphs, ranges, start, parts, total_weight, seed, options)
         : parts <= 65536 ? refine_all<std::uint16_t>(graphs, ranges, start, parts, total_weight, seed, options)
                          : refine_all<std::int32_t>(graphs, ranges, start, parts, total_weight, seed, options);
}

}  // namespace distspmv::partition
