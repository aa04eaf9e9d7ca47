// The subcommands of the distspmv program (DESIGN.md §8). Each returns the process exit code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace distspmv::app {

/// Options of the main command: y = alpha*A*x + beta*y, timed.
struct run_options {
  std::string source = "gen:poisson3d:64";
  std::string format = "auto";
  std::string backend = "auto";  ///< auto: cuda when a GPU is present, else host
  std::string precision = "double";  ///< double | float | mixed (double, values in float: build_options)
  std::string partition = "auto";
  std::string order = "auto";  ///< row order inside each rank: none | degree | rcm | auto
  bool vs_cusparse = false;     ///< also time cuSPARSE CSR on each rank's rows (re-reads them)
  std::string transport = "auto";
  std::string cuda_graphs = "on";  ///< on | off (matrix_options::cuda_graphs)
  int iters = 0;   ///< 0: 100 on CUDA, 10 on the host
  int warmup = -1; ///< -1: 10 on CUDA, 2 on the host
  bool check = false;
  bool tune = false;
  bool allow_nonfinite = false;
  std::uint64_t seed = 1;
  std::string json;
  std::string x;       ///< --x: the input vector file (empty: random entries)
  std::string output;  ///< --output: where y = A x goes (empty: not written)
};

/// --check's tolerance on the maximum relative error: 1e-12 in double, 1e-5 in float and in
/// mixed precision (values rounded to float: about 6e-8 each).
template <typename V>
double check_tolerance(const std::string& precision) {
  return sizeof(V) > 4 && precision != "mixed" ? 1e-12 : 1e-5;
}

/// `--format a,b,c`: the named formats as a benchmark (like `all`, on one rank).
inline bool is_format_list(const std::string& format) { return format.find(',') != std::string::npos; }
inline std::vector<std::string> split_format_list(const std::string& format) {
  std::vector<std::string> names;
  std::string::size_type start = 0;
  for (std::string::size_type comma; (comma = format.find(',', start)) != std::string::npos; start = comma + 1)
    names.push_back(format.substr(start, comma - start));
  names.push_back(format.substr(start));
  return names;
}

/// The main command: the distributed run (any number of ranks), or with --format all, a format
/// list or --tune the single-rank format benchmark.
int run_spmv(const run_options& options);

/// The distributed run: partition, overlapped apply, report (run_distributed.cpp).
int run_distributed(const run_options& options);

/// Every format (or --tune) on one rank against cuSPARSE (run_spmv.cpp).
int run_format_bench(const run_options& options);

int run_convert(const std::string& in, const std::string& out, bool allow_nonfinite, std::uint64_t seed);

int run_info(const std::string& source, const std::string& json, bool allow_nonfinite, std::uint64_t seed);

}  // namespace distspmv::app
