// bench_hdf5 [ROWS [NNZ_PER_ROW [FILE]]]: throughput of write_hdf5, read_hdf5, read_hdf5_rows.
//
// Writes a random ROWS x ROWS matrix with NNZ_PER_ROW sorted unique columns per row (default
// 8M x 16 = 134M nonzeros; int32 indices + float64 values + int64 indptr = 1.67 GB on disk) to
// FILE (default /tmp/dspmv_bench_<pid>.h5), then times the whole read, a row-range read of the
// middle quarter of the rows (what one of 4 ranks reads) and read_hdf5_row_ptr. Each read runs
// "warm" (file in the page cache: HDF5 overhead + memory copies + int32 -> int64 widening) and
// "cold" (the file's pages evicted with posix_fadvise(DONTNEED) after fsync: only this file, so
// other users' caches are untouched). GB/s counts the file bytes the read touches; the read
// matrix is checked against the written one.
//
// Measured with the defaults (8M x 16, file 1.678 GB; warm = median of 3, cold = one run; GB/s
// of file bytes touched). Git 082479a, Release, HDF5 1.10.8 serial.
//
//   H100 machine (Ubuntu 24.04, GCC 13, 16 cores, VM disk), two runs:
//     write_hdf5                      1.48 .. 1.84 GB/s  (to the page cache)
//     raw read() of the file   cold   1.53 .. 1.80 GB/s   warm 5.4 .. 7.4 GB/s   (the ceiling)
//     read_hdf5                cold   0.84 .. 0.99 GB/s   warm 1.16 .. 1.44 GB/s
//     read_hdf5_rows (1/4)     cold   0.72 .. 0.84 GB/s   warm 1.18 .. 1.59 GB/s
//     read_hdf5_row_ptr        cold   0.89 .. 1.00 GB/s
//   Shared 2-core dev VM (Debian 12, GCC 12, other builds running; its slow disk throttles writes):
//     write_hdf5 0.28 GB/s; read_hdf5 cold 0.38, warm 1.63 GB/s; read_hdf5_rows (1/4) warm 1.35 GB/s.
//
// Where the warm time goes (perf on the dev VM): faulting in and zeroing the 2 GB of fresh
// output (int64 indices and double values), then one copy out of the page cache, the int32 ->
// int64 widening and one validation pass. Backing the buffers with transparent huge pages cut a
// warm read 10x (see make_buffer in io/hdf5_io.cpp); a posix_fadvise(WILLNEED) prefetch of the
// index and value ranges was tried for the cold read and gave no measurable gain, so it is not
// used.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "distspmv/config.hpp"
#include "io/hdf5_io.hpp"

namespace {

using distspmv::csr_matrix;
using distspmv::global_index_type;
using distspmv::offset_type;
using distspmv::row_range;

/// splitmix64: fast enough to fill 134M entries in a few seconds on one core.
struct splitmix {
  std::uint64_t state;
  std::uint64_t operator()() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

csr_matrix<double> random_matrix(global_index_type rows, int per_row, std::uint64_t seed) {
  splitmix rng{seed};
  csr_matrix<double> a;
  a.rows = a.cols = rows;
  per_row = static_cast<int>(std::min<global_index_type>(per_row, rows));
  const auto nnz = static_cast<std::size_t>(rows) * static_cast<std::size_t>(per_row);
  a.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  a.col_idx.resize(nnz);
  a.values.resize(nnz);
  std::vector<global_index_type> cols(per_row);
  for (global_index_type r = 0; r < rows; ++r) {
    // Distinct sorted columns: sort the draws and push repeats one column up; redraw the rare
    // row that this pushes past the last column.
    for (;;) {
      for (auto& c : cols) c = static_cast<global_index_type>(rng() % static_cast<std::uint64_t>(rows));
      std::sort(cols.begin(), cols.end());
      for (int k = 1; k < per_row; ++k) cols[k] = std::max(cols[k], cols[k - 1] + 1);
      if (per_row == 0 || cols.back() < rows) break;
    }
    const auto base = static_cast<std::size_t>(r) * per_row;
    a.row_ptr[r] = static_cast<offset_type>(base);
    for (int k = 0; k < per_row; ++k) {
      a.col_idx[base + k] = cols[k];
      a.values[base + k] = static_cast<double>(static_cast<std::int64_t>(rng() >> 11)) * 0x1p-53 * 2.0 - 1.0;
    }
  }
  a.row_ptr[rows] = static_cast<offset_type>(nnz);
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Flushes the file and drops its pages from the page cache (only this file's pages).
void evict(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

/// Plain read() of the whole file through one reused 64 MiB buffer: the ceiling for a reader
/// (page-cache copy speed when warm, disk speed when cold), without allocation or page faults.
double raw_read_seconds(const std::string& path, std::vector<char>& buffer) {
  const auto t0 = std::chrono::steady_clock::now();
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return 0;
  while (::read(fd, buffer.data(), buffer.size()) > 0) {
  }
  ::close(fd);
  return seconds_since(t0);
}

template <typename F>
double median_seconds(int repetitions, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < repetitions; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(seconds_since(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const global_index_type rows = argc > 1 ? std::atoll(argv[1]) : global_index_type{8} << 20;
    const int per_row = argc > 2 ? std::atoi(argv[2]) : 16;
    const std::string path =
        argc > 3 ? argv[3] : "/tmp/dspmv_bench_" + std::to_string(static_cast<long>(::getpid())) + ".h5";

    auto t0 = std::chrono::steady_clock::now();
    const auto a = random_matrix(rows, per_row, 42);
    std::printf("generated %lld x %lld, nnz %lld in %.2f s\n", static_cast<long long>(a.rows),
                static_cast<long long>(a.cols), static_cast<long long>(a.nnz()), seconds_since(t0));

    t0 = std::chrono::steady_clock::now();
    distspmv::io::write_hdf5(path, a);
    const double write_s = seconds_since(t0);
    const double file_gb = static_cast<double>(std::filesystem::file_size(path)) / 1e9;
    std::printf("write_hdf5          %7.3f s  %6.2f GB/s  (file %.3f GB, page cache; fsync not timed)\n", write_s,
                file_gb / write_s, file_gb);

    const int index_bytes = distspmv::io::read_hdf5_info(path).index_type == "int64" ? 8 : 4;
    const auto bytes_of_rows = [&](row_range r) {
      const double entries = static_cast<double>(a.row_ptr[r.end] - a.row_ptr[r.begin]);
      return (8.0 * static_cast<double>(r.size() + 1) + entries * (index_bytes + 8)) / 1e9;
    };

    bool ok = true;
    const auto report = [&](const char* what, const char* cache, double seconds, double gb) {
      std::printf("%-19s %-4s %7.3f s  %6.2f GB/s  (%.3f GB)\n", what, cache, seconds, gb / seconds, gb);
      std::printf("JSON {\"bench\": \"hdf5\", \"git\": \"%s\", \"op\": \"%s\", \"cache\": \"%s\", \"rows\": %lld, "
                  "\"nnz\": %lld, \"seconds\": %.4f, \"gb\": %.4f, \"gb_per_s\": %.3f}\n",
                  DISTSPMV_GIT_REVISION, what, cache, static_cast<long long>(a.rows),
                  static_cast<long long>(a.nnz()), seconds, gb, gb / seconds);
    };

    // Baseline: the file's bytes alone.
    {
      std::vector<char> buffer(std::size_t{64} << 20);
      evict(path);
      report("raw read()", "cold", raw_read_seconds(path, buffer), file_gb);
      std::vector<double> t;
      for (int i = 0; i < 3; ++i) t.push_back(raw_read_seconds(path, buffer));
      std::sort(t.begin(), t.end());
      report("raw read()", "warm", t[1], file_gb);
    }

    // Whole matrix.
    {
      const row_range all{0, a.rows};
      evict(path);
      csr_matrix<double> b;
      t0 = std::chrono::steady_clock::now();
      b = distspmv::io::read_hdf5(path);
      report("read_hdf5", "cold", seconds_since(t0), bytes_of_rows(all));
      ok = ok && b == a;
      b = {};
      report("read_hdf5", "warm", median_seconds(3, [&] { b = distspmv::io::read_hdf5(path); }), bytes_of_rows(all));
      ok = ok && b == a;
    }
    // Middle quarter of the rows: one of four ranks.
    {
      const row_range quarter{a.rows * 3 / 8, a.rows * 5 / 8};
      evict(path);
      t0 = std::chrono::steady_clock::now();
      auto b = distspmv::io::read_hdf5_rows(path, quarter);
      report("read_hdf5_rows 1/4", "cold", seconds_since(t0), bytes_of_rows(quarter));
      ok = ok && b == distspmv::slice_rows(a, quarter);
      report("read_hdf5_rows 1/4", "warm",
             median_seconds(3, [&] { b = distspmv::io::read_hdf5_rows(path, quarter); }), bytes_of_rows(quarter));
      ok = ok && b == distspmv::slice_rows(a, quarter);
    }
    // Row pointer alone (for split_rows_by_nnz).
    {
      const double gb = 8.0 * static_cast<double>(a.rows + 1) / 1e9;
      evict(path);
      t0 = std::chrono::steady_clock::now();
      auto ptr = distspmv::io::read_hdf5_row_ptr(path);
      report("read_hdf5_row_ptr", "cold", seconds_since(t0), gb);
      ok = ok && ptr == a.row_ptr;
    }
    std::filesystem::remove(path);
    std::printf("%s\n", ok ? "read matrices equal the written one" : "MISMATCH between written and read matrices");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_hdf5: %s\n", e.what());
    return 1;
  }
}
