// distspmv: distributed sparse matrix-vector product, y = alpha*A*x + beta*y (DESIGN.md §8).
#include <CLI/CLI.hpp>
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>

#include "apps/commands.hpp"
#include "apps/solve.hpp"
#include "common/errors.hpp"
#include "distspmv/config.hpp"
#include "local_kernels/format_registry.hpp"

namespace {

std::string format_help() {
  std::string s = "storage format of the local block: auto (chosen from row statistics; --tune times the "
                  "candidates), all (every format, as a benchmark), a comma-separated list (those formats, as a "
                  "benchmark), or one of:";
  for (const auto& f : distspmv::registered_formats())
    s += "\n    " + f.name + std::string(18 - std::min<std::size_t>(17, f.name.size()), ' ') + f.description +
         (f.host ? "" : " [cuda only]");
  return s;
}


/// Runs one subcommand on every rank and turns its outcome into the process exit code. Errors
/// that every rank agreed on (error::collective()) are printed once and end the run cleanly;
/// an error on some ranks only aborts the job, so that no rank is left waiting.
int run_everywhere(int rank, int ranks, const std::function<int()>& body) {
  try {
    return body();
  } catch (const distspmv::error& e) {
    if (e.collective() || ranks == 1) {
      if (rank == 0) std::fprintf(stderr, "distspmv: error: %s\n", e.what());
      return 1;
    }
    std::fprintf(stderr, "distspmv: error on rank %d: %s\n", rank, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distspmv: error on rank %d: %s\n", rank, e.what());
    if (ranks == 1) return 1;
  }
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

/// convert and info touch files: rank 0 does the work, the others learn its exit code.
int on_rank_zero(int rank, const std::function<int()>& body) {
  int code = 0;
  if (rank == 0) {
    try {
      code = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "distspmv: error: %s\n", e.what());
      code = 1;
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

int main_body(int argc, char** argv, int rank, int ranks) {
  using namespace distspmv;
  CLI::App cli{"distspmv " DISTSPMV_VERSION " (" DISTSPMV_GIT_REVISION
               "): y = alpha*A*x + beta*y for sparse matrices on GPUs.\n"
               "With no matrix it runs on gen:poisson3d:64."};
  cli.require_subcommand(0, 1);
  cli.set_version_flag("--version", DISTSPMV_VERSION " (" DISTSPMV_GIT_REVISION ")");

  app::run_options run;
  cli.add_option("matrix", run.source,
                 "A.h5, A.mtx, A.mtx.gz, A.petsc (PETSc binary), or a generator: gen:poisson3d:N, gen:stencil27:N, gen:rmat:SCALE:EF, "
                 "gen:lognormal:ROWS:MU:SIGMA:BAND")
      ->capture_default_str();
  cli.add_option("--format,-f", run.format, format_help())->capture_default_str();
  cli.add_option("--backend", run.backend, "where the SpMV runs: auto (cuda when a GPU is present), cuda, host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}))
      ->capture_default_str();
  cli.add_option("--partition", run.partition,
                 "row partitioner over the ranks: auto (block where its halo is small next to the local product, "
                 "else metis, or ptscotch past 2^30 nonzeros; says why), metis (k-way on the symmetrised graph, "
                 "gathered on rank 0), ptscotch (k-way on the distributed graph, over all ranks) or block (the read "
                 "ranges, contiguous)")
      ->check(CLI::IsMember({"auto", "metis", "ptscotch", "block"}))
      ->capture_default_str();
  cli.add_option("--transport", run.transport,
                 "halo exchange: auto (one GPU per rank: cuda-ipc on one host, nccl across hosts; else MPI), nccl, "
                 "cuda-ipc, mpi-cuda, mpi-staged, mpi-host")
      ->check(CLI::IsMember({"auto", "nccl", "cuda-ipc", "mpi-cuda", "mpi-staged", "mpi-host"}))
      ->capture_default_str();
  cli.add_option("--precision", run.precision, "value type of the SpMV")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  cli.add_option("--iters", run.iters, "timed repetitions (default 100 on cuda, 10 on host)")->check(CLI::Range(1, 1000000));
  cli.add_option("--warmup", run.warmup, "untimed repetitions first (default 10 on cuda, 2 on host)")
      ->check(CLI::Range(0, 1000000));
  cli.add_flag("--check", run.check,
               "compare y with a serial double-precision reference; exit 1 above tolerance (1e-12 double, 1e-5 float)");
  cli.add_flag("--tune", run.tune, "with --format auto: time the candidate formats briefly and keep the fastest");
  cli.add_flag("--allow-nonfinite", run.allow_nonfinite, "accept NaN and Inf values in the matrix and in x");
  cli.add_option("--seed", run.seed, "seed of generators and of the random x and y")->capture_default_str();
  cli.add_option("--json", run.json, "also write the report as JSON to this file");
  cli.add_option("--x", run.x,
                 "input vector x, entry i for column i of the matrix file (each rank reads its own entries): "
                 "FILE.h5 (dataset x, else the file's only 1-D dataset; FILE.h5:/path/to/dataset names one), "
                 "FILE.npy (NumPy, '<f8' or '<f4', 1-D) or a PETSc binary vector (FILE.petsc, FILE.dat); "
                 "default: random entries in [-1, 1)");
  cli.add_option("--output,-o", run.output,
                 "write y = A x (alpha 1, beta 0, computed once after the timing), entry i for row i of the matrix "
                 "file: FILE.h5 (dataset y; FILE.h5:/path/to/dataset names it), FILE.npy, or FILE.petsc / FILE.dat "
                 "(PETSc binary); float32 in .h5 and .npy with --precision float");

  auto* convert = cli.add_subcommand("convert", "convert a matrix between formats (.mtx, .mtx.gz, .h5, gen:...)");
  std::string conv_in, conv_out;
  bool conv_nonfinite = false;
  std::uint64_t conv_seed = 1;
  convert->add_option("input", conv_in, "matrix file or generator")->required();
  convert->add_option("output", conv_out, "output file: .mtx, .mtx.gz, .h5, .hdf5, .petsc or .dat (PETSc binary)")->required();
  convert->add_flag("--allow-nonfinite", conv_nonfinite, "accept NaN and Inf values");
  convert->add_option("--seed", conv_seed, "generator seed")->capture_default_str();

  auto* info = cli.add_subcommand("info", "sizes, row-length statistics, symmetry and bytes per format of a matrix");
  std::string info_src, info_json;
  bool info_nonfinite = false;
  std::uint64_t info_seed = 1;
  info->add_option("matrix", info_src, "matrix file or generator")->required();
  info->add_option("--json", info_json, "also write the statistics as JSON to this file");
  info->add_flag("--allow-nonfinite", info_nonfinite, "accept NaN and Inf values");
  info->add_option("--seed", info_seed, "generator seed")->capture_default_str();

  app::solve_options solve_options;
  auto* solve = app::add_solve_command(cli, solve_options);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments; only rank 0 speaks.
    std::ostringstream sink;
    return rank == 0 ? cli.exit(e) : cli.exit(e, sink, sink);
  }

  if (*convert) return on_rank_zero(rank, [&] { return app::run_convert(conv_in, conv_out, conv_nonfinite, conv_seed); });
  if (*info) return on_rank_zero(rank, [&] { return app::run_info(info_src, info_json, info_nonfinite, info_seed); });
  if (*solve) return run_everywhere(rank, ranks, [&] { return app::run_solve(solve_options); });
  return run_everywhere(rank, ranks, [&] { return app::run_spmv(run); });
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int code = main_body(argc, argv, rank, ranks);
  MPI_Finalize();
  return code;
}
