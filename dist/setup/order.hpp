// Locality ordering inside each rank (issue 16): after the rows reach their owner, each rank
// permutes its owned rows (partition/ordering.hpp) and the permutation is folded into the
// partitioned numbering: owned row k of rank r gets the new global id row_offsets[r] + k, every
// rank's columns (ghost columns too) are renamed to the new ids, and the layout map sends the
// caller's rows and entries straight to their permuted places. to_partitioned,
// from_partitioned and update_values therefore need nothing new, and the caller's layout is
// unchanged.
//
//   redistribute ─▶ owned rows (part order) ─▶ order of the local block ─▶ ask owners for the
//                                              new ids of ghost columns ─▶ permute rows,
//                                              rename and sort columns, fix the layout map
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "dist/distributed_matrix.hpp"
#include "dist/setup/assign.hpp"
#include "partition/locality.hpp"

namespace distspmv::dist {

/// Renumbers this rank's owned rows by `order` (degree or rcm; none is a no-op) and updates
/// `rows` (rows permuted, columns renamed and sorted, caller_ids permuted) and `map`. Collective:
/// every rank calls it with the same `order` (one exchange of the new ids of ghost columns).
/// `rcm_on_gpu` (the CUDA backend, rows that moved): rcm's order is computed on the GPU
/// (gpu_order.hpp; the same order as partition::rcm_order), the rest stays on the host.
void reorder_owned_rows(MPI_Comm comm, owned_rows& rows, layout_map& map, row_order order, bool rcm_on_gpu = false);

// The sample rule itself needs no MPI (the model of P ranks applies it too).
using partition::locality_sample;
using partition::sample_locality;

/// `--order auto`, collective on the summed samples (partition::judge_locality): none where the
/// caller's numbering is already local, else rcm. `reason` gets the figures.
row_order choose_order(MPI_Comm comm, const locality_sample& mine, std::string& reason);

}  // namespace distspmv::dist
