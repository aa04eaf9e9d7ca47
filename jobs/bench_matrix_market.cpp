// bench_matrix_market [FILE]: throughput of read_matrix_market.
//
// With no argument: writes a random real general matrix of about 120 MB as /tmp/...mtx and the
// same as .mtx.gz, then times reading each (median of 3 reads, file in the page cache). With
// FILE: times reading that file. MB/s counts the decompressed text, so plain and gzip figures
// compare the same work; the gzip line also gives the compressed size.
//
// Measured 2026-11-22 (GCC 12, Release, one core of the shared 2-core AMD EPYC dev VM, load
// average about 3 from other users; 120.8 MB text, 1M x 1M, 3.60 M nnz, shortest-repr values):
//   plain .mtx        590-620 MB/s wall, 17.5-18.5 M nnz/s (CPU time: 600-625 MB/s per core)
//   .mtx.gz (52.9 MB) 200-235 MB/s of text, 6.0-7.0 M nnz/s (zlib inflate takes over half)
//   parse only        760-820 MB/s (text already in memory: no read(), no text page faults)
// Under heavier load (load average 6) the same runs gave 200-340 MB/s wall, 400-550 MB/s of CPU.
// Shared matrices (gzip, MB/s of text): uk-2007-05@100000 (pattern, 3.05 M nnz) 175 MB/s,
// 14.9 M nnz/s; cage11 (real, 0.56 M nnz) 195 MB/s.
// Huge pages matter on this VM: a 4 KiB first-touch fault costs ~20 us, so read() into fresh
// memory ran at ~200 MB/s without MADV_HUGEPAGE and ~4.5 GB/s with it (see advise_huge_pages).
//
// 2026-11-23, the reader streaming the text in 4 MiB windows (issue 20: memory flat whatever
// the text) against the whole-text reader before it, same flags, alternating runs on the same
// files under load average 3-7 (best / median, MB/s of text):
//   plain .mtx        680-736 / 521-629   (before: 682 / 479)
//   .mtx.gz           225-226 / 197-220   (before: 218 / 184)
//   parse from memory 721-756 / 561-650   (before: 781 / 654): the text in memory is now copied
//                     into the windows like a file's, about 20 ms of the 120.8 MB
// This program's own medians of 3 at the lightest load of the day: plain 700-732, gzip 232-241,
// from memory 726-755 MB/s. Windows of 256 KiB to 16 MiB measured the same.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "io/detail/matrix_market_parse.hpp"
#include "io/matrix_market.hpp"

namespace {

using distspmv::csr_matrix;
using distspmv::global_index_type;
using distspmv::offset_type;

/// Random rows of 0..6 sorted unique columns, values uniform in [-1, 1): the text is about
/// 37 bytes per entry (two 7-digit indices, a 17-to-20-character shortest double).
csr_matrix<double> random_matrix(global_index_type n, offset_type target_nnz, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const double mean = static_cast<double>(target_nnz) / static_cast<double>(n);
  std::poisson_distribution<int> length(mean);
  csr_matrix<double> a;
  a.rows = a.cols = n;
  a.row_ptr.reserve(static_cast<std::size_t>(n) + 1);
  a.col_idx.reserve(static_cast<std::size_t>(target_nnz * 11 / 10));
  a.values.reserve(static_cast<std::size_t>(target_nnz * 11 / 10));
  std::vector<global_index_type> cols;
  for (global_index_type r = 0; r < n; ++r) {
    cols.clear();
    const int len = length(rng);
    for (int k = 0; k < len; ++k) cols.push_back(static_cast<global_index_type>(rng() % static_cast<std::uint64_t>(n)));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (global_index_type c : cols) {
      a.col_idx.push_back(c);
      a.values.push_back(value(rng));
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

/// CPU time of this thread (user + system): on the shared 2-core machine, wall time depends
/// on what the other users run; CPU time is closer to "per core" throughput.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct timing {
  double seconds;      ///< median wall time
  double cpu_seconds;  ///< median thread CPU time
  offset_type nnz;
};

timing time_read(const std::string& path, int repeats) {
  std::vector<double> wall, cpu;
  offset_type nnz = 0;
  for (int i = 0; i < repeats; ++i) {
    const double c0 = thread_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const csr_matrix<double> a = distspmv::io::read_matrix_market(path);
    const auto t1 = std::chrono::steady_clock::now();
    cpu.push_back(thread_cpu_seconds() - c0);
    wall.push_back(std::chrono::duration<double>(t1 - t0).count());
    nnz = a.nnz();
  }
  return {median(wall), median(cpu), nnz};
}

/// Median time of parsing text already in memory (no file read; the text still goes through
/// the parse windows, as a file's does): the parser's own speed.
double time_parse_only(const std::string& path, int repeats) {
  std::vector<double> times;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  const auto size = static_cast<std::size_t>(std::filesystem::file_size(path));
  std::vector<char> bytes(size);
  const std::size_t got = std::fread(bytes.data(), 1, size, f);
  std::fclose(f);
  if (got != size) throw std::runtime_error("short read of " + path);
  for (int i = 0; i < repeats; ++i) {
    distspmv::io::detail::byte_buffer buf;
    buf.reserve(size + 1);
    buf.resize(size);
    std::memcpy(buf.data(), bytes.data(), size);
    const auto t0 = std::chrono::steady_clock::now();
    const csr_matrix<double> a = distspmv::io::detail::parse_matrix_market(std::move(buf), path, {});
    const auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Bytes of text in a file: its size, or for gzip its decompressed size.
double text_size(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  const auto size = static_cast<std::size_t>(std::filesystem::file_size(path));
  std::vector<char> bytes(size);
  const std::size_t got = std::fread(bytes.data(), 1, size, f);
  std::fclose(f);
  if (!distspmv::io::detail::is_gzip(bytes.data(), got)) return static_cast<double>(got);
  return static_cast<double>(distspmv::io::detail::gunzip(bytes.data(), got, path).size());
}

void report(const char* label, const std::string& path, double text_size, const timing& t) {
  const double file_size = static_cast<double>(std::filesystem::file_size(path));
  std::printf("%-6s %s: %.1f MB on disk, %.1f MB text, %lld nnz\n", label, path.c_str(), file_size / 1e6,
              text_size / 1e6, static_cast<long long>(t.nnz));
  std::printf("       median of 3: wall %.3f s = %.0f MB/s, %.1f M nnz/s; CPU %.3f s = %.0f MB/s per core\n",
              t.seconds, text_size / 1e6 / t.seconds, static_cast<double>(t.nnz) / 1e6 / t.seconds, t.cpu_seconds,
              text_size / 1e6 / t.cpu_seconds);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 1) {
      const std::string path = argv[1];
      const timing t = time_read(path, 3);
      report("file", path, text_size(path), t);
      return 0;
    }
    const std::string plain = "/tmp/distspmv_bench_matrix_market.mtx";
    const std::string gz = plain + ".gz";
    std::printf("generating about 120 MB of Matrix Market text ...\n");
    const csr_matrix<double> a = random_matrix(1'000'000, 3'600'000, 42);
    distspmv::io::write_matrix_market(plain, a);
    distspmv::io::write_matrix_market(gz, a);
    const double text = text_size(plain);

    const timing tp = time_read(plain, 3);
    report("plain", plain, text, tp);
    const timing tg = time_read(gz, 3);
    report("gzip", gz, text, tg);
    const double parse_only = time_parse_only(plain, 3);
    std::printf("parse from memory (text already loaded, no file read): median of 3 %.3f s = %.0f MB/s\n",
                parse_only, text / 1e6 / parse_only);
    std::remove(plain.c_str());
    std::remove(gz.c_str());
    return tp.nnz == a.nnz() && tg.nnz == a.nnz() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_matrix_market: %s\n", e.what());
    return 1;
  }
}
