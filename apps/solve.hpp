// `distspmv solve`: a distributed Krylov solve (CG or GMRES) with distspmv as the operator
// (DESIGN.md §8, §9).
//
//   mpirun -np 4 distspmv solve A.h5 --method cg --rtol 1e-8 --json solve.json
//
// Without --rhs, b = A * 1 (so the exact solution is the vector of ones). --rhs reads b in the
// original row order, each rank its own entries: an HDF5 file (dataset `b`, or the file's only
// 1-D dataset, or FILE.h5:/name), a NumPy .npy file, a PETSc binary vector (io/vector_io.hpp), or
// a Matrix Market dense vector (`%%MatrixMarket matrix array real general`, N x 1, read whole).
// --output writes x in the original row order, each rank its slice, as HDF5 (float64 dataset `x`
// unless FILE.h5:/name), .npy or PETSc binary, by the extension.
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace distspmv::app {

struct solve_options {
  std::string source;                ///< matrix file or gen:... spec
  std::string method = "cg";         ///< cg | gmres
  double rtol = 1e-8;                ///< ||b - A x|| <= rtol ||b||
  int max_iters = 10000;
  int restart = 30;                  ///< GMRES(m)
  bool no_jacobi = false;            ///< turn the Jacobi preconditioner off
  std::string rhs;                   ///< optional: .h5 (dataset b), .npy, PETSc binary or .mtx (dense array)
  std::string output;                ///< optional: .h5 (dataset x), .npy or PETSc binary (.petsc, .dat)
  std::string format = "auto";       ///< local storage format
  std::string partition = "auto";    ///< auto | metis | block
  std::string order = "auto";        ///< none | degree | rcm | auto (row order inside each rank)
  std::string backend = "auto";      ///< auto (cuda when every rank sees a GPU) | cuda | host
  std::string transport = "auto";    ///< auto | nccl | mpi-cuda | mpi-staged | mpi-host
  std::string cuda_graphs = "on";    ///< on | off (matrix_options::cuda_graphs)
  std::string json;                  ///< optional JSON report
  int history_every = 10;            ///< print the residual every k iterations (0: never)
  bool allow_nonfinite = false;
  std::uint64_t seed = 1;            ///< generator seed
};

/// Defines the `solve` subcommand of `cli` (apps/cli.cpp), filling `options` when it is parsed. Returns it, so
/// that main() can test `if (*solve)` (or use cli.got_subcommand("solve")).
CLI::App* add_solve_command(CLI::App& cli, solve_options& options);

/// Runs the solve on MPI_COMM_WORLD (MPI already initialised). Report on rank 0.
/// Returns 0 when converged, 2 when not; throws distspmv::error on failure (main() turns it into
/// exit code 1), the same on every rank.
int run_solve(const solve_options& options);

}  // namespace distspmv::app
