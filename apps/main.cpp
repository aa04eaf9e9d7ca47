// distspmv: distributed sparse matrix-vector product, y = alpha*A*x + beta*y (DESIGN.md §8).
#include <CLI/CLI.hpp>
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>

#include "apps/cli.hpp"
#include "apps/model/model.hpp"
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
  CLI::App cli;
  app::cli_options options;
  const app::cli_commands commands = app::define_cli(cli, options, format_help());

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments; only rank 0 speaks.
    std::ostringstream sink;
    return rank == 0 ? cli.exit(e) : cli.exit(e, sink, sink);
  }

  const auto& o = options;
  if (*commands.convert)
    return on_rank_zero(rank, [&] {
      return app::run_convert(o.convert.input, o.convert.output, o.convert.allow_nonfinite, o.convert.seed);
    });
  if (*commands.info)
    return on_rank_zero(rank,
                        [&] { return app::run_info(o.info.source, o.info.json, o.info.allow_nonfinite, o.info.seed); });
  if (*commands.model) return on_rank_zero(rank, [&] { return model::run_model(o.model); });
  if (*commands.solve) return run_everywhere(rank, ranks, [&] { return app::run_solve(o.solve); });
  return run_everywhere(rank, ranks, [&] { return app::run_spmv(o.run); });
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
