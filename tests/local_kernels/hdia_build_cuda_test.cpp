// HDIA's GPU builder (label cuda; skipped without a GPU): build_cuda on a device copy of a matrix
// gives build()'s arrays bit for bit, its statistics and its refusals, over the edge-case
// matrices, stencils, odd sizes, hack sizes 32 and 64, float and double; and the CUDA SpMV on the
// GPU-built arrays passes the per-row bound against the CSR oracle (the kernel has a constant-
// stride instantiation for H = 32 and a general one, which the registry's formats_test does not
// reach).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "tests/support/gpu_test.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv {
namespace {

/// 5-point (nz == 1) or 7-point Laplacian on an nx x ny x nz grid, values distinct per entry so
/// that a value in the wrong slot shows.
csr_matrix<double, index_type> stencil(int nx, int ny, int nz) {
  test::row_entries rows(static_cast<std::size_t>(nx) * ny * nz);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const index_type r = (z * ny + y) * nx + x;
        auto& row = rows[r];
        const auto add = [&](index_type c) { row.push_back({c, -1.0 - 1e-3 * r - 1e-7 * c}); };
        if (z > 0) add(r - nx * ny);
        if (y > 0) add(r - nx);
        if (x > 0) add(r - 1);
        row.push_back({r, 6.0 + 1e-3 * r});
        if (x + 1 < nx) add(r + 1);
        if (y + 1 < ny) add(r + nx);
        if (z + 1 < nz) add(r + nx * ny);
      }
  return test::from_rows(static_cast<global_index_type>(rows.size()), rows);
}

/// A random subset of the band |col - row| <= half_width (each hack has some of the diagonals).
csr_matrix<double, index_type> random_band(global_index_type n, int half_width, double fill, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  test::row_entries rows(static_cast<std::size_t>(n));
  for (global_index_type r = 0; r < n; ++r)
    for (global_index_type c = std::max<global_index_type>(0, r - half_width);
         c <= std::min<global_index_type>(n - 1, r + half_width); ++c)
      if (c == r || u(rng) < fill) rows[r].push_back({static_cast<index_type>(c), u(rng) - 0.5});
  return test::from_rows(n, rows);
}

/// The part of a refusal both builders word the same: all of it, except that a GPU count of too
/// many diagonals is "at least limit + 1"; the text before " has " names the hack and its rows.
std::string comparable(const bad_input& e) {
  if (e.where() != "diagonals") return e.problem();
  return e.problem().substr(0, e.problem().find(" has "));
}

/// y = alpha A x + beta y by spmv_cuda on the GPU-built view, checked per row against the double
/// CSR oracle (test::check_rows_against_bound, as formats_test does for the registry's formats).
template <typename V>
void expect_same_product(const hdia::hdia_view<V>& device, const csr_matrix<V, index_type>& a) {
  // Non-finite values (ValuesAreCopiedBitForBit) have no error bound to check against.
  for (const V v : a.values)
    if (!std::isfinite(v)) return;
  const auto x = test::random_vector<V>(a.cols, a.rows * 7 + 3);
  const auto y0 = test::random_vector<V>(a.rows, a.rows * 7 + 4);
  const V alpha = V(1.25), beta = V(-0.5);
  device_storage storage;
  const V* dx = storage.upload(x);
  V* dy = const_cast<V*>(storage.upload(y0));  // this test's own copy
  hdia::spmv_cuda(device, alpha, dx, beta, dy, nullptr);
  const std::vector<V> got = download_array(dy, y0.size());  // synchronous, after the kernel

  auto ad = convert_csr<double, index_type>(a);
  if (device.values_f32)  // mixed precision: the oracle on the values rounded to float
    for (auto& v : ad.values) v = static_cast<double>(static_cast<float>(v));
  const std::vector<double> xd(x.begin(), x.end()), yd(y0.begin(), y0.end());
  std::vector<double> ref = yd;
  csr::spmv_host(ad, double(alpha), xd.data(), double(beta), ref.data());
  const auto check = test::check_rows_against_bound(ad, alpha, xd, beta, yd, std::vector<double>(got.begin(), got.end()),
                                                    ref, std::numeric_limits<V>::epsilon());
  EXPECT_FALSE(check.nan) << "NaN in row " << check.worst_row;
  EXPECT_LE(check.max_violation, 1.0) << "worst row " << check.worst_row;
}

/// build() and build_cuda() on `a` (converted to V): the same arrays, statistics or refusal.
template <typename V>
void expect_same(const csr_matrix<double, index_type>& a64, const hdia::hdia_params& p, const std::string& name) {
  SCOPED_TRACE(name + (sizeof(V) == 4 ? " float" : " double") + " H=" + std::to_string(p.hack_size));
  const auto a = convert_csr<V, index_type>(a64);
  std::optional<hdia::hdia_matrix<V>> host;
  std::optional<bad_input> host_refusal;
  try {
    host = hdia::build(a, p);
  } catch (const bad_input& e) {
    host_refusal = e;
  }
  device_csr<V> d = upload_csr(a);
  try {
    const auto built = hdia::build_cuda(std::move(d), p);
    ASSERT_TRUE(host.has_value()) << "the GPU accepted what the host refused: " << host_refusal->what();
    const auto& v = built.view;
    EXPECT_EQ(v.rows, host->rows);
    EXPECT_EQ(v.cols, host->cols);
    EXPECT_EQ(v.hack_size, host->hack_size);
    // Equal hack offsets make the host's lengths the device's: hack_offsets.back() diagonals of
    // hack_size slots each.
    ASSERT_EQ(download_array(v.hack_offsets, host->hack_offsets.size()), host->hack_offsets);
    test::expect_bitwise(host->diag_offsets, v.diag_offsets, "diag_offsets");
    test::expect_bitwise(host->values, v.values, "values");
    test::expect_bitwise(host->values_f32, v.values_f32, "values_f32");
    EXPECT_EQ(built.stats.stored_bytes, host->stats.stored_bytes);
    EXPECT_EQ(built.stats.padding_ratio, host->stats.padding_ratio);
    EXPECT_EQ(built.stats.n_iter, host->stats.n_iter);
    EXPECT_EQ(built.stats.n_p, host->stats.n_p);
    EXPECT_EQ(built.stats.params, host->stats.params);
    expect_same_product(v, a);
  } catch (const bad_input& e) {
    ASSERT_TRUE(host_refusal.has_value()) << "the GPU refused what the host accepted: " << e.what();
    EXPECT_EQ(e.where(), host_refusal->where()) << e.what() << "\nhost: " << host_refusal->what();
    EXPECT_EQ(comparable(e), comparable(*host_refusal)) << e.what() << "\nhost: " << host_refusal->what();
  }
}

void expect_same_both_types(const csr_matrix<double, index_type>& a, const hdia::hdia_params& p,
                            const std::string& name) {
  expect_same<double>(a, p, name);
  expect_same<float>(a, p, name);
}

hdia::hdia_params with_hack(int h) {
  hdia::hdia_params p;
  p.hack_size = h;
  return p;
}

using HdiaBuildCuda = test::cuda_test;

TEST_F(HdiaBuildCuda, EdgeCasesMatchTheHostBuilder) {
  for (const auto& named : test::edge_case_matrices())
    for (int h : {32, 64}) expect_same_both_types(named.a, with_hack(h), named.name);
}

TEST_F(HdiaBuildCuda, FloatValuesMatchTheHostBuilder) {
  hdia::hdia_params p;
  p.float_values = true;
  for (const auto& named : test::edge_case_matrices()) expect_same_both_types(named.a, p, named.name);
  expect_same_both_types(stencil(13, 11, 7), p, "7-point 13x11x7 float values");
  auto big = stencil(37, 29, 1);
  big.values[100] = 1e39;  // beyond float: refused by both, naming the same row
  expect_same<double>(big, p, "5-point 37x29 with 1e39");
}

TEST_F(HdiaBuildCuda, StencilsMatchTheHostBuilder) {
  for (int h : {32, 64}) {
    expect_same_both_types(stencil(37, 29, 1), with_hack(h), "5-point 37x29");
    expect_same_both_types(stencil(13, 11, 7), with_hack(h), "7-point 13x11x7");
    expect_same_both_types(stencil(32, 32, 8), with_hack(h), "7-point 32x32x8");
  }
}

TEST_F(HdiaBuildCuda, OddSizesAndPartialBandsMatchTheHostBuilder) {
  for (global_index_type n : {1, 2, 31, 32, 33, 63, 65, 999, 1001, 4097})
    for (int h : {32, 64})
      expect_same_both_types(random_band(n, 4, 0.6, 17 + n), with_hack(h), "band " + std::to_string(n));
}

TEST_F(HdiaBuildCuda, MoreHacksThanBlocksMatchTheHostBuilder) {
  // 70000 hacks of 32 rows: more than the kernels' 2^16 blocks, so blocks take several hacks.
  csr_matrix<double, index_type> a;
  a.rows = a.cols = 70000 * 32 + 17;
  for (global_index_type r = 0; r < a.rows; ++r) {
    const auto add = [&](global_index_type c, double v) {
      a.col_idx.push_back(static_cast<index_type>(c));
      a.values.push_back(v);
    };
    if (r > 0 && r % 3 != 0) add(r - 1, -1.0);
    add(r, 2.0 + static_cast<double>(r % 11));
    if (r + 1 < a.rows) add(r + 1, -0.5);
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  expect_same<double>(a, with_hack(32), "tridiagonal, 70000 hacks");
}

TEST_F(HdiaBuildCuda, ValuesAreCopiedBitForBit) {
  // Signed zeros, infinities and NaN (the builder accepts non-finite values) keep their bits.
  auto a = stencil(9, 7, 3);
  const double specials[] = {-0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(), 0.0, std::numeric_limits<double>::denorm_min()};
  for (std::size_t k = 0; k < a.values.size(); k += 5) a.values[k] = specials[(k / 5) % 6];
  expect_same_both_types(a, with_hack(32), "special values");
}

TEST_F(HdiaBuildCuda, RefusesWhatTheHostRefuses) {
  // Too many diagonals in hack 0 (random columns).
  expect_same_both_types(test::random_csr(999, 999, 1, 12, 5), hdia::hdia_params{}, "random 999");
  // Too much padding: one entry per row, each on another diagonal.
  test::row_entries scattered(64);
  for (index_type r = 0; r < 64; ++r) scattered[r] = {{(r * 7) % 64, 1.0}};
  expect_same_both_types(test::from_rows(64, scattered), hdia::hdia_params{}, "32x padding");
  hdia::hdia_params loose;
  loose.max_padding_ratio = 40;
  expect_same_both_types(test::from_rows(64, scattered), loose, "32x padding, limit 40");
  // Padding crossing the limit in hack 3 of 4, after three tridiagonal hacks: the message counts
  // the distinct diagonals of hacks 0..3.
  test::row_entries late(128);
  for (index_type r = 0; r < 96; ++r) {
    if (r > 0) late[r].push_back({r - 1, -1.0});
    late[r].push_back({r, 2.0});
    late[r].push_back({r + 1, -1.0});
  }
  for (index_type r = 96; r < 128; ++r) late[r] = {{(r * 5) % 128, 1.0}};
  expect_same_both_types(test::from_rows(128, late), hdia::hdia_params{}, "padding in hack 3");
  // Parameters.
  for (int h : {0, -32, 48}) expect_same<double>(stencil(5, 5, 1), with_hack(h), "hack size " + std::to_string(h));
  hdia::hdia_params p;
  p.max_diagonals_per_hack = 0;
  expect_same<double>(stencil(5, 5, 1), p, "no diagonals allowed");
  p = {};
  p.max_padding_ratio = 0.5;
  expect_same<double>(stencil(5, 5, 1), p, "padding ratio below 1");
  p = {};
  p.max_diagonals_per_hack = 4;
  expect_same<double>(stencil(5, 5, 1), p, "5 diagonals, limit 4");
}

TEST_F(HdiaBuildCuda, RefusesInvalidCsrAsTheHostDoes) {
  // Row 7 of the 6 x 6 grid is interior: 5 entries from row_ptr[7].
  const auto refused = [](const csr_matrix<double, index_type>& a, const std::string& name) {
    EXPECT_THROW(hdia::build(a, hdia::hdia_params{}), bad_input) << name;
    expect_same<double>(a, hdia::hdia_params{}, name);
  };
  const auto grid = stencil(6, 6, 1);
  const auto first = static_cast<std::size_t>(grid.row_ptr[7]);
  auto bad_column = grid;
  bad_column.col_idx[first + 4] = 36;
  refused(bad_column, "column out of range");
  bad_column = grid;
  bad_column.col_idx[first] = -1;
  refused(bad_column, "negative column");
  auto unsorted = grid;
  std::swap(unsorted.col_idx[first + 1], unsorted.col_idx[first + 2]);
  refused(unsorted, "unsorted columns");
  auto decreasing = grid;
  std::swap(decreasing.row_ptr[10], decreasing.row_ptr[11]);
  refused(decreasing, "decreasing row pointer");
}

TEST_F(HdiaBuildCuda, LargeDiagonalLimitsUseGlobalMemorySets) {
  // 64 dense rows of 3000 columns: 3031 diagonals per hack, about 1.01 slots per nonzero. A limit
  // of 5000 makes the count's set (and the fill's) too large for shared memory.
  test::row_entries dense(64);
  for (index_type r = 0; r < 64; ++r)
    for (index_type c = 0; c < 3000; ++c) dense[r].push_back({c, 1.0 + r + 1e-4 * c});
  const auto a = test::from_rows(3000, dense);
  hdia::hdia_params p;
  p.max_diagonals_per_hack = 5000;
  expect_same_both_types(a, p, "dense 64 x 3000, limit 5000");
  p.max_diagonals_per_hack = 3000;
  expect_same<double>(a, p, "dense 64 x 3000, limit 3000");
}

}  // namespace
}  // namespace distspmv
