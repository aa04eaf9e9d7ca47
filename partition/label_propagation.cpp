// Distributed size-constrained label propagation (partition.hpp, partition/README.md): the block
// partition, refined where the rows lie. Each rank moves its own vertices to the part most of their
// neighbours are in, within a weight budget per part agreed over the ranks, and the ranks exchange
// the labels of the vertices the others see as ghosts between sub-rounds. Needs MPI only.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/mpi_check.hpp"
#include "partition/distributed_graph.hpp"
#include "partition/partition.hpp"

namespace distspmv::partition {
namespace {

constexpr const char* who = "partition_label_propagation";

/// Global id -> local id of the ghosts, by open addressing (linear probing, Fibonacci hashing):
/// one pass over the arcs. Sorting the ghost arcs' ids and a binary search per arc took 0.6 s at
/// gen:rmat:20:8 on 2 ranks, this 0.17-0.19 s (dev VM).
class ghost_map {
 public:
  /// The local slot of `id`, given `next` if it is new (then `inserted` is set).
  index_type find_or_insert(global_index_type id, index_type next, bool& inserted) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    for (std::size_t at = slot(id);; at = (at + 1) & mask_) {
      if (keys_[at] == id) {
        inserted = false;
        return values_[at];
      }
      if (keys_[at] == empty) {
        keys_[at] = id;
        values_[at] = next;
        ++size_;
        inserted = true;
        return next;
      }
    }
  }

 private:
  static constexpr global_index_type empty = -1;
  std::size_t slot(global_index_type id) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow() {
    std::vector<global_index_type> keys = std::move(keys_);
    std::vector<index_type> values = std::move(values_);
    const std::size_t capacity = std::max<std::size_t>(1024, 2 * keys.size());
    keys_.assign(capacity, empty);
    values_.assign(capacity, 0);
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k] == empty) continue;
      std::size_t at = slot(keys[k]);
      while (keys_[at] != empty) at = (at + 1) & mask_;
      keys_[at] = keys[k];
      values_[at] = values[k];
    }
  }
  std::vector<global_index_type> keys_;
  std::vector<index_type> values_;
  std::size_t size_ = 0, mask_ = 0;
  int shift_ = 64;
};

/// The graph of this rank in local ids: its vertices 0..n-1, then its ghosts (vertices of other
/// ranks adjacent to one of them) n..n+ghosts-1 in global id order, hence grouped by owner rank.
struct local_graph {
  global_index_type n = 0;
  std::vector<offset_type> xadj;
  std::vector<index_type> adjncy;           ///< local ids of the neighbours
  std::vector<offset_type> weight;          ///< vertex weights of the n own vertices (row nonzeros)
  std::vector<global_index_type> ghost_id;  ///< global id of each ghost
  /// Each ghost's neighbours among this rank's vertices (the graph is symmetric), to wake them
  /// when its label changes.
  std::vector<offset_type> ghost_xadj;
  std::vector<index_type> ghost_adjncy;
};

/// Local ids for the shared graph's global ones. False (and nothing built) where this rank's
/// vertices and ghosts would not fit 32-bit ids; the caller agrees on it with the other ranks.
bool localise(detail::distributed_graph&& g, global_index_type first, global_index_type n, local_graph& l) {
  l.n = n;
  const global_index_type end = first + n;
  if (n > INT_MAX) return false;
  // Ghosts numbered as met, then renumbered in global id order.
  l.adjncy.resize(g.adjncy.size());
  ghost_map map;
  for (std::size_t k = 0; k < g.adjncy.size(); ++k) {
    const global_index_type c = g.adjncy[k];
    if (c >= first && c < end) {
      l.adjncy[k] = static_cast<index_type>(c - first);
      continue;
    }
    if (n + static_cast<global_index_type>(l.ghost_id.size()) >= INT_MAX) return false;
    bool inserted = false;
    l.adjncy[k] = map.find_or_insert(c, static_cast<index_type>(n + l.ghost_id.size()), inserted);
    if (inserted) l.ghost_id.push_back(c);
  }
  g.adjncy = {};
  map = {};
  const std::size_t ghosts = l.ghost_id.size();
  std::vector<index_type> by_id(ghosts);
  std::iota(by_id.begin(), by_id.end(), index_type{0});
  std::sort(by_id.begin(), by_id.end(), [&](index_type x, index_type y) { return l.ghost_id[x] < l.ghost_id[y]; });
  std::vector<index_type> renumbered(ghosts);
  std::vector<global_index_type> sorted_ids(ghosts);
  for (std::size_t k = 0; k < ghosts; ++k) {
    renumbered[by_id[k]] = static_cast<index_type>(n + static_cast<global_index_type>(k));
    sorted_ids[k] = l.ghost_id[by_id[k]];
  }
  l.ghost_id = std::move(sorted_ids);
  l.ghost_xadj.assign(ghosts + 1, 0);
  for (auto& u : l.adjncy)
    if (u >= n) {
      u = renumbered[u - n];
      ++l.ghost_xadj[u - n + 1];
    }
  std::partial_sum(l.ghost_xadj.begin(), l.ghost_xadj.end(), l.ghost_xadj.begin());
  l.ghost_adjncy.resize(static_cast<std::size_t>(l.ghost_xadj.back()));
  std::vector<offset_type> fill(l.ghost_xadj.begin(), l.ghost_xadj.end() - 1);
  for (global_index_type v = 0; v < n; ++v)
    for (offset_type k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
      if (l.adjncy[k] >= n) l.ghost_adjncy[fill[l.adjncy[k] - n]++] = static_cast<index_type>(v);
  l.xadj = std::move(g.xadj);
  l.weight = std::move(g.weight);
  return true;
}

/// Labels are as narrow as the number of parts allows: the rounds read a label per arc in no
/// order, and a smaller array stays in cache (int32 to uint8 halved the time of the rounds on
/// gen:rmat:22:8 at 2 ranks: 5.4 s to 2.6 s for its 7 rounds on the dev VM).
template <typename Label>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<Label, std::uint8_t>) return MPI_UINT8_T;
  if constexpr (std::is_same_v<Label, std::uint16_t>) return MPI_UINT16_T;
  return MPI_INT32_T;
}

/// Who needs which label: this rank receives its ghosts' labels from their owners (counts per rank,
/// in ghost order) and sends the labels of its vertices that other ranks hold as ghosts.
struct label_exchange {
  std::vector<int> recv_counts, recv_displs, send_counts, send_displs;
  std::vector<index_type> send_vertices;  ///< local ids, grouped by destination rank
  std::vector<std::int32_t> send_buffer;  ///< labels of any width (int32 keeps them aligned)

  label_exchange(MPI_Comm comm, const std::vector<global_index_type>& ranges, int me, const local_graph& l) {
    const int p = static_cast<int>(ranges.size()) - 1;
    recv_counts.assign(p, 0);
    for (global_index_type id : l.ghost_id)
      ++recv_counts[static_cast<int>(std::upper_bound(ranges.begin(), ranges.end(), id) - ranges.begin()) - 1];
    send_counts.resize(p);
    DSPMV_MPI_CHECK(MPI_Alltoall(recv_counts.data(), 1, MPI_INT, send_counts.data(), 1, MPI_INT, comm));
    recv_displs = displacements(recv_counts);
    send_displs = displacements(send_counts);
    std::vector<global_index_type> wanted(static_cast<std::size_t>(send_displs[p]));
    DSPMV_MPI_CHECK(MPI_Alltoallv(l.ghost_id.data(), recv_counts.data(), recv_displs.data(), MPI_INT64_T,
                                  wanted.data(), send_counts.data(), send_displs.data(), MPI_INT64_T, comm));
    send_vertices.resize(wanted.size());
    for (std::size_t k = 0; k < wanted.size(); ++k) send_vertices[k] = static_cast<index_type>(wanted[k] - ranges[me]);
  }

  /// The ghosts' labels (label[n..]) from the owners' current labels.
  template <typename Label>
  void run(MPI_Comm comm, std::vector<Label>& label, global_index_type n) {
    send_buffer.resize(send_vertices.size() * sizeof(Label));
    auto* send = reinterpret_cast<Label*>(send_buffer.data());
    for (std::size_t k = 0; k < send_vertices.size(); ++k) send[k] = label[send_vertices[k]];
    const MPI_Datatype type = mpi_type<Label>();
    DSPMV_MPI_CHECK(MPI_Alltoallv(send, send_counts.data(), send_displs.data(), type, label.data() + n,
                                  recv_counts.data(), recv_displs.data(), type, comm));
  }

  static std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> d(counts.size() + 1, 0);
    for (std::size_t q = 0; q < counts.size(); ++q) {
      if (static_cast<std::int64_t>(d[q]) + counts[q] > INT_MAX)
        throw error(std::string(who) + ": a rank exchanges more than 2^31 - 1 labels; partition over more ranks",
                    __FILE__, __LINE__);
      d[q + 1] = d[q] + counts[q];
    }
    return d;
  }
};

/// The block partition into `parts` by vertex weight: a vertex goes to the part in which the middle
/// of its weight falls (the start every rank can compute alone, after one prefix sum).
std::vector<int> block_labels(MPI_Comm comm, const std::vector<offset_type>& weight, int parts,
                              offset_type& total_weight) {
  const offset_type mine = std::accumulate(weight.begin(), weight.end(), offset_type{0});
  offset_type before = 0;
  DSPMV_MPI_CHECK(MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm));
  int me = 0;
  DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &me));
  if (me == 0) before = 0;  // MPI_Exscan leaves rank 0's result undefined
  DSPMV_MPI_CHECK(MPI_Allreduce(&mine, &total_weight, 1, MPI_INT64_T, MPI_SUM, comm));
  std::vector<int> label(weight.size());
  for (std::size_t v = 0; v < weight.size(); ++v) {
    const offset_type mid = before + weight[v] / 2;
    label[v] = static_cast<int>(std::min<offset_type>(parts - 1, mid * parts / std::max<offset_type>(1, total_weight)));
    before += weight[v];
  }
  return label;
}

/// What the rounds work with.
struct refine_input {
  MPI_Comm comm;
  const local_graph& g;
  label_exchange& exchange;
  int parts;
  offset_type total_weight;
  int seed, me, p;
  global_index_type global_rows;
  const label_propagation_options& options;
};

/// The rounds of label propagation from `start` (the labels of this rank's vertices), with labels
/// of type Label; returns the final labels of this rank's vertices.
template <typename Label>
std::vector<int> refine(const refine_input& in, const std::vector<int>& start) {
  const auto& [comm, g, exchange, parts, total_weight, seed, me, p, global_rows, options] = in;
  const global_index_type n = g.n;
  std::vector<Label> label(static_cast<std::size_t>(n) + g.ghost_id.size());
  std::copy(start.begin(), start.end(), label.begin());
  exchange.run(comm, label, n);
  std::vector<Label> ghost_label(label.begin() + n, label.end());

  // A part may weigh (1 + imbalance) times the mean, as METIS's ufactor allows.
  const auto max_weight =
      static_cast<offset_type>((1.0 + options.imbalance) * static_cast<double>(total_weight) / parts);
  std::vector<offset_type> my_weight(parts, 0), budget(parts), net_in(parts);
  for (global_index_type v = 0; v < n; ++v) my_weight[label[v]] += g.weight[v];
  // Per direction (down, up): the weight this rank's vertices wanted to move into each part the
  // last time, and the figures agreed at the start of a sub-round (part weights, then demands).
  std::vector<offset_type> demand[2] = {std::vector<offset_type>(parts, 0), std::vector<offset_type>(parts, 0)};
  std::vector<offset_type> agreed(2 * static_cast<std::size_t>(parts));

  // Vertices are visited in chunks of consecutive ids, the chunks in a random order: the arcs are
  // read nearly in sequence, and neighbours on one rank still see each other's moves in no fixed
  // order.
  constexpr global_index_type chunk = 64;
  std::vector<index_type> order(static_cast<std::size_t>((n + chunk - 1) / chunk));
  std::iota(order.begin(), order.end(), index_type{0});
  // Vertices to look at: all at first, then those a neighbour's move may have changed, and those
  // a budget or the direction held back.
  std::vector<char> active(static_cast<std::size_t>(n), 1);
  std::vector<offset_type> connection(parts, 0);
  std::vector<int> touched;
  const auto stop_moves = static_cast<std::int64_t>(options.min_move_fraction * static_cast<double>(global_rows));

  for (int round = 0; round < options.max_rounds; ++round) {
    // A fresh random order every round, the same for a given seed, rank count and round.
    std::seed_seq seq{seed, me, round};
    std::mt19937_64 random(seq);
    std::shuffle(order.begin(), order.end(), random);
    std::int64_t moves = 0;
    // Two sub-rounds: moves to a higher part, then to a lower one. Two neighbours on different
    // ranks, who see each other's label only at the next exchange, cannot swap parts in one.
    for (int up = 1; up >= 0; --up) {
      std::copy(my_weight.begin(), my_weight.end(), agreed.begin());
      std::copy(demand[up].begin(), demand[up].end(), agreed.begin() + parts);
      DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, agreed.data(), 2 * parts, MPI_INT64_T, MPI_SUM, comm));
      // A part's room is shared by the ranks in proportion to what their vertices wanted to move
      // into it the last time (equally at first), so that together they keep within it.
      for (int b = 0; b < parts; ++b) {
        const double room = static_cast<double>(std::max<offset_type>(0, max_weight - agreed[b]));
        const double share = static_cast<double>(demand[up][b] + 1) / static_cast<double>(agreed[parts + b] + p);
        budget[b] = static_cast<offset_type>(room * share);
      }
      std::fill(net_in.begin(), net_in.end(), 0);
      std::fill(demand[up].begin(), demand[up].end(), 0);
      for (index_type chunk_index : order) {
        const global_index_type begin = chunk_index * chunk;
        const auto last = static_cast<index_type>(std::min<global_index_type>(n, begin + chunk));
        for (auto v = static_cast<index_type>(begin); v < last; ++v) {
          if (!active[v]) continue;
          const int from = label[v];
          const offset_type w = g.weight[v];
          for (offset_type k = g.xadj[v]; k < g.xadj[v + 1]; ++k) {
            const int b = label[g.adjncy[k]];
            if (connection[b]++ == 0) touched.push_back(b);
          }
          // The best part in this direction within its budget, and the best ignoring budgets and
          // direction (an improving move held back keeps the vertex active).
          int best = from, wanted = from, wanted_here = from;
          offset_type best_connection = connection[from], wanted_connection = connection[from],
                      wanted_here_connection = connection[from];
          for (int b : touched) {
            const offset_type c = connection[b];
            if (b == from) continue;
            if (c > wanted_connection) {
              wanted = b;
              wanted_connection = c;
            }
            if ((b > from) != (up == 1)) continue;
            if (c > wanted_here_connection) {
              wanted_here = b;
              wanted_here_connection = c;
            }
            if (c > best_connection && net_in[b] + w <= budget[b]) {
              best = b;
              best_connection = c;
            }
          }
          for (int b : touched) connection[b] = 0;
          touched.clear();
          if (wanted_here != from) demand[up][wanted_here] += w;
          if (best == from) {
            active[v] = wanted != from;
            continue;
          }
          label[v] = static_cast<Label>(best);
          net_in[best] += w;
          net_in[from] -= w;
          my_weight[best] += w;
          my_weight[from] -= w;
          ++moves;
          active[v] = 0;
          for (offset_type k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
            if (g.adjncy[k] < n) active[g.adjncy[k]] = 1;
        }
      }
      exchange.run(comm, label, n);
      // Wake this rank's neighbours of the ghosts that moved.
      for (std::size_t k = 0; k < ghost_label.size(); ++k) {
        if (label[n + k] == ghost_label[k]) continue;
        ghost_label[k] = label[n + k];
        for (offset_type e = g.ghost_xadj[k]; e < g.ghost_xadj[k + 1]; ++e) active[g.ghost_adjncy[e]] = 1;
      }
    }
    DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &moves, 1, MPI_INT64_T, MPI_SUM, comm));
    if (moves <= stop_moves) break;
  }
  return std::vector<int>(label.begin(), label.begin() + n);
}

}  // namespace

std::vector<int> partition_label_propagation(MPI_Comm caller_comm, global_index_type first_row,
                                             const csr_matrix<double>& rows, global_index_type global_rows, int parts,
                                             int seed, const label_propagation_options& options) {
  DSPMV_REQUIRE(parts >= 1, std::string(who) + ": parts must be >= 1, got " + std::to_string(parts));
  DSPMV_REQUIRE(options.imbalance >= 0 && options.max_rounds >= 0,
                std::string(who) + ": imbalance and max_rounds must be >= 0");
  if (parts == 1) return std::vector<int>(static_cast<std::size_t>(rows.rows), 0);
  const detail::dup_comm dc(caller_comm);
  const MPI_Comm comm = dc.get();
  int me = 0, p = 0;
  DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &me));
  DSPMV_MPI_CHECK(MPI_Comm_size(comm, &p));
  const auto ranges = detail::rank_ranges(comm, first_row, rows, global_rows, who);
  auto shared = detail::build_distributed_graph(comm, ranges, me, rows, who);
  local_graph g;
  int too_many = localise(std::move(shared), ranges[me], rows.rows, g) ? 0 : 1;
  DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &too_many, 1, MPI_INT, MPI_MAX, comm));
  if (too_many != 0)
    throw error(std::string(who) + ": a rank's vertices and ghosts exceed 32-bit local ids; partition over more ranks",
                __FILE__, __LINE__);
  const global_index_type n = g.n;
  label_exchange exchange(comm, ranges, me, g);

  // Balance is kept on the row nonzeros themselves (the SpMV's work), not the graph's weights of at
  // least 1: R-MAT's many empty rows would otherwise let the nonzeros of a part exceed the bound.
  for (global_index_type v = 0; v < n; ++v) g.weight[v] = rows.row_ptr[v + 1] - rows.row_ptr[v];
  offset_type total_weight = 0;
  std::vector<int> start = block_labels(comm, g.weight, parts, total_weight);
  const refine_input in{comm, g, exchange, parts, total_weight, seed, me, p, global_rows, options};
  std::vector<int> label = parts <= 256     ? refine<std::uint8_t>(in, start)
                           : parts <= 65536 ? refine<std::uint16_t>(in, start)
                                            : refine<std::int32_t>(in, start);
  return label;
}

}  // namespace distspmv::partition
