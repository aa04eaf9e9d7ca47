// HLL / ELL-G build tests (STYLE.md §6, tier 2): exact arrays on tiny matrices (padding carries
// the sentinel), CSR -> HLL -> CSR on every edge case, refusals, statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/hll/hll.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

hll::hll_params params(int hack_size, global_index_type sort_window = 0, double max_padding_ratio = 32.0) {
  hll::hll_params p;
  p.hack_size = hack_size;
  p.sort_window = sort_window;
  p.max_padding_ratio = max_padding_ratio;
  return p;
}

// The matrix of the picture in hll.hpp (7 rows, lengths 2 1 3 0 2 1 2).
csr_matrix<double, index_type> picture_matrix() {
  return test::from_rows(5, {{{0, 1.0}, {3, 2.0}},
                             {{1, 3.0}},
                             {{0, 4.0}, {2, 5.0}, {4, 6.0}},
                             {},
                             {{1, 7.0}, {2, 8.0}},
                             {{4, 9.0}},
                             {{0, 10.0}, {3, 11.0}}});
}

TEST(HllBuild, OneHackHasExactColumnMajorArraysWithSentinelPadding) {
  const auto a = picture_matrix();
  const auto m = hll::build(a, params(32));

  EXPECT_EQ(m.hack_size, 32);
  EXPECT_EQ(m.hack_offsets, (std::vector<offset_type>{0, 96}));  // one hack, width 3
  EXPECT_EQ(m.row_length, (std::vector<index_type>{2, 1, 3, 0, 2, 1, 2}));
  EXPECT_TRUE(m.row_idx.empty());
  // slot of (stored row i, entry j) = j * 32 + i; everything else is the sentinel (column 0, 0).
  std::vector<index_type> cols(96, hll::padding_column);
  std::vector<double> vals(96, 0.0);
  const std::vector<std::tuple<int, int, index_type, double>> entries = {
      {0, 0, 0, 1.0}, {0, 1, 3, 2.0},  {1, 0, 1, 3.0}, {2, 0, 0, 4.0}, {2, 1, 2, 5.0},   {2, 2, 4, 6.0},
      {4, 0, 1, 7.0}, {4, 1, 2, 8.0},  {5, 0, 4, 9.0}, {6, 0, 0, 10.0}, {6, 1, 3, 11.0}};
  for (const auto& [i, j, c, v] : entries) {
    cols[j * 32 + i] = c;
    vals[j * 32 + i] = v;
  }
  EXPECT_EQ(m.col_idx, cols);
  EXPECT_EQ(m.values, vals);
}

TEST(HllBuild, EachHackIsPaddedToItsOwnLongestRow) {
  // 40 rows: hack 0 (rows 0..31) has rows of 1 entry, hack 1 (rows 32..39) has one row of 4.
  test::row_entries rows(40);
  for (index_type r = 0; r < 40; ++r) rows[r] = {{r % 10, 1.0 + r}};
  rows[35] = {{0, 1.0}, {3, 2.0}, {5, 3.0}, {9, 4.0}};
  const auto m = hll::build(test::from_rows(10, rows), params(32));

  EXPECT_EQ(m.hack_offsets, (std::vector<offset_type>{0, 32, 32 + 4 * 32}));
  ASSERT_EQ(m.col_idx.size(), 160u);
  // hack 1, local row 3 (row 35): entries at 32 + j * 32 + 3
  for (int j = 0; j < 4; ++j) EXPECT_EQ(m.values[32 + j * 32 + 3], 1.0 + j);
  // hack 1, local row 0 (row 32): one entry, then sentinels
  EXPECT_EQ(m.values[32 + 0], 33.0);
  EXPECT_EQ(m.col_idx[32 + 32], hll::padding_column);
  EXPECT_EQ(m.values[32 + 32], 0.0);
  // hack 1 rows past the end (local 8..31) are all padding
  for (int j = 0; j < 4; ++j)
    for (int i = 8; i < 32; ++i) {
      EXPECT_EQ(m.col_idx[32 + j * 32 + i], hll::padding_column);
      EXPECT_EQ(m.values[32 + j * 32 + i], 0.0);
    }
}

TEST(HllBuild, SortingOrdersRowsByLengthWithinWindowsStably) {
  // 96 rows, length r % 5; windows of 64 rows.
  test::row_entries rows(96);
  for (index_type r = 0; r < 96; ++r)
    for (index_type k = 0; k < r % 5; ++k) rows[r].push_back({k, 1.0});
  const auto a = test::from_rows(8, rows);
  const auto m = hll::build(a, params(32, 64));

  ASSERT_EQ(m.row_idx.size(), 96u);
  for (global_index_type w : {0, 64}) {
    for (global_index_type i = w + 1; i < std::min<global_index_type>(w + 64, 96); ++i) {
      const index_type prev = m.row_idx[i - 1], cur = m.row_idx[i];
      EXPECT_GE(prev, w);
      EXPECT_LT(cur, w + 64);
      EXPECT_GE(a.row_length(prev), a.row_length(cur));
      if (a.row_length(prev) == a.row_length(cur)) {
        EXPECT_LT(prev, cur) << "not stable at " << i;
      }
    }
  }
  for (global_index_type i = 0; i < 96; ++i) EXPECT_EQ(m.row_length[i], a.row_length(m.row_idx[i]));
  // sorting takes the two hacks of window 0 to widths 4 and 2 (32 rows of length >= 2 come first)
  EXPECT_EQ(m.hack_offsets[1], 4 * 32);
  EXPECT_EQ(hll::to_csr(m), a);
}

TEST(HllBuild, EllGIsOneHackOfAllRowsRoundedUpToAWarp) {
  const auto a = picture_matrix();
  const auto m = hll::build(a, params(0));
  EXPECT_EQ(m.hack_size, 32);
  EXPECT_EQ(m.hack_offsets, (std::vector<offset_type>{0, 96}));

  const auto b = test::random_csr(1001, 700, 2, 9, 3);
  const auto g = hll::build(b, params(0));
  EXPECT_EQ(g.hack_size, 1024);
  ASSERT_EQ(g.hack_offsets.size(), 2u);
  EXPECT_EQ(g.hack_offsets[1], 1024 * 9);
  EXPECT_EQ(hll::to_csr(g), b);
}

template <typename V>
void round_trip_all(const hll::hll_params& p, bool may_refuse) {
  for (const auto& named : test::edge_case_matrices()) {
    const auto a = convert_csr<V, index_type>(named.a);
    const auto copy = a;
    try {
      const auto m = hll::build(a, p);
      EXPECT_EQ(hll::to_csr(m), a) << named.name;
      EXPECT_EQ(a, copy) << named.name << ": input changed";
      // padding carries the sentinel: entries past a row's length are (column 0, value 0)
      const global_index_type H = m.hack_size;
      for (global_index_type i = 0; i < m.rows; ++i) {
        const global_index_type h = i / H;
        const offset_type width = (m.hack_offsets[h + 1] - m.hack_offsets[h]) / H;
        for (offset_type j = m.row_length[i]; j < width; ++j) {
          const offset_type k = m.hack_offsets[h] + j * H + (i - h * H);
          ASSERT_EQ(m.col_idx[k], hll::padding_column) << named.name;
          ASSERT_EQ(m.values[k], V(0)) << named.name;
        }
      }
    } catch (const bad_input& e) {
      EXPECT_TRUE(may_refuse) << named.name << ": " << e.what();
    }
  }
}

TEST(HllBuild, RoundTripsEveryEdgeCase) {
  round_trip_all<double>(params(32), false);
  round_trip_all<float>(params(32), false);
  round_trip_all<double>(params(64, 1024, 0.0), false);  // 64 rows per hack can pad 64x: no limit
  round_trip_all<float>(params(32, 1024), false);
  round_trip_all<double>(params(0), true);  // ELL-G refuses the uneven ones
}

TEST(HllBuild, EllGRefusesExplodingPadding) {
  for (const auto& named : test::edge_case_matrices()) {
    if (named.name != "one_very_long_row") continue;
    try {
      hll::build(named.a, params(0));
      FAIL() << "ELL-G accepted a 200000-entry row among rows of 5";
    } catch (const bad_input& e) {
      EXPECT_NE(std::string(e.what()).find("limit 32.00x"), std::string::npos) << e.what();
    }
    // HLL's padding stays within its hack
    EXPECT_NO_THROW(hll::build(named.a, params(32)));
  }
}

TEST(HllBuild, RejectsBadParameters) {
  const auto a = picture_matrix();
  EXPECT_THROW(hll::build(a, params(48)), bad_input);
  EXPECT_THROW(hll::build(a, params(32, 48)), bad_input);
  auto p = params(32);
  p.threads_per_row = 3;
  EXPECT_THROW(hll::build(a, p), bad_input);
  auto bad = a;
  bad.col_idx[0] = 7;  // out of range
  EXPECT_THROW(hll::build(bad, params(32)), bad_input);
}

TEST(HllBuild, StatisticsDescribeTheLayout) {
  const auto a = picture_matrix();
  const auto m = hll::build(a, params(32));
  EXPECT_EQ(m.stats.stored_bytes, 2 * sizeof(offset_type) + 7 * sizeof(index_type) + 96 * (sizeof(index_type) + sizeof(double)));
  EXPECT_DOUBLE_EQ(m.stats.padding_ratio, 96.0 / 11.0);
  EXPECT_EQ(m.stats.n_iter, 3);  // one warp, longest row 3
  EXPECT_EQ(m.stats.n_p, 3 * 32 - 11);
  EXPECT_NE(m.stats.params.find("H=32"), std::string::npos);

  // On irregular rows, sorting within windows cuts the padding.
  for (const auto& named : test::edge_case_matrices()) {
    if (named.name != "power_law") continue;
    const auto plain = hll::build(named.a, params(32));
    const auto sorted = hll::build(named.a, params(32, 1024));
    EXPECT_LT(sorted.stats.padding_ratio, plain.stats.padding_ratio);
    EXPECT_LE(sorted.stats.n_iter, plain.stats.n_iter);
    EXPECT_GE(plain.stats.padding_ratio, 1.0);
    EXPECT_EQ(plain.stats.n_p, plain.stats.n_iter * 32 - plain.nnz);
    std::printf("power_law padding: hll %.3f, hll-sorted(1024) %.3f\n", plain.stats.padding_ratio,
                sorted.stats.padding_ratio);
  }
}

TEST(HllReference, MatchesCsrWithSortingAndBetaZero) {
  const auto a = test::random_csr(333, 200, 0, 17, 21);
  std::vector<double> x(200), y_ref(333, 0.5), y(333, std::numeric_limits<double>::quiet_NaN());
  for (int i = 0; i < 200; ++i) x[i] = std::sin(0.1 * i);
  for (auto p : {params(32), params(64, 128), params(0)}) {
    const auto m = hll::build(a, p);
    const auto v = hll::traits::view_of(m, [](const auto& vec) { return vec.data(); });
    std::fill(y.begin(), y.end(), std::numeric_limits<double>::quiet_NaN());
    hll::spmv_reference(v, 1.5, x.data(), 0.0, y.data());
    std::vector<double> ref(333);
    csr::spmv_host(a, 1.5, x.data(), 0.0, ref.data());
    for (int r = 0; r < 333; ++r) EXPECT_NEAR(y[r], ref[r], 1e-12) << "row " << r;
    std::vector<double> y2(333, 0.5), ref2(333, 0.5);
    hll::spmv_reference(v, -0.5, x.data(), 2.0, y2.data());
    csr::spmv_host(a, -0.5, x.data(), 2.0, ref2.data());
    for (int r = 0; r < 333; ++r) EXPECT_NEAR(y2[r], ref2[r], 1e-12) << "row " << r;
  }
}

}  // namespace
}  // namespace distspmv
