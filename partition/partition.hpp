// Row partitioners and partition quality (DESIGN.md §1, §2).
//
// A partition assigns every global row to one of `parts` ranks: part[r] in [0, parts). The
// distributed engine then renumbers rows so that each rank's rows are contiguous (renumbering()).
//
// METIS: k-way (METIS_PartGraphKway) on the symmetrised pattern of A without the diagonal,
// vertex weights = row nonzeros so that nonzeros (the SpMV's work) balance. Debian's METIS uses
// 32-bit indices: the symmetrised graph must have fewer than 2^31 rows and directed edges
// (about 1e9 undirected edges, roughly 25 GB of graph in memory on the rank that partitions);
// beyond that, partition_metis throws and the caller must fall back to the block partitioner.
//
// PT-Scotch: k-way (SCOTCH_dgraphPart) on the same graph, built distributed: each rank holds its
// own rows' adjacency only (O(local edges) memory), never the whole graph, with 64-bit ids (the
// scotch-int64 build). For graphs no rank can hold.
//
// Label propagation: the block partition refined on the same distributed graph, each rank moving
// its own vertices to the part most of their neighbours are in, within agreed balance budgets.
// MPI only; near METIS on R-MAT-like graphs in a fraction of its time, far from it on meshes.
// partition/README.md compares the four.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::partition {

/// Contiguous blocks of about equal nonzeros, from the row pointer alone.
std::vector<int> partition_block(const std::vector<offset_type>& row_ptr, int parts);

/// The symmetrised pattern of a square A without its diagonal, as adjacency lists (METIS's
/// xadj/adjncy, 64-bit here). Throws bad_input for a rectangular matrix.
struct graph {
  global_index_type vertices = 0;
  std::vector<offset_type> xadj;           ///< vertices + 1
  std::vector<global_index_type> adjncy;   ///< neighbours, sorted, no self loops
  std::vector<offset_type> weight;         ///< row nonzeros of A (vertex weights)
};
template <typename V, typename I>
graph symmetrised_graph(const csr_matrix<V, I>& a);

/// METIS options that trade quality for time (negative: METIS's default).
struct metis_options {
  int refinement_iterations = -1;  ///< METIS_OPTION_NITER (default 10)
  int coarsening = -1;             ///< METIS_OPTION_CTYPE: 0 random matching, 1 heavy-edge (default)
  int no_two_hop = -1;             ///< METIS_OPTION_NO2HOP: 1 skips 2-hop matching (power-law graphs)
  int cuts = -1;                   ///< METIS_OPTION_NCUTS: partitionings tried, the best kept (default 1)
  int ufactor = -1;                ///< METIS_OPTION_UFACTOR: allowed imbalance in 1/1000 (default 30)
  /// The options jobs/bench_partition.cpp times against the defaults.
  static metis_options fast() { return {2, -1, -1}; }
};

/// METIS k-way; `parts` == 1 returns all zeros without calling METIS (which fails on one part).
/// Throws not_compiled in a build without METIS and bad_input when the graph is too large.
std::vector<int> partition_metis(const graph& g, int parts, int seed = 1, const metis_options& options = {});

/// PT-Scotch k-way over the ranks of `comm`, collective. Each rank passes its rows
/// [first_row, first_row + rows.rows) of a square matrix of `global_rows` rows, with global column
/// ids (ranges in rank order, covering [0, global_rows)); returns the parts of this rank's rows.
/// The graph is A + A^T without the diagonal, vertex weights = row nonzeros (as for METIS), built
/// with one MPI_Alltoallv. Deterministic for a given seed, rank count and input. `parts` == 1
/// returns zeros without calling PT-Scotch. Throws not_compiled in a build without PT-Scotch, an
/// error naming the SCOTCH_* call that failed (the same on every rank), bad_input for a
/// rectangular matrix or ranges that do not tile [0, global_rows).
std::vector<int> partition_ptscotch(MPI_Comm comm, global_index_type first_row, const csr_matrix<double>& rows,
                                    global_index_type global_rows, int parts, int seed = 1);

/// Label propagation's knobs (partition/README.md has the measurements behind the defaults).
struct label_propagation_options {
  int max_rounds = 10;               ///< rounds of two sub-rounds each (moves up, then down)
  double imbalance = 0.05;           ///< a part may weigh (1 + imbalance) x the mean (METIS's ufactor)
  double min_move_fraction = 0.001;  ///< stop after a round that moved at most this fraction of the vertices
};

/// Distributed size-constrained label propagation over the ranks of `comm`, collective; the same
/// arguments as partition_ptscotch, and the same graph (A + A^T without the diagonal, vertex weights
/// = row nonzeros, built with one MPI_Alltoallv). Starts from the block partition by vertex weight
/// and refines it where the rows lie: each rank moves its own vertices to the part most of their
/// neighbours are in while the part's weight stays within (1 + imbalance) x the mean; the labels of
/// ghost vertices are exchanged between sub-rounds. Needs MPI only. Deterministic for a given seed,
/// rank count and input; `parts` == 1 returns zeros without communicating. Throws bad_input for a
/// rectangular matrix, a column out of range or ranges that do not tile [0, global_rows).
std::vector<int> partition_label_propagation(MPI_Comm comm, global_index_type first_row,
                                             const csr_matrix<double>& rows, global_index_type global_rows, int parts,
                                             int seed = 1, const label_propagation_options& options = {});

/// partition_label_propagation as `ranges.size() - 1` ranks holding rows [ranges[r], ranges[r + 1])
/// would compute it, in one process: the ranks' rounds run in lockstep, their figures summed where
/// MPI would reduce them, so the labels (of all rows, in row order) are the same. `g` is the
/// symmetrised graph (symmetrised_graph: weights = row nonzeros). Memory: about the graph again in
/// 32-bit local ids, plus 8 vectors of `parts` entries per rank. Used by `distspmv model`.
std::vector<int> partition_label_propagation_in_process(const graph& g, const std::vector<global_index_type>& ranges,
                                                        int parts, int seed = 1,
                                                        const label_propagation_options& options = {});

/// What a partition costs the SpMV.
struct partition_quality {
  int parts = 0;
  offset_type edge_cut = 0;                ///< nonzeros a(r, c) with part[r] != part[c]
  offset_type halo_entries_total = 0;      ///< sum over ranks of distinct ghost columns
  offset_type halo_entries_max = 0;        ///< the largest rank's ghost columns
  double nnz_imbalance = 1.0;              ///< max over ranks of nnz / mean nnz
  int neighbours_max = 0;                  ///< most ranks one rank receives from
  double neighbours_mean = 0;
  std::vector<offset_type> nnz_per_part;
  std::vector<offset_type> halo_per_part;
  std::vector<int> neighbours_per_part;
};
template <typename V, typename I>
partition_quality evaluate_partition(const csr_matrix<V, I>& a, const std::vector<int>& part, int parts);

/// New global numbering: rows of part 0 first (in their old order), then part 1, ...
/// new_id[old] = new; offsets[p] = first new id of part p (parts + 1 entries).
struct renumbering {
  std::vector<global_index_type> new_id;
  std::vector<global_index_type> offsets;
};
renumbering renumber_by_part(const std::vector<int>& part, int parts);

}  // namespace distspmv::partition
