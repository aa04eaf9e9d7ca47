// SELL-C-sigma build tests: exact slice layout with sentinel padding, sorting inside windows
// only, the automatic sigma, parameter checks, statistics against hand counts, and
// CSR -> SELL -> CSR on the edge-case matrices for several (C, sigma, R).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/sell/sell.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv {
namespace {

csr_matrix<double, index_type> from_lengths(global_index_type cols, const std::vector<int>& lengths) {
  test::row_entries rows;
  for (int len : lengths) {
    rows.emplace_back();
    for (int k = 0; k < len; ++k) rows.back().push_back({k, 1.0});
  }
  return test::from_rows(cols, rows);
}

// Rows with 1, 3, 2, 3 and 2 entries (the lengths of sell.hpp's picture).
csr_matrix<double, index_type> small() {
  return test::from_rows(7, {{{4, 1}},
                             {{0, 2}, {2, 3}, {5, 4}},
                             {{1, 5}, {3, 6}},
                             {{1, 7}, {4, 8}, {6, 9}},
                             {{0, 10}, {6, 11}}});
}

/// C, sigma, R and 32-bit columns (the layout tests), or 16-bit offsets where they fit.
sell::sell_params params(int c, int sigma, int r = 1, bool offsets = false) {
  return sell::sell_params{c, sigma, r, offsets};
}

TEST(SellBuild, SortedSliceLayout) {
  const auto m = sell::build(small(), params(32, 32));
  EXPECT_EQ(m.sigma, 32);
  EXPECT_EQ(m.perm, (std::vector<index_type>{1, 3, 2, 4, 0}));  // longest first, ties in row order
  EXPECT_EQ(m.slice_ptr, (std::vector<offset_type>{0, 3 * 32}));
  // entry j of position i at j * 32 + i; padding: the row's last column, value 0; positions
  // 5..31 (no row): column min(i, cols - 1), value 0.
  const std::vector<std::vector<index_type>> cols = {{0, 1, 1, 0, 4}, {2, 4, 3, 6, 4}, {5, 6, 3, 6, 4}};
  const std::vector<std::vector<double>> vals = {{2, 7, 5, 10, 1}, {3, 8, 6, 11, 0}, {4, 9, 0, 0, 0}};
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(m.col_idx[j * 32 + i], cols[j][i]) << "j " << j << " position " << i;
      EXPECT_EQ(m.values[j * 32 + i], vals[j][i]) << "j " << j << " position " << i;
    }
    for (int i = 5; i < 32; ++i) {
      EXPECT_EQ(m.col_idx[j * 32 + i], std::min(i, 6));
      EXPECT_EQ(m.values[j * 32 + i], 0.0);
    }
  }
  EXPECT_EQ(to_csr(m), small());
}

TEST(SellBuild, ColumnOffsetsFromThePositions) {
  // The sorted layout above as col - i, i the sorted position (a row moves less than sigma), and
  // no 32-bit columns.
  const auto m = sell::build(small(), params(32, 32, 1, true));
  EXPECT_TRUE(m.col_idx.empty());
  ASSERT_EQ(m.col_offset.size(), 3u * 32u);
  const std::vector<std::vector<index_type>> cols = {{0, 1, 1, 0, 4}, {2, 4, 3, 6, 4}, {5, 6, 3, 6, 4}};
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 5; ++i) EXPECT_EQ(m.col_offset[j * 32 + i], cols[j][i] - i) << j << " " << i;
    for (int i = 5; i < 32; ++i) EXPECT_EQ(m.col_offset[j * 32 + i], std::min(i, 6) - i) << j << " " << i;
  }
  EXPECT_EQ(to_csr(m), small());
  EXPECT_NE(m.stats.params.find("col16"), std::string::npos);
  EXPECT_EQ(m.stats.stored_bytes, 2 * sizeof(offset_type) + 96 * (sizeof(double) + sizeof(std::int16_t)) +
                                       5 * sizeof(index_type));

  // 40000 rows, row r < cols holding column r: row 1 also reaches `right` columns away. 16-bit
  // offsets only where every slot fits. Rows from cols on are empty: where they share a slice with
  // a row of entries, their padding points at column cols - 1 (a few columns away); the slices
  // beyond hold no slots.
  const auto x = test::random_vector<double>(70000, 9);
  for (const auto& [cols_n, right, fits] : std::vector<std::tuple<global_index_type, index_type, bool>>{
           {70000, 32767, true}, {70000, 32768, false}, {7000, 5, true}, {7001, 5, true}}) {
    test::row_entries rows(40000);
    for (index_type r = 0; r < std::min<global_index_type>(cols_n, 39999); ++r) rows[r].push_back({r, 1.0 + r});
    rows[1].push_back({1 + right, 2.0});
    if (1 + right >= cols_n) rows[1].pop_back();
    const auto a = test::from_rows(cols_n, rows);
    for (const auto& p : {params(32, 0, 1, true), params(64, 1, 2, true)}) {
      const auto s16 = sell::build(a, p);
      SCOPED_TRACE(std::to_string(cols_n) + " columns, right " + std::to_string(right) + ", " + s16.stats.params);
      EXPECT_EQ(s16.col_offset.empty(), !fits);
      EXPECT_EQ(to_csr(s16), a);
      std::vector<double> y(40000, std::numeric_limits<double>::quiet_NaN()), ref(40000, 0.0);
      sell::spmv_reference(sell::traits::view_of(s16, [](const auto& v) { return v.data(); }), 0.5, x.data(), 0.0,
                           y.data());
      csr::spmv_host(a, 0.5, x.data(), 0.0, ref.data());
      for (int r = 0; r < 40000; ++r) ASSERT_EQ(y[r], ref[r]) << "row " << r;
    }
  }
}

TEST(SellBuild, UnsortedHasNoPermutation) {
  const auto m = sell::build(small(), params(32, 1));
  EXPECT_EQ(m.sigma, 1);
  EXPECT_TRUE(m.perm.empty());
  EXPECT_EQ(m.row_length, (std::vector<index_type>{1, 3, 2, 3, 2}));
  const std::vector<index_type> j0 = {4, 0, 1, 1, 0}, j2 = {4, 5, 3, 6, 6};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(m.col_idx[i], j0[i]);
    EXPECT_EQ(m.col_idx[64 + i], j2[i]);
  }
  EXPECT_EQ(m.values[64 + 0], 0.0);  // row 0 is padding from j = 1 on
  EXPECT_EQ(to_csr(m), small());
}

TEST(SellBuild, SortsInsideWindowsOnly) {
  std::vector<int> lengths(100);
  for (int r = 0; r < 100; ++r) lengths[r] = (r * 7) % 5 + (r == 80 ? 6 : 0);
  const auto a = from_lengths(16, lengths);
  const auto m = sell::build(a, params(32, 64));
  ASSERT_EQ(m.perm.size(), 100u);
  for (const auto& [begin, end] : {std::pair{0, 64}, std::pair{64, 100}}) {
    std::vector<index_type> window(m.perm.begin() + begin, m.perm.begin() + end);
    for (std::size_t k = 1; k < window.size(); ++k) {
      EXPECT_GE(lengths[window[k - 1]], lengths[window[k]]);
      if (lengths[window[k - 1]] == lengths[window[k]]) {
        EXPECT_LT(window[k - 1], window[k]);  // stable
      }
    }
    std::sort(window.begin(), window.end());
    std::vector<index_type> expected(end - begin);
    std::iota(expected.begin(), expected.end(), begin);
    EXPECT_EQ(window, expected);  // rows stay inside their window
  }
  // slice widths: the longest row of each 32 positions
  ASSERT_EQ(m.slice_ptr.size(), 5u);
  for (int s = 0; s < 4; ++s) {
    int width = 0;
    for (int i = s * 32; i < std::min(100, s * 32 + 32); ++i) width = std::max(width, lengths[m.perm[i]]);
    EXPECT_EQ(m.slice_ptr[s + 1] - m.slice_ptr[s], 32 * width) << "slice " << s;
  }
  EXPECT_EQ(to_csr(m), a);
}

TEST(SellBuild, AutomaticSigma) {
  // Equal rows: nothing to gain, no sort, no permutation.
  const auto equal = sell::build(from_lengths(8, std::vector<int>(300, 5)), params(32, 0));
  EXPECT_EQ(equal.sigma, 1);
  EXPECT_TRUE(equal.perm.empty());
  EXPECT_NE(equal.stats.params.find("auto"), std::string::npos);

  // Alternating 1 and 20 entries: unsorted every slice is 20 wide; sorted in 256-row windows,
  // half the slices are 1 wide. Saves (16 * 20 - 8 * 20 - 8 * 1) * 32 entries x 12 bytes, far
  // more than the 512 x 4 bytes of perm.
  std::vector<int> alternating(512);
  for (int r = 0; r < 512; ++r) alternating[r] = r % 2 == 0 ? 20 : 1;
  const auto a = from_lengths(32, alternating);
  const auto sorted = sell::build(a, params(32, 0));
  EXPECT_EQ(sorted.sigma, 256);
  EXPECT_EQ(sorted.perm.size(), 512u);
  EXPECT_EQ(sorted.slice_ptr.back(), (8 * 20 + 8 * 1) * 32);
  EXPECT_EQ(to_csr(sorted), a);

  // C = 96: the window is the smallest multiple of C >= 256.
  EXPECT_EQ(sell::build(a, params(96, 0)).sigma, 288);

  // A sort that moves nothing stores no permutation.
  std::vector<int> descending(64);
  for (int r = 0; r < 64; ++r) descending[r] = 64 - r;
  const auto d = sell::build(from_lengths(64, descending), params(32, 64));
  EXPECT_EQ(d.sigma, 64);
  EXPECT_TRUE(d.perm.empty());
}

TEST(SellBuild, StatisticsMatchHandCount) {
  // C = 64, no sorting: 100 rows of 2 entries but row 70 with 5 -> slices of width 2 and 5.
  std::vector<int> lengths(100, 2);
  lengths[70] = 5;
  const auto a = from_lengths(8, lengths);
  const auto m = sell::build(a, params(64, 1, 2));
  EXPECT_EQ(m.slice_ptr, (std::vector<offset_type>{0, 128, 128 + 320}));
  EXPECT_EQ(m.stats.n_iter, 2 * 2 + 5 * 2);  // width x C / 32 per slice
  EXPECT_EQ(m.stats.n_p, 14 * 32 - a.nnz());
  EXPECT_DOUBLE_EQ(m.stats.padding_ratio, 448.0 / static_cast<double>(a.nnz()));
  EXPECT_GE(m.stats.padding_ratio, 1.0);
  EXPECT_EQ(m.stats.stored_bytes, 3 * sizeof(offset_type) + 448 * (sizeof(double) + sizeof(index_type)));
  EXPECT_NE(m.stats.params.find("C=64 sigma=1 R=2"), std::string::npos);
}

TEST(SellBuild, RejectsBadParameters) {
  const auto a = small();
  EXPECT_THROW(sell::build(a, params(48, 1)), bad_input);      // C not a multiple of 32
  EXPECT_THROW(sell::build(a, params(0, 1)), bad_input);
  EXPECT_THROW(sell::build(a, params(32, 1, 2)), bad_input);   // R = 2 needs C % 64 == 0
  EXPECT_THROW(sell::build(a, params(64, 1, 3)), bad_input);
  EXPECT_THROW(sell::build(a, params(32, 40)), bad_input);     // sigma not a multiple of C
  EXPECT_THROW(sell::build(a, params(32, -1)), bad_input);
  // x windows need C = 32, R = 1 and sigma dividing the window block.
  EXPECT_THROW(sell::build(a, sell::sell_params{64, 0, 1, false, true}), bad_input);
  EXPECT_THROW(sell::build(a, sell::sell_params{64, 0, 2, false, true}), bad_input);
  EXPECT_THROW(sell::build(a, sell::sell_params{32, 96, 1, false, true}), bad_input);
  EXPECT_NO_THROW(sell::build(a, sell::sell_params{32, 1, 1, false, true}));
  EXPECT_NO_THROW(sell::build(a, sell::sell_params{32, 256, 1, false, true}));
}

/// x windows: each block of window_rows positions reads x only within its window, which is
/// exactly the span of its slots' columns (padding included); the widest window within
/// window_max_bytes is staged.
TEST(SellBuild, XWindowsSpanTheirBlocks) {
  sell::sell_params p{32, 0, 1, true, true};
  for (const auto& m : test::edge_case_matrices()) {
    const auto s = sell::build(m.a, p);
    EXPECT_EQ(s.sigma, sell::window_rows) << m.name;
    const global_index_type blocks = (m.a.rows + sell::window_rows - 1) / sell::window_rows;
    ASSERT_EQ(static_cast<global_index_type>(s.window_begin.size()), blocks) << m.name;
    index_type widest = 0;
    for (global_index_type b = 0; b < blocks; ++b) {
      index_type lo = std::numeric_limits<index_type>::max(), hi = -1;
      for (global_index_type i = b * sell::window_rows; i < std::min<global_index_type>((b + 1) * sell::window_rows,
                                                                                       (m.a.rows + 31) / 32 * 32);
           ++i)
        for (offset_type at = s.slice_ptr[i / 32] + i % 32; at < s.slice_ptr[i / 32 + 1]; at += 32) {
          const index_type col = s.col_offset.empty() ? s.col_idx[at] : static_cast<index_type>(i + s.col_offset[at]);
          lo = std::min(lo, col);
          hi = std::max(hi, col);
        }
      EXPECT_EQ(s.window_begin[b], hi < 0 ? 0 : lo) << m.name << " block " << b;
      EXPECT_EQ(s.window_end[b], hi < 0 ? 0 : hi + 1) << m.name << " block " << b;
      const index_type width = s.window_end[b] - s.window_begin[b];
      if (width <= static_cast<index_type>(sell::window_max_bytes / sizeof(double))) widest = std::max(widest, width);
    }
    EXPECT_EQ(s.window_capacity, widest) << m.name;
    EXPECT_EQ(to_csr(s), m.a) << m.name;
  }
  // Rows far apart in one block: a window wider than the limit is not staged. Empty rows in a
  // slice with entries pad with their own index.
  test::row_entries rows(3000);
  rows[0].push_back({0, 1.0});
  rows[2999].push_back({99999, 2.0});
  rows[2100].push_back({5, 3.0});
  const auto wide = sell::build(test::from_rows(100000, rows), p);
  ASSERT_EQ(wide.window_begin.size(), 2u);
  EXPECT_EQ(wide.window_begin[0], 0);
  EXPECT_EQ(wide.window_end[0], 32);  // row 0's column 0, then rows 1-31 padded with 1-31
  EXPECT_EQ(wide.window_begin[1], 5);
  EXPECT_EQ(wide.window_end[1], 100000);
  EXPECT_EQ(wide.window_capacity, 32);
}

TEST(SellBuild, TopSliceSpillsTheExcessOfItsLongestRows) {
  // Three window blocks (the last partial): short banded rows, and in each block a few long rows
  // whose last columns reach past every other slot of the block (the window must cover them).
  std::vector<int> lengths(5000);
  for (int r = 0; r < 5000; ++r) lengths[r] = 2 + (r * 7) % 9;
  lengths[7] = 900;
  lengths[100] = 300;
  lengths[101] = 40;
  lengths[2100] = 50;
  lengths[4500] = 33;
  test::row_entries rows(5000);
  for (int r = 0; r < 5000; ++r)
    for (int k = 0; k < lengths[r]; ++k)  // the longest rows every 4th column
      rows[r].push_back({std::max(0, r - 4) + (lengths[r] > 100 ? 4 : 1) * k, 1.0 + r % 13 + k / 7.0});
  const auto a = test::from_rows(6000, rows);
  const auto x = test::random_vector<double>(6000, 3);
  const sell::sell_params flat{32, 0, 1, true, true}, spill{32, 0, 1, true, true, true};
  const auto f = sell::build(a, flat);
  const auto s = sell::build(a, spill);
  EXPECT_TRUE(f.spill_ptr.empty());
  ASSERT_EQ(s.spill_ptr.size(), 3u * 32 + 1);
  // Block 0's top slice is capped far below row 7's 900 entries; rows 7 and 100 spill (lanes 0
  // and 1: longest first), and the spill's entries are the rows' last ones.
  const offset_type width0 = s.slice_ptr[1] / 32;
  EXPECT_LT(width0, 40);
  EXPECT_EQ(s.spill_ptr[1] - s.spill_ptr[0], 900 - width0);
  EXPECT_EQ(s.spill_ptr[2] - s.spill_ptr[1], 300 - width0);
  EXPECT_EQ(s.spill_col[s.spill_ptr[1] - 1], 3 + 4 * 899);
  EXPECT_LT(s.stats.padding_ratio, f.stats.padding_ratio);
  EXPECT_LT(s.stats.stored_bytes, f.stats.stored_bytes);
  EXPECT_EQ(s.stats.n_p, s.slice_ptr.back() - (s.nnz - static_cast<offset_type>(s.spill_col.size())));
  EXPECT_NE(s.stats.params.find(" spill="), std::string::npos) << s.stats.params;
  // The same windows as without the spill: the spill holds the block's widest columns.
  EXPECT_EQ(s.window_begin, f.window_begin);
  EXPECT_EQ(s.window_end, f.window_end);
  EXPECT_EQ(s.window_end[0], 3 + 4 * 899 + 1);
  EXPECT_EQ(to_csr(s), a);
  // The reference adds a row's slots, then its spill, in the row's order: CSR's sums exactly.
  std::vector<double> y(5000, std::numeric_limits<double>::quiet_NaN()), ref(5000, 0.0);
  sell::spmv_reference(sell::traits::view_of(s, [](const auto& v) { return v.data(); }), 0.5, x.data(), 0.0, y.data());
  csr::spmv_host(a, 0.5, x.data(), 0.0, ref.data());
  for (int r = 0; r < 5000; ++r) ASSERT_EQ(y[r], ref[r]) << "row " << r;
  // Only with x windows sorted in the whole block.
  EXPECT_TRUE(sell::build(a, sell::sell_params{32, 64, 1, true, true, true}).spill_ptr.empty());
  EXPECT_TRUE(sell::build(a, sell::sell_params{32, 0, 1, true, false, true}).spill_ptr.empty());
  // One row, at no cost per spilled row: the top slice takes width 0 and the row is all spill; its
  // window still covers it. At the default cost it stays in the slice.
  const auto one = test::from_rows(50, {{{3, 1.0}, {9, 2.0}, {40, 3.0}}});
  EXPECT_TRUE(sell::build(one, spill).spill_ptr.empty());
  sell::sell_params free_rows = spill;
  free_rows.spill_row_bytes = 0;
  const auto o = sell::build(one, free_rows);
  EXPECT_EQ(o.slice_ptr.back(), 0);
  std::vector<offset_type> one_ptr(33, 3);  // lane 0 spills 3 entries; positions 1-31 lie past the rows
  one_ptr[0] = 0;
  EXPECT_EQ(o.spill_ptr, one_ptr);
  EXPECT_EQ(o.window_begin[0], 3);
  EXPECT_EQ(o.window_end[0], 41);
  EXPECT_EQ(to_csr(o), one);
  // Rows of equal length spill nothing, and store no spill arrays.
  EXPECT_TRUE(sell::build(from_lengths(16, std::vector<int>(3000, 5)), spill).spill_ptr.empty());
}

TEST(SellBuild, SpillCapStoresTheTopSliceInTheFewestBytes) {
  offset_type len[32] = {};
  EXPECT_EQ(sell::detail::spill_cap(len, 10, 12, 0), 0);  // empty: width 0, nothing spills
  len[0] = 100;
  EXPECT_EQ(sell::detail::spill_cap(len, 10, 12, 0), 0);  // one row: all of it in the spill
  for (int l = 0; l < 32; ++l) len[l] = 20;
  len[0] = 1000;
  EXPECT_EQ(sell::detail::spill_cap(len, 10, 12, 0), 20);  // one long row over 31 equal ones
  for (int l = 0; l < 32; ++l) len[l] = 64 - l;  // gentle slope: spilling 1 entry per row of 27 costs more
  EXPECT_EQ(sell::detail::spill_cap(len, 10, 12, 0), 64 - 26);
  EXPECT_EQ(sell::detail::spill_cap(len, 12, 12, 0), 64 - 31);  // equal costs: cap at the shortest
  // A row's cost: short excesses stay padded; one very long row still spills.
  EXPECT_EQ(sell::detail::spill_cap(len, 10, 12, 1024), 64);
  len[0] = 2000;
  EXPECT_EQ(sell::detail::spill_cap(len, 10, 12, 1024), 63);
}

TEST(SellBuild, HostSpmvMatchesCsr) {
  const auto a = test::random_csr(300, 250, 0, 30, 17);
  const auto x = test::random_vector<double>(250, 5);
  for (const auto& p : {params(32, 0), params(32, 1), params(64, 128, 2), params(96, 96), params(32, 0, 1, true),
                        params(64, 128, 2, true)}) {
    const auto m = sell::build(a, p);
    std::vector<double> y(300, std::numeric_limits<double>::quiet_NaN()), ref(300, 0.0);
    sell::spmv_reference(sell::traits::view_of(m, [](const auto& v) { return v.data(); }), 0.75, x.data(), 0.0,
                         y.data());
    csr::spmv_host(a, 0.75, x.data(), 0.0, ref.data());
    for (int r = 0; r < 300; ++r) EXPECT_NEAR(y[r], ref[r], 1e-12) << m.stats.params << " row " << r;
  }
}

TEST(SellBuild, RoundTripOnEdgeCases) {
  for (const auto& m : test::edge_case_matrices()) {
    for (const auto& p : {params(32, 0), params(32, 1), params(64, 0, 2), params(128, 256), params(32, 0, 1, true),
                          params(64, 0, 2, true), sell::sell_params{32, 0, 1, true, true, true}}) {
      const auto s = sell::build(m.a, p);
      EXPECT_EQ(to_csr(s), m.a) << m.name << " " << s.stats.params;
      EXPECT_GE(s.stats.padding_ratio, 1.0) << m.name;
      EXPECT_GE(s.stats.n_p, 0) << m.name;
      EXPECT_EQ(s.slice_ptr.back() % s.slice_size, 0) << m.name;
    }
  }
  const auto f = convert_csr<float, index_type>(test::random_csr(999, 999, 1, 12, 5));
  EXPECT_EQ(to_csr(sell::build(f, params(32, 0))), f);
}

TEST(SellBuild, InputIsUntouched) {
  const auto a = test::random_csr(300, 200, 0, 9, 3);
  const auto copy = a;
  (void)sell::build(a, params(32, 64));
  EXPECT_EQ(a, copy);
}

}  // namespace
}  // namespace distspmv
