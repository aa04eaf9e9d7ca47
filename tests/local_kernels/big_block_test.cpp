// Every CUDA format on one block of more than 2^31 nonzeros (DESIGN.md §6: offsets and nonzero
// counts are 64-bit because one GPU holds more). Each kernel, builder and cuSPARSE descriptor
// must then index nonzeros with 64 bits; a format that cannot must refuse with bad_input.
//
// The block is big_matrix.hpp's 27-diagonal band, generated in GPU memory (never on the host):
// DISTSPMV_BIG_ROWS rows, default 80 M = 2.157e9 nonzeros, 26.5 GB of CSR in double. For each
// format the CSR is generated afresh, a one-thread-per-row reference y_ref = A x is computed on
// it, and then make_operator(name, device_csr&&) consumes it (a GPU builder, or download, host
// build and upload). One apply with beta = 0 over a y full of NaN must match y_ref within 1e-12
// of each row's sum of |a x|. bad_input from the build (a 32-bit limit, too much padding, out of
// GPU memory) is a refusal and passes; any other exception or a wrong row fails.
//
// Label gpu_big (minutes, ~30 GB of GPU memory; host-built formats also hold ~55 GB of host
// memory): jobs/bench_setup.sh big runs it. Skips without a GPU or with too little free memory.
// Every line of the table starts with "big " (the stage greps them). One test per format,
// named gpu_build_<format> or host_build_<format>, so --gtest_filter='*/gpu_build_*' takes the
// fast half. BigBlockHubs.SellWSpillsItsTopSlices runs sell-w on the same band with a row of 227
// entries every 2048 rows (big_matrix::hub_rows), so that its top-slice spill runs beyond 2^31.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/device_timing.hpp"
#include "local_kernels/format_registry.hpp"
#include "local_kernels/local_operator.hpp"
#include "local_kernels/testing/big_matrix.hpp"

namespace distspmv {
namespace {

constexpr double tolerance = 1e-12;
constexpr std::uint64_t x_seed = 0x5eed;
/// 80 M rows x 27 diagonals, less the corners cut at the edges: 2,156,653,714 nonzeros, 0.4%
/// above 2^31.
constexpr global_index_type default_rows = 80'000'000;
/// Free GPU memory asked for beyond the CSR and the four vectors: the builders' scratch and
/// cuSPARSE's workspace. A format needing more refuses with bad_input (out of memory).
constexpr std::size_t margin_bytes = std::size_t{2} << 30;
constexpr double gb = 1e9;

/// DISTSPMV_BIG_ROWS, else default_rows; -1 when the variable is not a number in [1, 2^31).
global_index_type big_rows() {
  const char* env = std::getenv("DISTSPMV_BIG_ROWS");
  if (env == nullptr || *env == '\0') return default_rows;
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  if (*end != '\0' || v < 1 || v > std::numeric_limits<index_type>::max()) return -1;
  return v;
}

/// The block's x, y, y_ref and the reference's row sums of |a x|.
std::size_t vector_bytes(global_index_type rows) { return 4 * static_cast<std::size_t>(rows) * sizeof(double); }

/// Bytes of free GPU memory the test asks for before it starts.
std::size_t needed_bytes(global_index_type rows) {
  return big_matrix::band_csr_bytes(rows) + vector_bytes(rows) + margin_bytes;
}

/// One line of the table.
struct outcome_row {
  std::string format, builder;
  double build_s = NAN, apply_us = NAN, gbps = NAN, stored_gb = NAN, peak_gb = NAN;
  std::string outcome;
  int kind = 0;  ///< 0 ran, 1 refused, 2 failed
};

std::vector<outcome_row>& table() {
  static std::vector<outcome_row> rows;
  return rows;
}

void print_row(const outcome_row& r) {
  auto num = [](double v, const char* fmt) {
    if (std::isnan(v)) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
  };
  std::printf("big  %-14s %-4s %8s %10s %7s %8s %8s  %s\n", r.format.c_str(), r.builder.c_str(),
              num(r.build_s, "%.1f").c_str(), num(r.apply_us, "%.0f").c_str(), num(r.gbps, "%.0f").c_str(),
              num(r.stored_gb, "%.2f").c_str(), num(r.peak_gb, "%.2f").c_str(), r.outcome.c_str());
  std::fflush(stdout);
}

void record(outcome_row r) {
  print_row(r);
  table().push_back(std::move(r));
}

class BigBlockBase : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (cuda_device_count() == 0) return;
    const global_index_type rows = big_rows();
    if (rows < 0) return;
    const offset_type nnz = big_matrix::band_nnz(rows);
    const device_memory_info mem = device_memory();
    std::printf("big  block: %lld rows, %lld nonzeros = %.4f x 2^31%s, CSR %.2f GB; %s, %.1f of %.1f GB free\n",
                static_cast<long long>(rows), static_cast<long long>(nnz), static_cast<double>(nnz) / 2147483648.0,
                nnz > (offset_type{1} << 31) ? "" : " (NOT above 2^31: a small run)",
                static_cast<double>(big_matrix::band_csr_bytes(rows)) / gb, device_name().c_str(),
                static_cast<double>(mem.free) / gb, static_cast<double>(mem.total) / gb);
    std::printf("big  bld: gpu = GPU builder, host = download, host build, upload; stored = stats().stored_bytes;\n"
                "big  peak = most GPU memory held through device_storage during the build (input CSR included,\n"
                "big  cuSPARSE's own allocations not); apply = median of 5 (CUDA events), GB/s: CSR byte model\n");
    std::printf("big  %-14s %-4s %8s %10s %7s %8s %8s  %s\n", "format", "bld", "build s", "apply us", "GB/s",
                "stored GB", "peak GB", "outcome");
    std::fflush(stdout);
  }

  static void TearDownTestSuite() {
    if (table().empty()) return;
    int ran = 0, refused = 0, failed = 0;
    for (const auto& r : table()) (r.kind == 0 ? ran : r.kind == 1 ? refused : failed)++;
    std::printf("big  summary: %d ran and matched, %d refused, %d failed\n", ran, refused, failed);
    std::fflush(stdout);
  }

  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
    const global_index_type rows = big_rows();
    ASSERT_GT(rows, 0) << "DISTSPMV_BIG_ROWS=" << std::getenv("DISTSPMV_BIG_ROWS")
                       << " is not a row count in [1, 2^31 - 1]";
    const std::size_t need = needed_bytes(rows), free = device_memory().free;
    if (free < need)
      GTEST_SKIP() << "the GPU has " << static_cast<double>(free) / gb << " GB free, the block needs "
                   << static_cast<double>(need) / gb << " GB (CSR, 4 vectors, " << margin_bytes / gb
                   << " GB margin); set DISTSPMV_BIG_ROWS lower (at 80 M rows the block has > 2^31 nonzeros)";
  }
};

class BigBlock : public BigBlockBase, public ::testing::WithParamInterface<std::string> {};
class BigBlockHubs : public BigBlockBase {};

/// Builds format `name` from a fresh band (with `hubs`' long rows), applies it once over a y of
/// NaN against the reference, times it, and records the table's line; the operator's parameter
/// text in `params`.
void run_format(const std::string& name, const big_matrix::hub_rows& hubs, std::string& params) {
  const format_info& info = find_format(name);
  const global_index_type rows = big_rows();
  outcome_row row;
  row.format = name + (hubs.every > 0 ? "+hubs" : "");
  row.builder = info.gpu_build ? "gpu" : "host";
  try {
    device_storage vectors;
    const std::size_t bytes = static_cast<std::size_t>(rows) * sizeof(double);
    auto vec = [&] { return static_cast<double*>(vectors.allocate_bytes(bytes)); };
    double* x = vec();
    double* y = vec();
    double* y_ref = vec();
    double* abs_sum = vec();
    big_matrix::fill_hash(x, rows, x_seed);
    big_matrix::fill_value(y, rows, std::numeric_limits<double>::quiet_NaN());

    // A fresh CSR for every format (the builder consumes it); the reference reads it first.
    reset_device_peak();
    device_csr<double> a = big_matrix::generate_band_csr(rows, hubs);
    const offset_type nnz = a.nnz;
    big_matrix::reference_spmv(a.view(), x, y_ref, abs_sum);

    std::unique_ptr<local_operator<double>> op;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      op = make_operator<double>(name, std::move(a));
      device_synchronize();
    } catch (const bad_input& e) {
      row.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      row.outcome = std::string("refused: ") + e.what();
      row.kind = 1;
      record(std::move(row));
      return;
    }
    row.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    row.peak_gb = static_cast<double>(device_bytes_peak() - vectors.bytes()) / gb;
    row.stored_gb = static_cast<double>(op->stats().stored_bytes) / gb;
    params = op->stats().params;
    EXPECT_EQ(op->rows(), rows) << name;
    EXPECT_EQ(op->nnz(), nnz) << name;
    // y is all NaN: beta = 0 must overwrite every row.
    op->apply(1.0, x, 0.0, y);
    device_synchronize();
    const big_matrix::row_check check = big_matrix::compare_rows(y, y_ref, abs_sum, rows, tolerance);

    char buf[256];
    if (check.bad_rows == 0) {
      std::snprintf(buf, sizeof buf, "ok, worst row error %.1e of its sum |a x|", check.worst);
    } else {
      const global_index_type r = check.first_bad_row;
      const double got = download_array(y + r, 1)[0];
      const double want = download_array(y_ref + r, 1)[0];
      std::snprintf(buf, sizeof buf, "FAILED: %lld rows wrong (worst %.1e), first row %lld: y %.17g, reference %.17g",
                    static_cast<long long>(check.bad_rows), check.worst, static_cast<long long>(r), got, want);
      row.kind = 2;
      ADD_FAILURE() << name << ": " << buf;
    }
    row.outcome = buf;

    const std::vector<double> us =
        time_on_device([&](cuda_stream_t s) { op->apply(1.0, x, 0.0, y, s); }, 1, 5);
    row.apply_us = median(us);
    row.gbps = csr_model_bytes<double>(rows, rows, nnz, false) / (row.apply_us * 1e3);
    op.reset();  // free the operator before the next format
  } catch (const std::exception& e) {
    row.outcome = std::string("FAILED: ") + e.what();
    row.kind = 2;
    ADD_FAILURE() << name << ": " << e.what();
  }
  record(std::move(row));
}

TEST_P(BigBlock, RunsOnMoreThan2Pow31NonzerosOrRefuses) {
  std::string params;
  run_format(GetParam(), {}, params);
}

// sell-w caps each 2048-row block's top slice and stores its longest rows' excess apart (the
// spill): one row of 227 entries in every block of 27-entry rows spills about 200 entries a block.
TEST_F(BigBlockHubs, SellWSpillsItsTopSlices) {
  std::string params;
  run_format("sell-w", {2048, 200}, params);
  EXPECT_NE(params.find(" spill="), std::string::npos) << params;
}

/// Every registered format with a CUDA kernel, none left out.
std::vector<std::string> cuda_formats() {
  std::vector<std::string> names;
  for (const auto& f : registered_formats())
    if (f.cuda) names.push_back(f.name);
  return names;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = (find_format(info.param).gpu_build ? "gpu_build_" : "host_build_") + info.param;
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Cuda, BigBlock, ::testing::ValuesIn(cuda_formats()), param_name);

}  // namespace
}  // namespace distspmv
