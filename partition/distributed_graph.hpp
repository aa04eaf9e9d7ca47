// Internal to partition/: the symmetrised graph A + A^T without the diagonal, built distributed
// (each rank the adjacency of its own rows, with global ids), shared by PT-Scotch (ptscotch.cpp)
// and label propagation (label_propagation.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::partition::detail {

/// A duplicate of the caller's communicator, with MPI_ERRORS_RETURN, for a partitioner's own
/// messages (PT-Scotch also keeps it in its graph); freed on every way out.
class dup_comm {
 public:
  explicit dup_comm(MPI_Comm comm);
  ~dup_comm() { MPI_Comm_free(&comm_); }
  dup_comm(const dup_comm&) = delete;
  dup_comm& operator=(const dup_comm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

/// Row ranges of the ranks (ranks + 1 boundaries); bad_input, the same on every rank, where they
/// do not tile [0, global_rows) or the matrix is not square. `who` names the caller in messages.
std::vector<global_index_type> rank_ranges(MPI_Comm comm, global_index_type first_row, const csr_matrix<double>& a,
                                           global_index_type global_rows, const char* who);

/// This rank's part of the graph: its vertices' adjacency with global ids, sorted and unique per
/// vertex, and their weights (row nonzeros, at least 1).
struct distributed_graph {
  std::vector<offset_type> xadj;           ///< rows + 1 offsets into adjncy
  std::vector<global_index_type> adjncy;   ///< neighbours (global ids), sorted, no self loops
  std::vector<offset_type> weight;         ///< rows
};

/// What the caller's library can take: ids (vertices and arcs, counted over all ranks before
/// repeats are removed) up to `max_id`; past it, bad_input saying `advice`.
struct graph_id_limit {
  std::int64_t max_id = std::numeric_limits<std::int64_t>::max();
  std::string advice;
};

/// Builds it with one exchange: an entry (v, c) with c on another rank is sent there as (c, v).
/// Collective; columns out of range, more than 2^31 - 1 arcs sent or received by one rank (one
/// MPI_Alltoallv of int counts) and ids past `limit` fail on every rank alike.
distributed_graph build_distributed_graph(MPI_Comm comm, const std::vector<global_index_type>& ranges, int me,
                                          const csr_matrix<double>& a, const char* who,
                                          const graph_id_limit& limit = {});

}  // namespace distspmv::partition::detail
