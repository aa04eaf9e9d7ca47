// Distributed size-constrained label propagation (partition.hpp, partition/README.md): the block
// partition, refined where the rows lie. Each rank moves its own vertices to the part most of their
// neighbours are in, within a weight budget per part agreed over the ranks, and the ranks exchange
// the labels of the vertices the others see as ghosts between sub-rounds. Needs MPI only.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "common/mpi_check.hpp"
#include "partition/distributed_graph.hpp"
#include "partition/label_propagation_rounds.hpp"
#include "partition/partition.hpp"

namespace distspmv::partition {
namespace {

constexpr const char* who = "partition_label_propagation";

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

  label_exchange(MPI_Comm comm, const std::vector<global_index_type>& ranges, int me, const detail::lp_local_graph& l) {
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


/// The block start (detail::block_labels) after one prefix sum of the vertex weights.
std::vector<int> block_labels(MPI_Comm comm, const std::vector<offset_type>& weight, int parts,
                              offset_type& total_weight) {
  const offset_type mine = std::accumulate(weight.begin(), weight.end(), offset_type{0});
  offset_type before = 0;
  DSPMV_MPI_CHECK(MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm));
  int me = 0;
  DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &me));
  if (me == 0) before = 0;  // MPI_Exscan leaves rank 0's result undefined
  DSPMV_MPI_CHECK(MPI_Allreduce(&mine, &total_weight, 1, MPI_INT64_T, MPI_SUM, comm));
  return detail::block_labels(before, weight, parts, total_weight);
}

/// What the rounds work with.
struct refine_input {
  MPI_Comm comm;
  const detail::lp_local_graph& g;
  label_exchange& exchange;
  int parts;
  offset_type total_weight;
  int seed, me, p;
  global_index_type global_rows;
  const label_propagation_options& options;
};

/// The rounds of label propagation from `start` (the labels of this rank's vertices), with labels
/// of type Label, this rank's figures agreed with MPI; returns the final labels of its vertices.
template <typename Label>
std::vector<int> refine(const refine_input& in, const std::vector<int>& start) {
  const auto& [comm, g, exchange, parts, total_weight, seed, me, p, global_rows, options] = in;
  detail::lp_rank<Label> rank(g, start, parts, total_weight, seed, me, p, options);
  exchange.run(comm, rank.label, g.n);
  rank.ghosts_initialised();
  std::vector<offset_type> agreed;
  const auto stop_moves = static_cast<std::int64_t>(options.min_move_fraction * static_cast<double>(global_rows));
  for (int round = 0; round < options.max_rounds; ++round) {
    rank.start_round(round);
    std::int64_t moves = 0;
    // Two sub-rounds: moves to a higher part, then to a lower one. Two neighbours on different
    // ranks, who see each other's label only at the next exchange, cannot swap parts in one.
    for (int up = 1; up >= 0; --up) {
      rank.figures(up, agreed);
      DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, agreed.data(), 2 * parts, MPI_INT64_T, MPI_SUM, comm));
      moves += rank.sweep(up, agreed);
      exchange.run(comm, rank.label, g.n);
      rank.ghosts_received();
    }
    DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &moves, 1, MPI_INT64_T, MPI_SUM, comm));
    if (moves <= stop_moves) break;
  }
  return rank.result();
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
  detail::lp_local_graph g;
  int too_many = detail::localise(std::move(shared), ranges[me], rows.rows, g) ? 0 : 1;
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
