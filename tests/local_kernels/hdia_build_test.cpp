// HDIA build tests (STYLE.md §6, tier 2): exact arrays on tiny matrices (slots without an entry
// hold 0), CSR -> HDIA -> CSR where HDIA accepts, the refusals, statistics, host SpMV.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

// The matrix of the picture in hdia.hpp: a..m = 1..13.
csr_matrix<double, index_type> picture_matrix() {
  return test::from_rows(6, {{{0, 1}, {1, 2}},
                             {{0, 3}, {1, 4}, {2, 5}},
                             {{1, 6}, {2, 7}, {3, 8}},
                             {{2, 9}, {3, 10}},
                             {{4, 11}, {5, 12}},
                             {{5, 13}}});
}

TEST(HdiaBuild, OneHackHasExactDiagonalsAndValues) {
  const auto m = hdia::build(picture_matrix(), hdia::hdia_params{});
  EXPECT_EQ(m.hack_size, 32);
  EXPECT_EQ(m.hack_offsets, (std::vector<offset_type>{0, 3}));
  EXPECT_EQ(m.diag_offsets, (std::vector<index_type>{-1, 0, 1}));
  std::vector<double> expected(3 * 32, 0.0);
  // diagonal -1: rows 1, 2, 3 (row 0 has column -1; rows 4, 5 have no entry there)
  expected[0 * 32 + 1] = 3;
  expected[0 * 32 + 2] = 6;
  expected[0 * 32 + 3] = 9;
  // diagonal 0
  expected[1 * 32 + 0] = 1;
  expected[1 * 32 + 1] = 4;
  expected[1 * 32 + 2] = 7;
  expected[1 * 32 + 3] = 10;
  expected[1 * 32 + 4] = 11;
  expected[1 * 32 + 5] = 13;
  // diagonal +1 (row 5 would be column 6, outside)
  expected[2 * 32 + 0] = 2;
  expected[2 * 32 + 1] = 5;
  expected[2 * 32 + 2] = 8;
  expected[2 * 32 + 4] = 12;
  EXPECT_EQ(m.values, expected);
  EXPECT_EQ(hdia::to_csr(m), picture_matrix());
}

TEST(HdiaBuild, EachHackKeepsOnlyItsOwnDiagonals) {
  // 64 x 64: rows 0..31 tridiagonal, rows 32..63 diagonal only.
  test::row_entries rows(64);
  for (index_type r = 0; r < 64; ++r) {
    if (r < 32 && r > 0) rows[r].push_back({r - 1, -1.0});
    rows[r].push_back({r, 2.0 + r});
    if (r < 32) rows[r].push_back({r + 1, -1.0});
  }
  const auto a = test::from_rows(64, rows);
  const auto m = hdia::build(a, hdia::hdia_params{});
  EXPECT_EQ(m.hack_offsets, (std::vector<offset_type>{0, 3, 4}));
  EXPECT_EQ(m.diag_offsets, (std::vector<index_type>{-1, 0, 1, 0}));
  ASSERT_EQ(m.values.size(), 4u * 32u);
  EXPECT_EQ(m.values[0 * 32 + 0], 0.0);    // row 0 has no column -1
  EXPECT_EQ(m.values[2 * 32 + 31], -1.0);  // row 31, column 32 (in the next hack's columns)
  for (int i = 0; i < 32; ++i) EXPECT_EQ(m.values[3 * 32 + i], 2.0 + 32 + i);
  EXPECT_EQ(hdia::to_csr(m), a);
}

TEST(HdiaBuild, RoundTripsEveryEdgeCaseItAccepts) {
  std::vector<std::string> accepted;
  for (const auto& named : test::edge_case_matrices()) {
    const auto copy = named.a;
    try {
      const auto m = hdia::build(named.a, hdia::hdia_params{});
      EXPECT_EQ(hdia::to_csr(m), named.a) << named.name;
      const auto f = convert_csr<float, index_type>(named.a);
      EXPECT_EQ(hdia::to_csr(hdia::build(f, hdia::hdia_params{})), f) << named.name;
      accepted.push_back(named.name);
    } catch (const bad_input& e) {
      EXPECT_NE(std::string(e.what()).find("HDIA suits matrices with few diagonals"), std::string::npos) << e.what();
    }
    EXPECT_EQ(named.a, copy) << named.name << ": input changed";
  }
  for (const char* name : {"zero_rows", "zero_rows_five_cols", "all_rows_empty", "single_entry",
                           "banded_five_diagonals", "diagonal_33"})
    EXPECT_NE(std::find(accepted.begin(), accepted.end(), name), accepted.end()) << name << " refused";
  for (const char* name : {"odd_999", "odd_50007", "power_law"})
    EXPECT_EQ(std::find(accepted.begin(), accepted.end(), name), accepted.end()) << name << " accepted";
}

TEST(HdiaBuild, RefusesTooManyDiagonalsNamingCountAndLimit) {
  const auto a = test::random_csr(999, 999, 1, 12, 5);
  try {
    hdia::build(a, hdia::hdia_params{});
    FAIL() << "HDIA accepted a random matrix";
  } catch (const bad_input& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("hack 0"), std::string::npos) << what;
    EXPECT_NE(what.find("diagonals, more than the limit of 128 per hack"), std::string::npos) << what;
  }
}

TEST(HdiaBuild, RefusesExplodingPaddingNamingRatioAndLimit) {
  // 64 rows, one entry each on 32 different diagonals per hack: 32 slots per nonzero.
  test::row_entries rows(64);
  for (index_type r = 0; r < 64; ++r) rows[r] = {{(r * 7) % 64, 1.0}};
  try {
    hdia::build(test::from_rows(64, rows), hdia::hdia_params{});
    FAIL() << "HDIA accepted 32x padding";
  } catch (const bad_input& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("limit 3.00x"), std::string::npos) << what;
    EXPECT_NE(what.find("distinct diagonals"), std::string::npos) << what;
  }
  hdia::hdia_params loose;
  loose.max_padding_ratio = 40;
  EXPECT_NO_THROW(hdia::build(test::from_rows(64, rows), loose));
}

TEST(HdiaBuild, RejectsBadParameters) {
  hdia::hdia_params p;
  p.hack_size = 16;
  EXPECT_THROW(hdia::build(picture_matrix(), p), bad_input);
  p = {};
  p.max_diagonals_per_hack = 0;
  EXPECT_THROW(hdia::build(picture_matrix(), p), bad_input);
}

TEST(HdiaBuild, StatisticsDescribeTheLayout) {
  const auto m = hdia::build(picture_matrix(), hdia::hdia_params{});
  EXPECT_EQ(m.stats.stored_bytes, 2 * sizeof(offset_type) + 3 * sizeof(index_type) + 96 * sizeof(double));
  EXPECT_DOUBLE_EQ(m.stats.padding_ratio, 96.0 / 13.0);
  EXPECT_EQ(m.stats.n_iter, 3);
  EXPECT_EQ(m.stats.n_p, 3 * 32 - 13);
  for (const auto& named : test::edge_case_matrices()) {
    if (named.name != "banded_five_diagonals") continue;
    const auto b = hdia::build(named.a, hdia::hdia_params{});
    EXPECT_LT(b.stats.padding_ratio, 1.1);  // 5 diagonals in every hack
    // 313 hacks of 5 diagonals, except the 9 first and 9 last hacks, where the +-300 diagonal
    // lies outside the matrix for all 32 rows; one warp per hack.
    EXPECT_EQ(b.hack_offsets.back(), 5 * 313 - 18);
    EXPECT_EQ(b.stats.n_iter, b.hack_offsets.back());
    EXPECT_NE(b.stats.params.find("max_diagonals_in_a_hack=5"), std::string::npos) << b.stats.params;
  }
}

TEST(HdiaReference, MatchesCsrSkippingColumnsOutsideTheMatrix) {
  for (const auto& named : test::edge_case_matrices()) {
    if (named.name != "banded_five_diagonals" && named.name != "diagonal_33") continue;
    const auto& a = named.a;
    const auto m = hdia::build(a, hdia::hdia_params{});
    const auto v = hdia::traits::view_of(m, [](const auto& vec) { return vec.data(); });
    std::vector<double> x(a.cols);
    for (global_index_type i = 0; i < a.cols; ++i) x[i] = std::cos(0.01 * i);
    std::vector<double> y(a.rows, std::numeric_limits<double>::quiet_NaN()), ref(a.rows);
    hdia::spmv_reference(v, 2.0, x.data(), 0.0, y.data());
    csr::spmv_host(a, 2.0, x.data(), 0.0, ref.data());
    for (global_index_type r = 0; r < a.rows; ++r) ASSERT_NEAR(y[r], ref[r], 1e-12) << named.name << " row " << r;
    std::vector<double> y2(a.rows, 1.0), ref2(a.rows, 1.0);
    hdia::spmv_reference(v, 2.0, x.data(), -3.0, y2.data());
    csr::spmv_host(a, 2.0, x.data(), -3.0, ref2.data());
    for (global_index_type r = 0; r < a.rows; ++r) ASSERT_NEAR(y2[r], ref2[r], 1e-12) << named.name << " row " << r;
  }
}

TEST(HdiaFloatValues, StoresTheSlotsInFloatAndMultipliesInDouble) {
  const auto a = picture_matrix();
  hdia::hdia_params p;
  p.hack_size = 32;
  p.float_values = true;
  const auto m = hdia::build(a, p);
  const auto plain = hdia::build(a, hdia::hdia_params{});
  EXPECT_TRUE(m.values.empty());
  ASSERT_EQ(m.values_f32.size(), plain.values.size());
  EXPECT_EQ(m.stats.stored_bytes, plain.stats.stored_bytes - 4 * plain.values.size());
  EXPECT_NE(m.stats.params.find("float-values"), std::string::npos) << m.stats.params;
  EXPECT_EQ(hdia::to_csr(m).values, hdia::to_csr(plain).values);  // 1..13 are exact in float
  const auto v = hdia::traits::view_of(m, [](const auto& vec) { return vec.data(); });
  EXPECT_EQ(v.values, nullptr);
  std::vector<double> x(6), y(6), ref(6);
  for (int i = 0; i < 6; ++i) x[i] = 1.0 / (i + 3);  // not exact in float: the sums stay double
  hdia::spmv_reference(v, 1.0, x.data(), 0.0, y.data());
  csr::spmv_host(a, 1.0, x.data(), 0.0, ref.data());
  EXPECT_EQ(y, ref);
  // No effect in float.
  EXPECT_TRUE(hdia::build(convert_csr<float, index_type>(a), p).values_f32.empty());
}

TEST(HdiaFloatValues, AValueBeyondFloatsRangeIsBadInputNamingItsRow) {
  auto a = picture_matrix();
  a.values[a.row_ptr[3]] = 1e39;  // row 3's first entry
  hdia::hdia_params p;
  p.float_values = true;
  try {
    hdia::build(a, p);
    FAIL() << "no bad_input";
  } catch (const bad_input& e) {
    EXPECT_NE(std::string(e.what()).find("of row 3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distspmv
