// The command line of the distspmv program (cli.hpp): defined here, parsed and run by main.cpp.
#include "apps/cli.hpp"

#include <CLI/CLI.hpp>

#include "distspmv/config.hpp"

namespace distspmv::app {

cli_commands define_cli(CLI::App& cli, cli_options& options, const std::string& format_help) {
  cli.description("distspmv " DISTSPMV_VERSION " (" DISTSPMV_GIT_REVISION
                  "): y = alpha*A*x + beta*y for sparse matrices on GPUs.\n"
                  "With no matrix it runs on gen:poisson3d:64.");
  cli.require_subcommand(0, 1);
  cli.set_version_flag("--version", DISTSPMV_VERSION " (" DISTSPMV_GIT_REVISION ")");
  cli_commands commands;
  run_options& run = options.run;
  cli.add_option("matrix", run.source,
                 "A.h5, A.mtx, A.mtx.gz, A.petsc (PETSc binary), or a generator: gen:poisson3d:N, gen:stencil27:N, "
                 "gen:rmat:SCALE:EF, gen:lognormal:ROWS:MU:SIGMA:BAND")
      ->capture_default_str();
  cli.add_option("--format,-f", run.format, format_help)->capture_default_str();
  cli.add_option("--backend", run.backend, "where the SpMV runs: auto (cuda when a GPU is present), cuda, host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}))
      ->capture_default_str();
  cli.add_option("--partition", run.partition,
                 "row partitioner over the ranks: auto (block where its halo is small next to the local product, "
                 "else metis, lp on large skewed graphs, or ptscotch past 2^30 nonzeros; says why), metis (k-way on "
                 "the symmetrised graph, gathered on rank 0), ptscotch (k-way on the distributed graph, over all "
                 "ranks), lp (label propagation from the block partition, over all ranks: fast) or block (the read "
                 "ranges, contiguous)")
      ->check(CLI::IsMember({"auto", "metis", "ptscotch", "lp", "block"}))
      ->capture_default_str();
  cli.add_option("--order", run.order,
                 "row order inside each rank: none (the partition's order), degree (descending row length: hubs "
                 "first), rcm (reverse Cuthill-McKee on the local block) or auto (none where the numbering is already "
                 "local, banded, stencil or clustered; elsewhere rcm, or where the GPU orders, the fastest of none, rcm and degree "
                 "in a timed trial of the local product; the default). On the CUDA backend with rows that stay where "
                 "they are read (one rank, or the block partition) the order is computed on the GPU; otherwise rows are "
                 "ordered on the host after they reach their owner. With --format all, "
                 "a list or --tune (one rank), the whole matrix is renumbered before every format")
      ->check(CLI::IsMember({"none", "degree", "rcm", "auto"}))
      ->capture_default_str();
  cli.add_flag("--vs-cusparse", run.vs_cusparse,
               "also time cuSPARSE CSR on each rank's rows (CUDA backend), in the caller's order (what a cuSPARSE or "
               "PETSc user gets) and in ours (the kernel alone), and report both ratios; re-reads the rows, and "
               "needs a second copy of them on the host and the GPU");
  cli.add_option("--transport", run.transport,
                 "halo exchange: auto (one GPU per rank: peer-put on one host, nccl across hosts; else MPI), nccl, "
                 "peer-put (the GPUs store the halo into each other's memory and raise flags there; one host), "
                 "nvshmem (NVSHMEM's put-with-signal; builds with NVSHMEM), "
                 "cuda-ipc (copy engines, host handshake; one host), mpi-cuda, mpi-staged, mpi-host")
      ->check(CLI::IsMember({"auto", "nccl", "peer-put", "nvshmem", "cuda-ipc", "mpi-cuda", "mpi-staged", "mpi-host"}))
      ->capture_default_str();
  cli.add_option("--cuda-graphs", run.cuda_graphs,
                 "on: an apply that repeats the previous one's vectors and scalars is captured once and then "
                 "launched as one CUDA graph (one rank, or the peer-put, nvshmem and nccl transports; the report says whether it applied); "
                 "off: every apply launches its kernels one by one")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  cli.add_option("--precision", run.precision,
                 "value type of the SpMV; mixed: double x, y and sums, the matrix values stored in float where the "
                 "format can (the CSR family), 8 instead of 12 bytes per nonzero")
      ->check(CLI::IsMember({"double", "float", "mixed"}))
      ->capture_default_str();
  cli.add_option("--iters", run.iters, "timed repetitions (default 100 on cuda, 10 on host)")
      ->check(CLI::Range(1, 1000000));
  cli.add_option("--warmup", run.warmup, "untimed repetitions first (default 10 on cuda, 2 on host)")
      ->check(CLI::Range(0, 1000000));
  cli.add_flag("--check", run.check,
               "compare y with a serial double-precision reference; exit 1 above tolerance (1e-12 double, 1e-5 float and "
               "mixed)");
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
  convert_options& c = options.convert;
  convert->add_option("input", c.input, "matrix file or generator")->required();
  convert->add_option("output", c.output, "output file: .mtx, .mtx.gz, .h5, .hdf5, .petsc or .dat (PETSc binary)")
      ->required();
  convert->add_flag("--allow-nonfinite", c.allow_nonfinite, "accept NaN and Inf values");
  convert->add_option("--seed", c.seed, "generator seed")->capture_default_str();
  commands.convert = convert;

  auto* info = cli.add_subcommand("info", "sizes, row-length statistics, symmetry and bytes per format of a matrix");
  info_options& i = options.info;
  info->add_option("matrix", i.source, "matrix file or generator")->required();
  info->add_option("--json", i.json, "also write the statistics as JSON to this file");
  info->add_flag("--allow-nonfinite", i.allow_nonfinite, "accept NaN and Inf values");
  info->add_option("--seed", i.seed, "generator seed")->capture_default_str();
  commands.info = info;

  commands.solve = add_solve_command(cli, options.solve);
  commands.model = add_model_command(cli, options.model);
  return commands;
}

CLI::App* add_solve_command(CLI::App& cli, solve_options& o) {
  auto* s = cli.add_subcommand("solve",
                               "solve A x = b with CG or GMRES, distspmv as the operator (b = A*1 unless --rhs)");
  s->add_option("matrix", o.source, "A.h5, A.mtx, A.mtx.gz, or a generator gen:KIND:ARGS")->required();
  s->add_option("--method", o.method, "cg (symmetric positive definite matrices) or gmres (any)")
      ->check(CLI::IsMember({"cg", "gmres"}))
      ->capture_default_str();
  s->add_option("--rtol", o.rtol, "stop when ||b - A x|| <= RTOL * ||b||")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  s->add_option("--max-iters", o.max_iters, "iteration limit (exit code 2 when reached)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  s->add_option("--restart", o.restart, "GMRES restart length m (Krylov vectors per cycle)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  s->add_option("--rhs", o.rhs,
                "right-hand side in the original row order: FILE.h5 (dataset b, else the file's only 1-D dataset; "
                "FILE.h5:/path names one), FILE.npy, a PETSc binary vector (.petsc, .dat), or a Matrix Market dense "
                "vector (.mtx, 'matrix array real general', N x 1); default b = A*1");
  s->add_option("--output,-o", o.output,
                "write x in the original row order: FILE.h5 (dataset x; FILE.h5:/path names it), FILE.npy, or "
                "FILE.petsc / FILE.dat (PETSc binary)");
  s->add_option("--format,-f", o.format, "storage format of the local blocks (see distspmv --help)")
      ->capture_default_str();
  s->add_option("--partition", o.partition, "row partitioner (see distspmv --help)")
      ->check(CLI::IsMember({"auto", "metis", "ptscotch", "lp", "block"}))
      ->capture_default_str();
  s->add_option("--order", o.order, "row order inside each rank: none, degree, rcm or auto (see distspmv --help)")
      ->check(CLI::IsMember({"none", "degree", "rcm", "auto"}))
      ->capture_default_str();
  s->add_option("--backend", o.backend, "where the solve runs: auto (cuda when every rank has a GPU), cuda, host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}))
      ->capture_default_str();
  s->add_option("--transport", o.transport, "halo exchange: auto, nccl, peer-put, nvshmem, cuda-ipc, mpi-cuda, mpi-staged, mpi-host")
      ->check(CLI::IsMember({"auto", "nccl", "peer-put", "nvshmem", "cuda-ipc", "mpi-cuda", "mpi-staged", "mpi-host"}))
      ->capture_default_str();
  s->add_option("--cuda-graphs", o.cuda_graphs, "apply as a CUDA graph where it can (see distspmv --help)")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  s->add_option("--json", o.json, "also write the report as JSON to this file");
  s->add_flag("--no-jacobi", o.no_jacobi, "no preconditioner (default: Jacobi, on the right for GMRES)");
  s->add_option("--history-every", o.history_every, "print the residual every N iterations (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  s->add_flag("--allow-nonfinite", o.allow_nonfinite, "accept NaN and Inf values in the matrix and in b");
  s->add_option("--seed", o.seed, "seed of random generators")->capture_default_str();
  return s;
}

CLI::App* add_model_command(CLI::App& cli, model::options& o) {
  auto* m = cli.add_subcommand("model",
                               "predict the apply at many ranks on this CPU: the real partition at each rank count, "
                               "its halo per rank, and times from a machine description (docs/performance.md)");
  m->add_option("matrix", o.source, "matrix file or generator gen:KIND:ARGS")->required();
  m->add_option("--ranks", o.ranks, "comma-separated rank (GPU) counts")->capture_default_str();
  m->add_option("--partition", o.partition,
                "block (the read ranges), lp (label propagation as P ranks run it, in one process), metis (the "
                "same METIS call as a P-rank run) or ptscotch (PT-Scotch in one process with P parts: approximate)")
      ->check(CLI::IsMember({"block", "lp", "metis", "ptscotch"}))
      ->capture_default_str();
  m->add_option("--gpus-per-host", o.gpus_per_host, "consecutive ranks per host (the off-host halo)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  m->add_option("--machine", o.machine, "machine description JSON (default: jobs/machines/h100_ib.json of the source tree)");
  m->add_option("--format-class", o.format_class, "SpMV class of the machine description (auto: from the pattern)")
      ->capture_default_str();
  m->add_option("--transport", o.transport, "exchange on one host: an entry of the description's exchange (default: its on_host)");
  m->add_option("--order", o.order,
                "the row order as a run applies it: auto (the program's default: the sample rule, then each rank's "
                "trial of the read, rcm and degree orders, predicted), none, rcm or degree")
      ->check(CLI::IsMember({"auto", "none", "rcm", "degree"}))
      ->capture_default_str();
  m->add_option("--json", o.json, "also write the figures and predictions as JSON to this file");
  m->add_flag("--per-rank", o.per_rank, "every rank's figures in the JSON");
  m->add_option("--seed", o.seed, "generator seed")->capture_default_str();
  m->add_option("--partition-seed", o.partition_seed, "METIS and lp seed (as a run's)")->capture_default_str();
  return m;
}

}  // namespace distspmv::app
