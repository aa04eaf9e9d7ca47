// The GPU builders that take over a device CSR block (DESIGN.md §11): csr::build_cuda must give
// every array, flag and statistic of csr::build on the host, bitwise, for all five CSR kernels;
// cuSPARSE's operator from a device CSR must compute the y of the one from a host CSR. Skips
// without a GPU (label cuda).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "local_kernels/csr/csr.hpp"
#include "local_kernels/cusparse/cusparse.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/float_values.hpp"
#include "tests/support/gpu_test.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv {
namespace {

using CsrBuildCuda = test::cuda_test;
using CusparseFromDevice = CsrBuildCuda;

template <typename V>
void check_build(const test::named_matrix& nm, csr::kernel k, bool float_values = false) {
  static const char* names[] = {"scalar", "vector", "adaptive", "merge", "split"};
  SCOPED_TRACE(nm.name + " kernel=" + names[static_cast<int>(k)] + (sizeof(V) == 4 ? " float" : " double") +
               (float_values ? " float values" : ""));
  const auto a = convert_csr<V, index_type>(nm.a);
  const csr::csr_params params{k, 0, float_values};
  const csr::csr_format_matrix<V> host = csr::build(a, params);
  const csr::csr_view<V> h = csr::traits::view_of(host, [](const auto& vec) { return vec.data(); });

  device_built<csr::csr_view<V>> built = csr::build_cuda(upload_csr(a), params);
  const csr::csr_view<V>& d = built.view;
  EXPECT_EQ(d.rows, h.rows);
  EXPECT_EQ(d.cols, h.cols);
  EXPECT_EQ(d.n_row_blocks, h.n_row_blocks);
  EXPECT_EQ(d.stream_matrix, h.stream_matrix);
  EXPECT_EQ(d.n_tiles, h.n_tiles);
  EXPECT_EQ(d.algorithm, h.algorithm);
  EXPECT_EQ(d.threads_per_row, h.threads_per_row);
  EXPECT_EQ(d.pattern, h.pattern);
  test::expect_bitwise(host.row_ptr, d.row_ptr, "row_ptr");
  test::expect_bitwise(host.col_idx, d.col_idx, "col_idx");
  test::expect_bitwise(host.values, d.values, "values");
  test::expect_bitwise(host.values_f32, d.values_f32, "values_f32");
  test::expect_bitwise(host.row_blocks, d.row_blocks, "row_blocks");
  test::expect_bitwise(host.row_block_nnz, d.row_block_nnz, "row_block_nnz");
  test::expect_bitwise(host.tile_rows, d.tile_rows, "tile_rows");
  test::expect_bitwise(host.tile_nnz, d.tile_nnz, "tile_nnz");
  test::expect_bitwise(host.tile_carry, static_cast<const V*>(d.tile_carry), "tile_carry");
  EXPECT_EQ(built.stats.stored_bytes, host.stats.stored_bytes);
  EXPECT_EQ(built.stats.padding_ratio, host.stats.padding_ratio);
  EXPECT_EQ(built.stats.n_iter, host.stats.n_iter);
  EXPECT_EQ(built.stats.n_p, host.stats.n_p);
  EXPECT_EQ(built.stats.params, host.stats.params);
}

TEST_F(CsrBuildCuda, EveryKernelsArraysEqualTheHostBuildBitwise) {
  for (const auto& m : test::builder_matrices()) {
    for (const csr::kernel k :
         {csr::kernel::scalar, csr::kernel::vector, csr::kernel::adaptive, csr::kernel::merge, csr::kernel::split}) {
      check_build<float>(m, k);
      check_build<double>(m, k);
    }
  }
}

TEST_F(CsrBuildCuda, FloatValuesEqualTheHostBuildBitwise) {
  for (const auto& m : test::builder_matrices()) {
    for (const csr::kernel k : {csr::kernel::adaptive, csr::kernel::merge, csr::kernel::split}) {
      check_build<double>(m, k, /*float_values=*/true);
      check_build<float>(m, k, /*float_values=*/true);  // no effect in float
    }
  }
}

TEST_F(CsrBuildCuda, FloatValuesBeyondFloatsRangeAreBadInput) {
  auto a = test::random_csr(3000, 3000, 1, 9, 23);
  a.values[a.row_ptr[2500]] = 5e38;  // row 2500's first entry
  try {
    csr::build_cuda(upload_csr(a), csr::csr_params{csr::kernel::split, 0, true});
    ADD_FAILURE() << "no bad_input for 5e38 in float";
  } catch (const bad_input& e) {
    EXPECT_NE(std::string(e.what()).find("of row 2500"), std::string::npos) << e.what();
  }
}

TEST_F(CsrBuildCuda, TakesOverTheDeviceArraysWithoutCopying) {
  auto d = upload_csr(convert_csr<double, index_type>(test::random_csr(300, 200, 0, 9, 21)));
  const offset_type* row_ptr = d.row_ptr;
  const index_type* col_idx = d.col_idx;
  const double* values = d.values;
  const auto built = csr::build_cuda(std::move(d), csr::csr_params{csr::kernel::split, 0});
  EXPECT_EQ(built.view.row_ptr, row_ptr);
  EXPECT_EQ(built.view.col_idx, col_idx);
  EXPECT_EQ(built.view.values, values);
}

TEST_F(CsrBuildCuda, APatternGivesItsValuesMemoryBack) {
  auto a = test::random_csr(3000, 2000, 1, 9, 24);
  std::fill(a.values.begin(), a.values.end(), 1.0);
  auto with_values = a;
  with_values.values[7] = 2.0;
  const auto nnz = static_cast<std::size_t>(a.nnz());
  for (const csr::kernel k : {csr::kernel::adaptive, csr::kernel::split}) {
    const std::size_t held_before = device_bytes_in_use();
    const auto pattern = csr::build_cuda(upload_csr(a), csr::csr_params{k, 0});
    const std::size_t held_pattern = device_bytes_in_use() - held_before;
    const auto other = csr::build_cuda(upload_csr(with_values), csr::csr_params{k, 0});
    EXPECT_TRUE(pattern.view.pattern);
    EXPECT_FALSE(other.view.pattern);
    // The same plan; the pattern holds no values.
    EXPECT_EQ(other.storage.bytes() - pattern.storage.bytes(), nnz * sizeof(double));
    EXPECT_EQ(held_pattern, pattern.storage.bytes());
  }
}

TEST_F(CsrBuildCuda, FloatValuesReplaceTheDoublesWhereTheGpuHasRoom) {
  const auto a = test::random_csr(3000, 2000, 1, 9, 25);
  const auto nnz = static_cast<std::size_t>(a.nnz());
  ASSERT_GT(device_memory().free, nnz * sizeof(float) + narrow_headroom_bytes);
  for (const csr::kernel k : {csr::kernel::adaptive, csr::kernel::split}) {
    const std::size_t held_before = device_bytes_in_use();
    const auto mixed = csr::build_cuda(upload_csr(a), csr::csr_params{k, 0, true});
    const std::size_t held_mixed = device_bytes_in_use() - held_before;
    const auto in_double = csr::build_cuda(upload_csr(a), csr::csr_params{k, 0});
    ASSERT_NE(mixed.view.values_f32, nullptr);
    // 4 bytes per value instead of 8: the doubles were freed.
    EXPECT_EQ(in_double.storage.bytes() - mixed.storage.bytes(), nnz * (sizeof(double) - sizeof(float)));
    EXPECT_EQ(held_mixed, mixed.storage.bytes());
    std::vector<float> want(a.values.begin(), a.values.end());
    test::expect_bitwise(want, mixed.view.values_f32, "values_f32");
  }
}

TEST_F(CsrBuildCuda, RejectsAColumnOutOfRange) {
  auto a = test::random_csr(100, 50, 1, 5, 22);
  a.col_idx[a.row_ptr[38] - 1] = 50;  // row 37's last column (rows have at least one), one past the end
  try {
    csr::build_cuda(upload_csr(a), csr::csr_params{csr::kernel::adaptive, 0});
    ADD_FAILURE() << "no bad_input for column 50 of 50";
  } catch (const bad_input& e) {
    EXPECT_NE(std::string(e.what()).find("of row 37 out of range"), std::string::npos) << e.what();
  }
}

template <typename V>
void check_cusparse(const test::named_matrix& nm, cusparse::algorithm alg, const char* name) {
  SCOPED_TRACE(nm.name + " " + name + (sizeof(V) == 4 ? " float" : " double"));
  const auto a = convert_csr<V, index_type>(nm.a);
  const auto from_host = cusparse::make_operator<V>(name, a, alg, backend::cuda);
  const auto from_device = cusparse::make_operator<V>(name, upload_csr(a), alg);
  EXPECT_EQ(from_device->rows(), a.rows);
  EXPECT_EQ(from_device->cols(), a.cols);
  EXPECT_EQ(from_device->nnz(), a.nnz());

  device_storage s;
  const std::vector<V> x = test::random_vector<V>(static_cast<std::size_t>(a.cols), 31);
  const std::vector<V> y0 = test::random_vector<V>(static_cast<std::size_t>(a.rows), 32);
  const V* dx = s.upload(x);
  V* dy_host = const_cast<V*>(s.upload(y0));
  V* dy_device = const_cast<V*>(s.upload(y0));
  const V alpha = V(1.5), beta = V(-0.5);
  from_host->apply(alpha, dx, beta, dy_host, nullptr);
  from_device->apply(alpha, dx, beta, dy_device, nullptr);
  device_synchronize();
  const auto yh = download_array(dy_host, y0.size());
  if (alg == cusparse::algorithm::csr_alg2) {  // ALG2 promises bitwise equal results run to run
    test::expect_bitwise(yh, dy_device, "y");
    return;
  }
  // The others may sum in another order: each y_r is then within gamma_{len+2} (|alpha| |A||x| +
  // |beta| |y0|)_r of the exact value (len: row r's length), so two results differ by at most twice that.
  const auto yd = download_array(dy_device, y0.size());
  const double eps = std::numeric_limits<V>::epsilon();
  for (global_index_type r = 0; r < a.rows; ++r) {
    double magnitude = std::abs(double(beta) * y0[r]);
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      magnitude += std::abs(double(alpha) * a.values[k] * x[a.col_idx[k]]);
    const double n = static_cast<double>(a.row_length(r) + 2);
    const double bound = 2 * n * eps / (1 - n * eps) * magnitude;
    if (std::abs(double(yd[r]) - double(yh[r])) > bound) {
      ADD_FAILURE() << "y[" << r << "]: from device CSR " << yd[r] << ", from host CSR " << yh[r] << ", bound " << bound;
      return;
    }
  }
}

TEST_F(CusparseFromDevice, GivesTheYOfTheHostCsrOperator) {
  const std::vector<std::pair<cusparse::algorithm, const char*>> algs = {
      {cusparse::algorithm::csr_default, "cusparse"},
      {cusparse::algorithm::csr_alg1, "cusparse-alg1"},
      {cusparse::algorithm::csr_alg2, "cusparse-alg2"},
      {cusparse::algorithm::sell, "cusparse-sell"}};
  for (const auto& m : test::builder_matrices()) {
    for (const auto& [alg, name] : algs) {
      check_cusparse<float>(m, alg, name);
      check_cusparse<double>(m, alg, name);
    }
  }
}

}  // namespace
}  // namespace distspmv
