// The subcommands of the distspmv program (DESIGN.md §8). Each returns the process exit code.
#pragma once

#include <cstdint>
#include <string>

namespace distspmv::app {

/// Options of the main command: y = alpha*A*x + beta*y, timed.
struct run_options {
  std::string source = "gen:poisson3d:64";
  std::string format = "auto";
  std::string backend = "auto";  ///< auto: cuda when a GPU is present, else host
  std::string precision = "double";
  std::string partition = "metis";
  std::string transport = "auto";
  int iters = 0;   ///< 0: 100 on CUDA, 10 on the host
  int warmup = -1; ///< -1: 10 on CUDA, 2 on the host
  bool check = false;
  bool tune = false;
  bool allow_nonfinite = false;
  std::uint64_t seed = 1;
  std::string json;
};

/// The main command: the distributed run (any number of ranks), or with --format all / --tune
/// the single-rank format benchmark.
int run_spmv(const run_options& options);

/// The distributed run: partition, overlapped apply, report (run_distributed.cpp).
int run_distributed(const run_options& options);

/// Every format (or --tune) on one rank against cuSPARSE (run_spmv.cpp).
int run_format_bench(const run_options& options);

int run_convert(const std::string& in, const std::string& out, bool allow_nonfinite, std::uint64_t seed);

int run_info(const std::string& source, const std::string& json, bool allow_nonfinite, std::uint64_t seed);

}  // namespace distspmv::app
