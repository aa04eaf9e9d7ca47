#include "dist/setup/auto_partition.hpp"

#include <fmt/format.h>

namespace distspmv::dist {

// Thresholds: the halo moves at about a tenth of the local product's memory bandwidth (NCCL
// 255 GB/s against 3-4 TB/s of HBM, DESIGN.md §5; staged MPI 3 GB/s against ~50 GB/s of host
// memory), so 5% of the bytes takes about half the local product's time, which the overlap
// (efficiency 0.9-0.96 measured) hides. Where it is small, a partitioner could only shrink a cost
// the overlap already hides, at the price of its own run time and the caller's order (HDIA and
// banded structure). But a small halo next to the local bytes is not enough: with long rows (FEM
// matrices of 40-60 nonzeros per row, dense social graphs) even a random numbering gives a halo of
// 1-5% of the bytes, that METIS cuts 10-20 fold (bcsstk16, cage11, email-Enron relabelled at 2
// ranks: tests/dist/dist_test.cpp AutoHaloIsNearTheBestAfterRandomRelabelling). The edge cut tells
// the two apart: a local numbering (stencils, banded and mesh matrices in their own order) cuts a
// few percent of the nonzeros, a numbering without locality 1 - 1/ranks of them. Such a numbering
// with a hidden halo is repartitioned only while the partitioner is cheap (2^24 nonzeros: METIS
// took 9.4 s for the 8.2 M of gen:rmat:20:8 on one dev-VM core, 49.5 s for the 33.5 M of
// gen:rmat:22:8 on the 2x H200 host): past that it costs a whole solve's worth of applies to cut
// a halo the overlap already hides. Block's row
// ranges are balanced by nonzeros for files and by rows for generators; an imbalance beyond 1.2 is
// worth a partitioner too. METIS gathers the graph on one
// rank with 32-bit ids; past that PT-Scotch partitions it where it lies (partition/README.md).
// Label propagation (lp) takes METIS's place on large graphs with R-MAT-like skew: there METIS's
// coarsening shrinks the graph slowly (49.5 s for gen:rmat:22:8) while lp, refining block on every
// rank, came within 1.03x of its halo in seconds; on graphs with structure (meshes, communities) lp
// from a random numbering stays far above METIS, so it is chosen by skew, not by size alone.
auto_partition_choice choose_partitioner(const auto_partition_figures& f) {
  const std::string figures = fmt::format(
      "auto: block partition: halo of x at most {:.2f}% of a rank's local SpMV bytes (limit {:.0f}%), edge cut "
      "{:.1f}% of the nonzeros (limit {:.0f}%), nnz imbalance {:.3f} (limit {:.1f}); rows longer than 4x the mean "
      "hold {:.0f}% of the nonzeros",
      100 * f.block_halo_ratio, 100 * auto_max_halo_ratio, 100 * f.cut_fraction, 100 * auto_max_cut_fraction,
      f.nnz_imbalance, auto_max_imbalance, 100 * f.long_row_fraction);
  const bool hidden = f.block_halo_ratio <= auto_max_halo_ratio && f.nnz_imbalance <= auto_max_imbalance;
  if (hidden && f.cut_fraction <= auto_max_cut_fraction)
    return {partitioner::block, figures + ": the numbering is local and the overlap hides the halo, block keeps "
                                          "the caller's order"};
  if (hidden && f.global_nnz > auto_max_locality_nnz)
    return {partitioner::block,
            figures + fmt::format(": the overlap hides the halo; a partitioner could cut it, but on {} nonzeros (more "
                                  "than 2^24) it would cost more setup time than the hidden halo costs, so block stays",
                                  f.global_nnz)};
  if (f.global_nnz > auto_lp_min_nnz && f.long_row_fraction >= auto_lp_min_long_row_fraction)
    return {partitioner::lp,
            figures + fmt::format(": a graph of {} nonzeros (more than 2^24) with R-MAT-like skew (at least {:.0f}% in "
                                  "long rows): label propagation cuts the halo to near METIS's in a fraction of its time",
                                  f.global_nnz, 100 * auto_lp_min_long_row_fraction)};
  const bool metis_fits = f.global_nnz <= metis_max_nnz;
  if (f.have_metis && metis_fits) return {partitioner::metis, figures + ": METIS may cut the halo"};
  const std::string why_not_metis =
      !metis_fits ? fmt::format("the graph ({} nonzeros) is too large for METIS on one rank (limit 2^30)", f.global_nnz)
                  : std::string("METIS is not in this build");
  if (f.have_ptscotch)
    return {partitioner::ptscotch, figures + "; " + why_not_metis + ", so PT-Scotch partitions it over the ranks"};
  return {partitioner::lp, figures + "; " + why_not_metis +
                               " and PT-Scotch is not in this build, so label propagation (MPI only) refines block"};
}

}  // namespace distspmv::dist
