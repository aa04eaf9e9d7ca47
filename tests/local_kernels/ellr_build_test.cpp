// ELLR-T build tests: exact stripe layout with sentinel padding, the overflow tail, statistics
// against hand counts, the T rule, and CSR -> ELLR-T -> CSR on the edge-case matrices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/ellr/ellr.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv {
namespace {

/// Rows of the given lengths, columns 0, 1, 2, ... and values 1.
csr_matrix<double, index_type> from_lengths(global_index_type cols, const std::vector<int>& lengths) {
  test::row_entries rows;
  for (int len : lengths) {
    rows.emplace_back();
    for (int k = 0; k < len; ++k) rows.back().push_back({k, 1.0});
  }
  return test::from_rows(cols, rows);
}

// The picture of ellr.hpp: rows with 4, 3, 1 and 3 entries.
csr_matrix<double, index_type> picture() {
  return test::from_rows(6, {{{0, 1}, {1, 2}, {2, 3}, {3, 4}}, {{1, 5}, {3, 6}, {5, 7}}, {{4, 8}}, {{0, 9}, {2, 10}, {5, 11}}});
}

/// T threads per row and 32-bit columns (the layout tests), or 16-bit offsets where they fit.
ellr::ellr_params with_t(int t, bool column_offsets = false) {
  ellr::ellr_params p;
  p.threads_per_row = t;
  p.column_offsets = column_offsets;
  return p;
}

TEST(EllrBuild, StripeLayoutT2MatchesThePicture) {
  const auto m = ellr::build(picture(), with_t(2));
  EXPECT_EQ(m.threads_per_row, 2);
  EXPECT_EQ(m.width, 4);
  EXPECT_EQ(m.rows_padded, 32);
  EXPECT_EQ(m.row_length, (std::vector<index_type>{4, 3, 1, 3}));
  // stripe = 32 rows x 2 = 64 entries; two stripes. Padding: the row's last column, value 0;
  // rows 4..31: column 0, value 0.
  std::vector<index_type> cols(128, 0);
  std::vector<double> vals(128, 0.0);
  const std::vector<index_type> c0 = {0, 1, 1, 3, 4, 4, 0, 2}, c1 = {2, 3, 5, 5, 4, 4, 5, 5};
  const std::vector<double> v0 = {1, 2, 5, 6, 8, 0, 9, 10}, v1 = {3, 4, 7, 0, 0, 0, 11, 0};
  for (int i = 0; i < 8; ++i) {
    cols[i] = c0[i];
    vals[i] = v0[i];
    cols[64 + i] = c1[i];
    vals[64 + i] = v1[i];
  }
  EXPECT_EQ(m.col_idx, cols);
  EXPECT_EQ(m.values, vals);
  EXPECT_TRUE(m.tail_rows.empty());
  EXPECT_EQ(m.tail_ptr, (std::vector<offset_type>{0}));
}

TEST(EllrBuild, ColumnOffsetsT2MatchThePicture) {
  // The picture's columns as col - row, padding 0 (also in rows 4..31), and no 32-bit columns.
  const auto m = ellr::build(picture(), with_t(2, true));
  EXPECT_TRUE(m.col_idx.empty());
  std::vector<std::int16_t> offsets(128, 0);
  const std::vector<std::int16_t> o0 = {0, 1, 0, 2, 2, 0, -3, -1}, o1 = {2, 3, 4, 0, 0, 0, 2, 0};
  for (int i = 0; i < 8; ++i) {
    offsets[i] = o0[i];
    offsets[64 + i] = o1[i];
  }
  EXPECT_EQ(m.col_offset, offsets);
  EXPECT_EQ(to_csr(m), picture());
  EXPECT_NE(m.stats.params.find("col16"), std::string::npos);
  EXPECT_EQ(m.stats.stored_bytes, 128u * (sizeof(double) + sizeof(std::int16_t)) + 4u * sizeof(index_type) +
                                      sizeof(offset_type));
  EXPECT_EQ(ellr::build(picture(), with_t(2)).stats.stored_bytes,
            128u * (sizeof(double) + sizeof(index_type)) + 4u * sizeof(index_type) + sizeof(offset_type));
}

TEST(EllrBuild, ColumnOffsetsOnlyWhereEveryEllEntryFits) {
  // Row 1 reaches `right` columns beyond itself: 32767 fits an int16, 32768 does not, and then
  // every row keeps 32-bit columns. Row 2's 40000 columns leftwards sit in the tail, which keeps
  // 32-bit columns and does not count.
  for (const auto& [right, fits] : std::vector<std::pair<index_type, bool>>{{32767, true}, {32768, false}}) {
    test::row_entries rows = {{{0, 1.0}}, {{1, 2.0}, {1 + right, 3.0}}, {{5, 4.0}}, {{3, 5.0}}};
    const auto a = test::from_rows(40000, rows);
    const auto m = ellr::build(a, with_t(1, true));
    EXPECT_EQ(m.col_offset.empty(), !fits) << right;
    EXPECT_EQ(m.col_idx.empty(), fits) << right;
    EXPECT_EQ(to_csr(m), a);
    const auto x = test::random_vector<double>(40000, 3);
    std::vector<double> y(4, std::numeric_limits<double>::quiet_NaN()), ref(4, 0.0);
    ellr::spmv_reference(ellr::traits::view_of(m, [](const auto& v) { return v.empty() ? nullptr : v.data(); }), 2.0,
                         x.data(), 0.0, y.data());
    csr::spmv_host(a, 2.0, x.data(), 0.0, ref.data());
    for (int r = 0; r < 4; ++r) EXPECT_EQ(y[r], ref[r]) << "row " << r;
  }
  ellr::ellr_params tail = with_t(1, true);
  tail.overflow_padding_ratio = 1.0;
  tail.overflow_min_entries = 0;
  test::row_entries rows(6, {{0, 1.0}});
  for (index_type c = 1; c < 5; ++c) rows[2].push_back({39990 + c, 1.0});
  for (global_index_type r = 0; r < 6; ++r) rows[r][0].first = static_cast<index_type>(r);
  const auto a = test::from_rows(40000, rows);
  const auto m = ellr::build(a, tail);
  ASSERT_EQ(m.tail_rows, (std::vector<index_type>{2}));
  EXPECT_FALSE(m.col_offset.empty());
  EXPECT_EQ(to_csr(m), a);
}

TEST(EllrBuild, T1IsColumnMajorEll) {
  const auto m = ellr::build(picture(), with_t(1));
  EXPECT_EQ(m.width, 4);
  ASSERT_EQ(m.col_idx.size(), 4u * 32u);
  // entry k of row r at k * 32 + r
  const std::vector<std::vector<index_type>> cols = {{0, 1, 4, 0}, {1, 3, 4, 2}, {2, 5, 4, 5}, {3, 5, 4, 5}};
  const std::vector<std::vector<double>> vals = {{1, 5, 8, 9}, {2, 6, 0, 10}, {3, 7, 0, 11}, {4, 0, 0, 0}};
  for (int k = 0; k < 4; ++k)
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(m.col_idx[k * 32 + r], cols[k][r]) << "k " << k << " row " << r;
      EXPECT_EQ(m.values[k * 32 + r], vals[k][r]) << "k " << k << " row " << r;
    }
  for (int k = 0; k < 4; ++k)
    for (int r = 4; r < 32; ++r) EXPECT_EQ(m.col_idx[k * 32 + r], 0);
}

TEST(EllrBuild, WidthIsRoundedUpToT) {
  const auto m = ellr::build(picture(), with_t(8));
  EXPECT_EQ(m.width, 8);
  EXPECT_EQ(m.col_idx.size(), 32u * 8u);
  EXPECT_EQ(to_csr(m), picture());
}

TEST(EllrBuild, StatisticsMatchHandCount) {
  // 40 rows: row r < 32 has r % 5 entries (warp 0 max 4); rows 32..39 have 1 entry except row
  // 35 with 7 (warp 1 max 7).
  std::vector<int> lengths(40, 1);
  for (int r = 0; r < 32; ++r) lengths[r] = r % 5;
  lengths[35] = 7;
  const auto a = from_lengths(10, lengths);
  const offset_type nnz = a.nnz();

  const auto t1 = ellr::build(a, with_t(1));
  EXPECT_EQ(t1.stats.n_iter, 4 + 7);  // eq. 1
  EXPECT_EQ(t1.stats.n_p, 11 * 32 - nnz);
  EXPECT_DOUBLE_EQ(t1.stats.padding_ratio, 64.0 * 7 / static_cast<double>(nnz));
  EXPECT_EQ(t1.stats.stored_bytes, 64u * 7u * (sizeof(double) + sizeof(index_type)) + 40u * sizeof(index_type) +
                                       sizeof(offset_type));
  EXPECT_GE(t1.stats.padding_ratio, 1.0);

  // T = 2: warps of 16 rows: rows 0-15 max ceil(4/2) = 2, rows 16-31: 2, rows 32-39: ceil(7/2) = 4.
  const auto t2 = ellr::build(a, with_t(2));
  EXPECT_EQ(t2.width, 8);
  EXPECT_EQ(t2.stats.n_iter, 2 + 2 + 4);
  EXPECT_EQ(t2.stats.n_p, 8 * 32 - nnz);
  EXPECT_NE(t2.stats.params.find("T=2"), std::string::npos);
}

TEST(EllrBuild, ThreadsPerRowRule) {
  EXPECT_EQ(ellr::threads_per_row_for(0.0), 1);
  EXPECT_EQ(ellr::threads_per_row_for(7.0), 1);   // 7-point stencil
  EXPECT_EQ(ellr::threads_per_row_for(12.0), 2);
  EXPECT_EQ(ellr::threads_per_row_for(27.0), 4);  // 27-point stencil
  EXPECT_EQ(ellr::threads_per_row_for(47.9), 4);
  EXPECT_EQ(ellr::threads_per_row_for(500.0), 8);
  EXPECT_EQ(ellr::threads_per_row_for(14.3, 2.24), 4);  // cage11: uneven rows, one doubling more
  EXPECT_EQ(ellr::threads_per_row_for(14.3, 1.9), 2);
  EXPECT_EQ(ellr::threads_per_row_for(7.0, 3.0), 1);    // short rows keep a thread each
  EXPECT_EQ(ellr::threads_per_row_for(500.0, 3.0), 8);  // 8 stays the cap
  // Small blocks: T doubles while the longest row needs more than one trip of 4 stripes and the
  // threads fit one wave.
  EXPECT_EQ(ellr::threads_per_row_for(20.5, 1.8, 3251, 37), 8);     // ex14: 19 stripes at T = 2
  EXPECT_EQ(ellr::threads_per_row_for(14.3, 2.17, 39082, 31), 4);   // cage11: 8 x 39082 threads pass a wave
  EXPECT_EQ(ellr::threads_per_row_for(3.9, 1.03, 62032, 4), 1);     // wing: one trip already
  EXPECT_EQ(ellr::threads_per_row_for(9.0, 1.3, 4000, 12), 4);      // 12 entries: 3 stripes at T = 4
  EXPECT_EQ(ellr::threads_per_row_for(9.0, 1.3, 200000, 12), 1);    // too many rows to double
  const auto m = ellr::build(picture(), ellr::ellr_params{});  // mean 2.75
  EXPECT_EQ(m.threads_per_row, 1);
}

TEST(EllrBuild, LongRowGoesToTheTail) {
  // Five rows of 1 entry and one of 10: plain ELL would store 32 x 10 for 15 entries.
  ellr::ellr_params p = with_t(1);
  p.overflow_padding_ratio = 1.5;
  p.overflow_min_entries = 0;
  const auto a = from_lengths(12, {1, 1, 1, 1, 1, 10});
  const auto m = ellr::build(a, p);
  EXPECT_EQ(m.width, 1);  // at least a third of the rows (2) have >= 1 entry, not >= 10
  EXPECT_EQ(m.row_length, (std::vector<index_type>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(m.tail_rows, (std::vector<index_type>{5}));
  EXPECT_EQ(m.tail_ptr, (std::vector<offset_type>{0, 9}));
  EXPECT_EQ(m.tail_col_idx, (std::vector<index_type>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(to_csr(m), a);
  // n_iter: one warp of ELL (max rl 1) + ceil(9 / 32) for the tail row.
  EXPECT_EQ(m.stats.n_iter, 2);
  EXPECT_DOUBLE_EQ(m.stats.padding_ratio, (32.0 + 9.0) / 15.0);
  EXPECT_NE(m.stats.params.find("tail_rows=1"), std::string::npos);

  // The default limits keep small matrices plain.
  EXPECT_TRUE(ellr::build(a, with_t(1)).tail_rows.empty());
}

TEST(EllrBuild, HostSpmvWithTailMatchesCsr) {
  ellr::ellr_params p = with_t(2);
  p.overflow_padding_ratio = 1.5;
  p.overflow_min_entries = 0;
  const auto a = test::random_csr(100, 80, 0, 3, 42);
  auto b = a;  // give row 17 all 80 columns
  {
    csr_matrix<double, index_type> c;
    c.rows = a.rows;
    c.cols = a.cols;
    for (global_index_type r = 0; r < a.rows; ++r) {
      if (r == 17) {
        for (index_type k = 0; k < 80; ++k) {
          c.col_idx.push_back(k);
          c.values.push_back(0.25 * (k % 7) - 0.5);
        }
      } else {
        for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
          c.col_idx.push_back(a.col_idx[k]);
          c.values.push_back(a.values[k]);
        }
      }
      c.row_ptr.push_back(static_cast<offset_type>(c.col_idx.size()));
    }
    b = c;
  }
  const auto m = ellr::build(b, p);
  ASSERT_FALSE(m.tail_rows.empty());
  const auto x = test::random_vector<double>(80, 7);
  std::vector<double> y(100, std::numeric_limits<double>::quiet_NaN()), ref(100, 0.0);
  ellr::spmv_reference(ellr::traits::view_of(m, [](const auto& v) { return v.data(); }), 1.5, x.data(), 0.0,
                       y.data());
  csr::spmv_host(b, 1.5, x.data(), 0.0, ref.data());
  for (int r = 0; r < 100; ++r) EXPECT_NEAR(y[r], ref[r], 1e-12) << "row " << r;
}

TEST(EllrBuild, RejectsBadThreadsPerRow) {
  EXPECT_THROW(ellr::build(picture(), with_t(3)), bad_input);
  EXPECT_THROW(ellr::build(picture(), with_t(16)), bad_input);
}

TEST(EllrBuild, RoundTripOnEdgeCases) {
  for (const auto& m : test::edge_case_matrices()) {
    for (int t : {0, 1, 2, 4, 8}) {
      const auto e = ellr::build(m.a, with_t(t));
      EXPECT_EQ(to_csr(e), m.a) << m.name << " T=" << t;
      EXPECT_EQ(to_csr(ellr::build(m.a, with_t(t, true))), m.a) << m.name << " T=" << t << " 16-bit offsets";
      EXPECT_GE(e.stats.padding_ratio, 1.0) << m.name;
      EXPECT_GE(e.stats.n_p, 0) << m.name;
      // padding never exceeds the limits' reach: no matrix here stores more than 8 x nnz + 2^22
      EXPECT_LE(static_cast<double>(e.col_idx.size()), 8.0 * static_cast<double>(m.a.nnz()) + (1 << 22) + 32.0 * 8)
          << m.name;
    }
  }
  const auto f = convert_csr<float, index_type>(test::random_csr(999, 999, 1, 12, 5));
  EXPECT_EQ(to_csr(ellr::build(f, with_t(4))), f);
}

TEST(EllrBuild, InputIsUntouched) {
  const auto a = test::random_csr(300, 200, 0, 9, 3);
  const auto copy = a;
  (void)ellr::build(a, with_t(4));
  EXPECT_EQ(a, copy);
}

}  // namespace
}  // namespace distspmv
