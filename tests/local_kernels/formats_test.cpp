// Every registered format against the host CSR oracle, on the host and (label cuda) on the GPU,
// for float and double, over the edge-case matrices and the real matrices of ../shared/matrices.
//
// The check is per row, against a bound rather than a fixed tolerance (STYLE.md §6):
//   |y_r - y_ref_r| <= c * eps * (len_r + 2) * (|alpha| * sum_k |a_rk x_k| + |beta y_r|)
// which no correct summation order can exceed, and a wrong index or a lost entry does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "io/matrix_market.hpp"
#include "local_kernels/csr/csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/format_registry.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv {
namespace {

struct case_result : test::bound_check {
  std::string refused;        // non-empty when the format declined to build this matrix
  bool float_values = false;  // mixed precision: the operator stored its values in float
};

/// How an operator is made: on the host, on the host and uploaded, or on the GPU from a device
/// CSR (the GPU builders of DESIGN.md §11; formats without one fall back to the host builder).
enum class build_path { host, cuda, cuda_gpu_build };

const char* to_string(build_path p) {
  return p == build_path::host ? "host" : p == build_path::cuda ? "cuda" : "cuda_gpu_build";
}

/// Runs `format` on `a` (converted to V) with random alpha, beta, x, y and compares with the
/// double oracle. beta == 0 runs with y poisoned by NaN. `mixed` asks for float values
/// (build_options); where the operator stores them, the oracle's values are rounded to float too.
template <typename V>
case_result run_case(const std::string& format, const csr_matrix<double, index_type>& a, build_path path,
                     bool beta_zero, std::uint64_t seed, bool mixed = false) {
  const backend where = path == build_path::host ? backend::host : backend::cuda;
  const auto av = convert_csr<V, index_type>(a);
  std::mt19937_64 rng(seed);
  test::uniform_real u(-2.0, 2.0);
  const V alpha = static_cast<V>(u(rng));
  const V beta = beta_zero ? V(0) : static_cast<V>(u(rng));
  auto x = test::random_vector<V>(a.cols, seed + 1);
  auto y0 = test::random_vector<V>(a.rows, seed + 2);
  if (beta_zero) std::fill(y0.begin(), y0.end(), std::numeric_limits<V>::quiet_NaN());

  std::unique_ptr<local_operator<V>> op;
  try {
    const build_options options{mixed};
    op = path == build_path::cuda_gpu_build ? make_operator<V>(format, upload_csr(av), options)
                                            : make_operator<V>(format, av, where, options);
  } catch (const bad_input& e) {
    // A format may refuse a matrix it cannot store sensibly (HDIA with many diagonals, ELL-G with
    // huge padding); refusing is correct behaviour, computing a wrong y is not.
    case_result refused;
    refused.refused = e.what();
    return refused;
  }
  std::vector<V> y = y0;
  if (where == backend::host) {
    op->apply(alpha, x.data(), beta, y.data());
  } else {
    device_storage mem;
    const V* dx = mem.upload(x);
    V* dy = const_cast<V*>(mem.upload(y));
    op->apply(alpha, dx, beta, dy, nullptr);
    device_synchronize();
    copy_to_host(y.data(), dy, y.size() * sizeof(V));
  }

  // Oracle in double on the V-rounded inputs (values in float where the operator stores them so).
  const bool float_values = mixed && op->stats().params.find("float-values") != std::string::npos;
  auto ad = convert_csr<double, index_type>(av);
  if (float_values)
    for (auto& v : ad.values) v = static_cast<double>(static_cast<float>(v));
  std::vector<double> xd(x.begin(), x.end()), yd(y0.begin(), y0.end());
  if (beta_zero) std::fill(yd.begin(), yd.end(), 0.0);
  std::vector<double> ref = yd;
  csr::spmv_host(ad, static_cast<double>(alpha), xd.data(), static_cast<double>(beta), ref.data());

  case_result res;
  res.float_values = float_values;
  static_cast<test::bound_check&>(res) = test::check_rows_against_bound(
      ad, static_cast<double>(alpha), xd, static_cast<double>(beta), yd, std::vector<double>(y.begin(), y.end()), ref,
      std::numeric_limits<V>::epsilon());
  return res;
}

std::vector<std::string> formats_for(backend where) {
  std::vector<std::string> names;
  for (const auto& f : registered_formats())
    if (where == backend::host ? f.host : f.cuda) names.push_back(f.name);
  return names;
}

class FormatTest : public ::testing::TestWithParam<std::tuple<std::string, build_path>> {
 protected:
  int refusals_ = 0;
  int ran_ = 0;
  void TearDown() override {
    if (refusals_ > 0) std::printf("  %s declined %d case(s)\n", std::get<0>(GetParam()).c_str(), refusals_);
  }
  void SetUp() override {
    if (std::get<1>(GetParam()) != build_path::host && cuda_device_count() == 0)
      GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  }
  void check(const test::named_matrix& m, std::uint64_t seed) {
    const auto& [format, where] = GetParam();
    for (bool beta_zero : {true, false}) {
      const auto d = run_case<double>(format, m.a, where, beta_zero, seed);
      if (!d.refused.empty()) {
        ++refusals_;
        continue;
      }
      ++ran_;
      EXPECT_FALSE(d.nan) << format << " double on " << m.name << ": NaN in row " << d.worst_row;
      EXPECT_LE(d.max_violation, 1.0) << format << " double on " << m.name << ", worst row " << d.worst_row
                                      << (beta_zero ? " (beta = 0)" : "");
      const auto f = run_case<float>(format, m.a, where, beta_zero, seed + 7);
      EXPECT_FALSE(f.nan) << format << " float on " << m.name << ": NaN in row " << f.worst_row;
      EXPECT_LE(f.max_violation, 1.0) << format << " float on " << m.name << ", worst row " << f.worst_row
                                      << (beta_zero ? " (beta = 0)" : "");
      // Mixed precision: double x, y and sums, the values in float where the format can (the
      // CSR kernels, HDIA; a CSR pattern stores no values), checked at double's bound on those
      // values.
      const auto mx = run_case<double>(format, m.a, where, beta_zero, seed + 13, /*mixed=*/true);
      EXPECT_FALSE(mx.nan) << format << " mixed on " << m.name << ": NaN in row " << mx.worst_row;
      EXPECT_LE(mx.max_violation, 1.0) << format << " mixed on " << m.name << ", worst row " << mx.worst_row
                                       << (beta_zero ? " (beta = 0)" : "");
      if (mx.refused.empty() && stores_float_values(format) && m.a.nnz() > 0 && !all_ones(m.a)) {
        EXPECT_TRUE(mx.float_values) << format << " mixed on " << m.name << " kept double values";
      }
    }
  }
  /// The formats that store float values in mixed precision: the CSR kernels and HDIA.
  static bool stores_float_values(const std::string& format) {
    return format == "csr" || format.rfind("csr-", 0) == 0 || format == "hdia";
  }
  static bool all_ones(const csr_matrix<double, index_type>& a) {
    return std::all_of(a.values.begin(), a.values.end(), [](double v) { return v == 1.0; });
  }
};

TEST_P(FormatTest, MatchesReferenceOnEdgeCases) {
  std::uint64_t seed = 100;
  for (const auto& m : test::edge_case_matrices()) check(m, ++seed);
  EXPECT_GE(ran_, 8) << "the format declined almost every edge case";
}

TEST_P(FormatTest, MatchesReferenceOnRealMatrices) {
  const auto files = test::shared_matrix_files();
  if (files.empty()) GTEST_SKIP() << "../shared/matrices not found";
  std::uint64_t seed = 500;
  for (const auto& file : files) {
    const auto a = io::read_matrix_market(file);
    check({file, convert_csr<double, index_type>(a)}, ++seed);
  }
}

std::string param_name(const ::testing::TestParamInfo<FormatTest::ParamType>& info) {
  std::string n = std::get<0>(info.param) + "_" + to_string(std::get<1>(info.param));
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Host, FormatTest,
                         ::testing::Combine(::testing::ValuesIn(formats_for(backend::host)),
                                            ::testing::Values(build_path::host)),
                         param_name);
INSTANTIATE_TEST_SUITE_P(Cuda, FormatTest,
                         ::testing::Combine(::testing::ValuesIn(formats_for(backend::cuda)),
                                            ::testing::Values(build_path::cuda)),
                         param_name);
// Every CUDA format again, made by make_operator(name, device_csr&&): the GPU builders where the
// format has one (format_info::gpu_build), else the host builder on a downloaded copy.
INSTANTIATE_TEST_SUITE_P(CudaGpuBuild, FormatTest,
                         ::testing::Combine(::testing::ValuesIn(formats_for(backend::cuda)),
                                            ::testing::Values(build_path::cuda_gpu_build)),
                         param_name);

}  // namespace
}  // namespace distspmv
