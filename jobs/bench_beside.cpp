// How long a small kernel launched beside a local product waits for an SM (issue 36): the
// apply's packing of the halo (a gather on a high-priority stream) queues behind the local
// product's blocks where they hold every SM slot for the whole product, and the exchange then
// starts only when the product ends. One GPU, one process:
//
//   bench_beside MATRIX FORMAT [FORMAT...] [--gather N] [--repeats R]
//
// MATRIX: a file (HDF5, Matrix Market, PETSc binary) or a generator (gen:..., seed 9 as in the
// issue's runs), built whole as one local block in double.
// Per format: the product alone; the gather of N entries alone (default 250000, a rank's halo of
// the lognormal at 4 ranks); and the gather enqueued just after the product, on a
// high-priority stream: how long from its stream reaching it to its end ("beside"), and when the
// product ended. Medians of R repeats (default 50) after 5 warm-ups, CUDA events.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "dist/gpu.hpp"
#include "io/matrix_source.hpp"
#include "local_kernels/format_registry.hpp"

using namespace distspmv;
namespace gpu = distspmv::dist::gpu;

namespace {

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// The benchmark; errors as exceptions (main says what and exits 1).
int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc), formats;
  offset_type gather_n = 250000;
  int repeats = 50;
  std::string source;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--gather" && i + 1 < args.size())
      gather_n = std::max<offset_type>(1, std::atol(args[++i].c_str()));
    else if (args[i] == "--repeats" && i + 1 < args.size())
      repeats = std::max(1, std::atoi(args[++i].c_str()));
    else if (source.empty())
      source = args[i];
    else
      formats.push_back(args[i]);
  }
  if (source.empty() || formats.empty()) {
    std::fprintf(stderr, "usage: bench_beside MATRIX FORMAT [FORMAT...] [--gather N] [--repeats R]\n");
    return 2;
  }
  io::source_options read;
  read.seed = 9;
  const auto a = convert_csr<double, index_type>(io::read_matrix(source, read));
  std::printf("%s: %lld rows, %lld nonzeros; gather of %lld entries beside each product\n", source.c_str(),
              static_cast<long long>(a.rows), static_cast<long long>(a.nnz()), static_cast<long long>(gather_n));

  std::vector<double> hx(static_cast<std::size_t>(a.cols), 1.0);
  std::vector<index_type> hidx(static_cast<std::size_t>(gather_n));
  std::mt19937 rng(7);
  std::uniform_int_distribution<index_type> col(0, static_cast<index_type>(std::max<global_index_type>(1, a.cols) - 1));
  for (auto& i : hidx) i = col(rng);
  auto x = gpu::allocate_device(hx.size() * sizeof(double));
  auto y = gpu::allocate_device(static_cast<std::size_t>(a.rows) * sizeof(double));
  auto idx = gpu::allocate_device(hidx.size() * sizeof(index_type));
  auto out = gpu::allocate_device(hidx.size() * sizeof(double));
  auto main_stream = gpu::make_stream(), comm = gpu::make_stream(/*high_priority=*/true);
  gpu::copy_async(x.get(), hx.data(), hx.size() * sizeof(double), main_stream.get());
  gpu::copy_async(idx.get(), hidx.data(), hidx.size() * sizeof(index_type), main_stream.get());
  gpu::synchronize(main_stream.get());
  const auto* xv = static_cast<const double*>(x.get());
  auto* yv = static_cast<double*>(y.get());
  const auto* iv = static_cast<const index_type*>(idx.get());
  auto* ov = static_cast<double*>(out.get());
  auto e0 = gpu::make_event(true), e1 = gpu::make_event(true), g0 = gpu::make_event(true),
       g1 = gpu::make_event(true);
  auto pack = [&] { gpu::gather(xv, iv, gather_n, ov, comm.get()); };

  for (const auto& f : formats) {
    const auto op = make_operator<double>(f, a, backend::cuda);
    std::vector<double> alone, gather_alone, beside, product_end;
    for (int r = -5; r < repeats; ++r) {
      gpu::record(e0.get(), main_stream.get());
      op->apply(1.0, xv, 0.0, yv, main_stream.get());
      gpu::record(e1.get(), main_stream.get());
      gpu::synchronize(main_stream.get());
      gpu::record(g0.get(), comm.get());
      pack();
      gpu::record(g1.get(), comm.get());
      gpu::synchronize(comm.get());
      const double one = 1000.0 * gpu::elapsed_ms(e0.get(), e1.get()), g = 1000.0 * gpu::elapsed_ms(g0.get(), g1.get());
      // The product, then at once the gather on the high-priority stream (as the apply enqueues
      // them where the exchange is not captured in a graph).
      gpu::record(e0.get(), main_stream.get());
      op->apply(1.0, xv, 0.0, yv, main_stream.get());
      gpu::record(e1.get(), main_stream.get());
      gpu::record(g0.get(), comm.get());
      pack();
      gpu::record(g1.get(), comm.get());
      gpu::synchronize(main_stream.get());
      gpu::synchronize(comm.get());
      if (r < 0) continue;
      alone.push_back(one);
      gather_alone.push_back(g);
      beside.push_back(1000.0 * gpu::elapsed_ms(g0.get(), g1.get()));
      product_end.push_back(1000.0 * gpu::elapsed_ms(g0.get(), e1.get()));
    }
    std::printf("%-10s product alone %8.1f us | gather alone %6.1f us | gather beside the product %8.1f us "
                "(the product ends %8.1f us after the gather's stream reached it) [%s]\n",
                op->name().c_str(), median(alone), median(gather_alone), median(beside), median(product_end),
                op->stats().params.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_beside: %s\n", e.what());
    return 1;
  }
}
