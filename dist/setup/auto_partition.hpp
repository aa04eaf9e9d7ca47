// `--partition auto` (issue 15): which partitioner a run keeps or re-runs with, from the figures
// of the block partition it set up first. A pure function of those figures, so that the rule is
// tested on the CPU at sizes no test machine could set up (tests/dist/auto_partition_test.cpp).
#pragma once

#include <string>

#include "common/types.hpp"
#include "dist/distributed_matrix.hpp"

namespace distspmv::dist {

/// What the rule looks at.
struct auto_partition_figures {
  double block_halo_ratio = 0;  ///< block partition: max over ranks of halo bytes / local SpMV bytes
  double nnz_imbalance = 1.0;   ///< block partition: max nnz / mean nnz
  double cut_fraction = 0;      ///< block partition: nonzeros a(i, j) with i, j on different ranks / all
  offset_type global_nnz = 0;   ///< nonzeros of the matrix
  /// Fraction of the nonzeros in rows longer than 4x the mean row, estimated from the block
  /// partition's halo rows (see auto_choice): about 0.65-0.75 on R-MAT, 0-0.5 elsewhere.
  double long_row_fraction = 0;
  bool have_metis = false;      ///< the build has METIS (DISTSPMV_HAVE_METIS)
  bool have_ptscotch = false;   ///< the build has PT-Scotch (DISTSPMV_HAVE_PTSCOTCH)
};

/// The choice: block (keep the setup as it is), metis, ptscotch or lp, and why with the figures.
struct auto_partition_choice {
  partitioner method = partitioner::block;
  std::string reason;  ///< "auto: <figures>: <why>", for partition_summary::reason
};

/// Block stays where its halo is at most this fraction of a rank's local SpMV bytes ...
inline constexpr double auto_max_halo_ratio = 0.05;
/// ... its nnz imbalance at most this ...
inline constexpr double auto_max_imbalance = 1.2;
/// ... and its edge cut at most this fraction of the nonzeros: the numbering is local (a numbering
/// without locality cuts about 1 - 1/ranks of them, at least half).
inline constexpr double auto_max_cut_fraction = 0.10;
/// A numbering without locality whose halo the overlap hides is repartitioned only up to this many
/// nonzeros: past it the partitioner costs more setup time than a hidden halo can cost (METIS:
/// about 1.1 us per nonzero of an R-MAT graph on one core, jobs/bench_partition.cpp).
inline constexpr offset_type auto_max_locality_nnz = offset_type{1} << 24;
/// Label propagation instead of METIS (or PT-Scotch) past this many nonzeros ...
inline constexpr offset_type auto_lp_min_nnz = offset_type{1} << 24;
/// ... on graphs whose rows longer than 4x the mean hold at least this fraction of the nonzeros
/// (R-MAT-like skew). There lp's halo was within 1.03x of METIS's (gen:rmat:16:8 to 22:8) for a
/// fraction of its time; on meshes, road and circuit graphs and social graphs with communities it
/// was 1.2-300x METIS's (randomly relabelled shared matrices, partition/README.md), so METIS stays.
inline constexpr double auto_lp_min_long_row_fraction = 0.6;
/// Largest matrix METIS partitions on one rank: its symmetrised graph (at most twice the
/// nonzeros in arcs) must stay below the 2^31 of Debian's 32-bit idx_t.
inline constexpr offset_type metis_max_nnz = offset_type{1} << 30;

/// Block where the numbering is local and the overlap hides its halo; else label propagation on a
/// large skewed graph; else METIS up to metis_max_nnz nonzeros; else (or without METIS) PT-Scotch;
/// label propagation (which needs MPI only) when the build has neither.
auto_partition_choice choose_partitioner(const auto_partition_figures& f);

}  // namespace distspmv::dist
