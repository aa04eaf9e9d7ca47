// Soak test of the apply (issue 20): DISTSPMV_SOAK_APPLIES (default 10^6) applies
// y <- alpha A x + beta y with alpha, beta, x and the stream changing every time, update_values
// every DISTSPMV_SOAK_UPDATE_EVERY (default 10^4) applies, then y against the same recurrence
// computed on the host in double; and no growth of GPU or host memory from the first update to
// the end. Label soak (minutes; not in CI): DISTSPMV_TEST_BACKEND=cuda on the GPU machine
// (jobs/bench_setup.sh soak), the host backend elsewhere.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "dist/distributed_matrix.hpp"
#include "dist/diagnostics.hpp"
#include "dist/gpu.hpp"
#include "dist/setup/mpi_util.hpp"
#include "io/matrix_source.hpp"
#include "io/row_split.hpp"
#include "local_kernels/device_storage.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv {
namespace {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : fallback;
}

backend test_backend() {
  const char* b = std::getenv("DISTSPMV_TEST_BACKEND");
  return b && std::string(b) == "cuda" ? backend::cuda : backend::host;
}

/// Resident host memory now (not the peak): /proc/self/statm's second field, in pages.
std::size_t host_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

/// The apply's inputs at step i: alpha, beta (|beta| < 1 keeps y bounded), which of two x.
double alpha_at(long i) { return 0.5 + 0.25 * static_cast<double>(i % 3); }
double beta_at(long i) { return 0.2 * static_cast<double>(i % 4) - 0.3; }
int x_at(long i) { return static_cast<int>((i / 7) % 2); }  // x1 = -2 x0 for 7 applies in a row

/// Vectors of the partitioned layout, on the GPU for the CUDA backend, else on the host.
struct vector_store {
  bool device = false;
  std::vector<double> host;
  dist::gpu::device_ptr gpu;
  double* data = nullptr;
  std::size_t n = 0;
  vector_store(std::size_t entries, bool on_device) : device(on_device), n(entries) {
    if (device) {
      gpu = dist::gpu::allocate_device(std::max<std::size_t>(1, n) * sizeof(double));
      data = static_cast<double*>(gpu.get());
    } else {
      host.resize(std::max<std::size_t>(1, n));
      data = host.data();
    }
  }
  void upload(const std::vector<double>& v) {
    if (device)
      copy_to_device(data, v.data(), n * sizeof(double));
    else
      std::copy(v.begin(), v.end(), host.begin());
  }
  std::vector<double> download() const {
    std::vector<double> v(n);
    if (device)
      copy_to_host(v.data(), data, n * sizeof(double));
    else
      std::copy(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(n), v.begin());
    return v;
  }
};

TEST(Soak, MillionAppliesMatchTheHostRecurrence) {
  const long applies = env_long("DISTSPMV_SOAK_APPLIES", 1000000);
  const long update_every = std::max(1L, env_long("DISTSPMV_SOAK_UPDATE_EVERY", 10000));
  const std::string spec = std::getenv("DISTSPMV_SOAK_MATRIX") ? std::getenv("DISTSPMV_SOAK_MATRIX") : "gen:poisson3d:16";
  const backend where = test_backend();
  const bool cuda = where == backend::cuda;
  if (cuda) dist::select_local_device(MPI_COMM_WORLD);
  const int rank = dist::comm_rank(MPI_COMM_WORLD), ranks = dist::comm_size(MPI_COMM_WORLD);

  // The whole matrix on every rank (small), each rank giving its slice in the caller's layout.
  const csr_matrix<double> a = io::read_matrix(spec);
  const auto ranges = io::split_rows_evenly(a.rows, ranks);
  const auto mine = slice_rows(a, ranges[static_cast<std::size_t>(rank)]);
  matrix_options o;
  o.where = where;
  if (const char* t = std::getenv("DISTSPMV_TEST_TRANSPORT")) o.transport = parse_transport(t);
  auto m = distributed_matrix<double>::from_csr(MPI_COMM_WORLD, a.rows, ranges[rank].begin, mine.rows,
                                                mine.row_ptr.data(), mine.col_idx.data(), mine.values.data(),
                                                memory_space::host, o);

  // x0 and x1 = -2 x0 in the caller's layout, then partitioned.
  const auto n_caller = static_cast<std::size_t>(m.caller_rows());
  const auto n = static_cast<std::size_t>(m.local_rows());
  std::vector<double> x0_caller(n_caller), x0(n), x1(n), y(n);
  for (std::size_t i = 0; i < n_caller; ++i) {
    const auto r = static_cast<double>(m.caller_first_row() + static_cast<global_index_type>(i));
    x0_caller[i] = std::sin(0.37 * r + 1.0);
  }
  m.to_partitioned(x0_caller.data(), x0.data());
  for (std::size_t i = 0; i < n; ++i) x1[i] = -2 * x0[i];
  vector_store dx0(n, cuda), dx1(n, cuda), dy(n, cuda);
  dx0.upload(x0);
  dx1.upload(x1);
  dy.upload(std::vector<double>(n, 0.0));

  // The host recurrence: y <- alpha s A0 x + beta y, with A = s A0 after each update (s grows by
  // 1e-3 each time) and A0 x0 computed once in the caller's layout.
  std::vector<double> c_caller(n_caller, 0.0), ref(n_caller, 0.0);
  for (std::size_t i = 0; i < n_caller; ++i) {
    const auto r = m.caller_first_row() + static_cast<global_index_type>(i);
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      c_caller[i] += a.values[k] * std::sin(0.37 * static_cast<double>(a.col_idx[k]) + 1.0);
  }

  // Three streams on the GPU, each apply on the next one after the previous apply's event.
  std::vector<dist::gpu::stream_ptr> streams;
  std::vector<dist::gpu::event_ptr> done;
  if (cuda)
    for (int s = 0; s < 3; ++s) {
      streams.push_back(dist::gpu::make_stream());
      done.push_back(dist::gpu::make_event());
    }

  double scale = 1;
  std::size_t gpu_used_start = 0, host_start = 0;
  std::vector<double> values(mine.values.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < applies; ++i) {
    if (i > 0 && i % update_every == 0) {
      if (cuda) dist::gpu::synchronize(streams[static_cast<std::size_t>((i - 1) % 3)].get());
      scale += 1e-3;
      for (std::size_t k = 0; k < values.size(); ++k) values[k] = scale * mine.values[k];
      m.update_values(values.data(), memory_space::host);
      if (i == update_every) {  // the baseline: everything made once is made by now
        gpu_used_start = cuda ? device_memory().total - device_memory().free : 0;
        host_start = host_rss_bytes();
      }
    }
    const double alpha = alpha_at(i), beta = beta_at(i);
    const double* x = x_at(i) == 0 ? dx0.data : dx1.data;
    cuda_stream_t stream = nullptr;
    if (cuda) {
      const auto s = static_cast<std::size_t>(i % 3);
      stream = streams[s].get();
      if (i > 0) dist::gpu::wait(stream, done[static_cast<std::size_t>((i - 1) % 3)].get());
      m.apply(alpha, x, beta, dy.data, stream);
      dist::gpu::record(done[s].get(), stream);
    } else {
      m.apply(alpha, x, beta, dy.data);
    }
    const double xs = x_at(i) == 0 ? 1.0 : -2.0;
    for (std::size_t r = 0; r < n_caller; ++r) ref[r] = alpha * scale * xs * c_caller[r] + beta * ref[r];
  }
  if (cuda && applies > 0) dist::gpu::synchronize(streams[static_cast<std::size_t>((applies - 1) % 3)].get());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<double> y_caller(n_caller);
  m.from_partitioned(dy.download().data(), y_caller.data());
  double diff = 0, norm = 0;
  for (std::size_t r = 0; r < n_caller; ++r) {
    diff = std::max(diff, std::abs(y_caller[r] - ref[r]));
    norm = std::max(norm, std::abs(ref[r]));
  }
  diff = dist::allreduce_max(diff, MPI_COMM_WORLD);
  norm = dist::allreduce_max(norm, MPI_COMM_WORLD);
  const double error = diff / std::max(norm, 1e-300);
  const std::size_t gpu_used_end = cuda ? device_memory().total - device_memory().free : 0;
  const std::size_t host_end = host_rss_bytes();
  const double gpu_growth = static_cast<double>(gpu_used_end) - static_cast<double>(gpu_used_start);
  const double host_growth = static_cast<double>(host_end) - static_cast<double>(host_start);
  std::printf("soak rank %d: %s, %ld applies (%ld updates) in %.1f s = %.1f us each, %s backend, transport %s; "
              "max relative error %.2e; GPU used %+.1f MiB, host RSS %+.1f MiB since the first update\n",
              rank, spec.c_str(), applies, applies / update_every, seconds, 1e6 * seconds / std::max(1L, applies),
              cuda ? "cuda" : "host", to_string(m.transport()), error, gpu_growth / (1 << 20),
              host_growth / (1 << 20));
  EXPECT_LE(error, 1e-12);
  if (applies > update_every) {
    EXPECT_LE(gpu_growth, 4.0 * (1 << 20)) << "GPU memory grew";    // a driver page or two of slack
    EXPECT_LE(host_growth, 16.0 * (1 << 20)) << "host memory grew";  // allocator slack, MPI buffers
  }
}

}  // namespace
}  // namespace distspmv
