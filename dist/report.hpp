// The report of a set-up distributed matrix as JSON: what the command line's --json holds apart
// from the timings of its run (issue 38). The command line adds its timings to it; the Python
// module's Matrix.report() returns it as a dict.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dist/distributed_matrix.hpp"

namespace distspmv {

/// Collective over m.comm(): the matrix (`source`, rows, nonzeros), ranks, backend, `precision`
/// (the caller's word: double, float or mixed), transport and partition with their reasons, halo
/// and imbalance figures, row order, CUDA graphs, setup seconds per phase of this rank and the
/// slowest rank's total, host and GPU memory (min / median / max over ranks), MPI library, hosts
/// and GPUs, and `per_rank` (rank, host, device, gpu, rows, nnz, interior and boundary rows,
/// ghosts, halo bytes, sends, neighbours, format with its reason and parameters, halo format).
/// Every rank gets the same document except `setup_seconds`' phases, which are its own.
template <typename V>
nlohmann::json setup_report(const distributed_matrix<V>& m, const std::string& source, const std::string& precision);

extern template nlohmann::json setup_report(const distributed_matrix<double>&, const std::string&, const std::string&);
extern template nlohmann::json setup_report(const distributed_matrix<float>&, const std::string&, const std::string&);

}  // namespace distspmv
