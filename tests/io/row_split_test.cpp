// Properties of split_rows_by_nnz and split_rows_evenly: the ranges tile [0, rows) in order,
// and the nnz split keeps every boundary within half a row of its ideal prefix i * nnz / k.
#include "io/row_split.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "common/errors.hpp"

namespace distspmv::io {
namespace {

/// The ranges are k contiguous, ordered pieces covering [0, rows).
void expect_tiling(const std::vector<row_range>& ranges, int k, global_index_type rows) {
  ASSERT_EQ(static_cast<int>(ranges.size()), k);
  global_index_type expected_begin = 0;
  for (const auto& r : ranges) {
    EXPECT_EQ(r.begin, expected_begin);
    EXPECT_LE(r.begin, r.end);
    expected_begin = r.end;
  }
  EXPECT_EQ(expected_begin, rows);
}

std::vector<offset_type> prefix(const std::vector<offset_type>& lengths) {
  std::vector<offset_type> ptr(lengths.size() + 1, 0);
  for (std::size_t r = 0; r < lengths.size(); ++r) ptr[r + 1] = ptr[r] + lengths[r];
  return ptr;
}

/// Each interior boundary's prefix lies within half the longest row of its target i * nnz / k.
void expect_balanced(const std::vector<offset_type>& ptr, const std::vector<row_range>& ranges) {
  const int k = static_cast<int>(ranges.size());
  const offset_type nnz = ptr.back();
  offset_type longest = 0;
  for (std::size_t r = 0; r + 1 < ptr.size(); ++r) longest = std::max(longest, ptr[r + 1] - ptr[r]);
  for (int i = 1; i < k; ++i) {
    const double target = static_cast<double>(nnz) * i / k;
    const double at = static_cast<double>(ptr[ranges[i].begin]);
    EXPECT_LE(2.0 * std::abs(at - target), static_cast<double>(longest) + 2.0) << "boundary " << i;
  }
  for (const auto& r : ranges)
    EXPECT_LE(ptr[r.end] - ptr[r.begin], nnz / k + longest + 1) << "range [" << r.begin << ", " << r.end << ")";
}

TEST(SplitRowsEvenly, FirstRemainderRangesGetOneMore) {
  const auto ranges = split_rows_evenly(10, 4);
  expect_tiling(ranges, 4, 10);
  EXPECT_EQ(ranges[0], (row_range{0, 3}));
  EXPECT_EQ(ranges[1], (row_range{3, 6}));
  EXPECT_EQ(ranges[2], (row_range{6, 8}));
  EXPECT_EQ(ranges[3], (row_range{8, 10}));
}

TEST(SplitRowsEvenly, MoreRangesThanRowsLeavesTrailingRangesEmpty) {
  const auto ranges = split_rows_evenly(2, 5);
  expect_tiling(ranges, 5, 2);
  EXPECT_EQ(ranges[0].size(), 1);
  EXPECT_EQ(ranges[1].size(), 1);
  for (int i = 2; i < 5; ++i) EXPECT_EQ(ranges[i].size(), 0);
}

TEST(SplitRowsEvenly, ZeroRowsAndBadArguments) {
  expect_tiling(split_rows_evenly(0, 3), 3, 0);
  EXPECT_THROW(split_rows_evenly(5, 0), error);
  EXPECT_THROW(split_rows_evenly(-1, 2), error);
}

TEST(SplitRowsByNnz, UniformRowsSplitLikeEvenly) {
  const auto ptr = prefix(std::vector<offset_type>(12, 3));
  const auto ranges = split_rows_by_nnz(ptr, 4);
  expect_tiling(ranges, 4, 12);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ranges[i], (row_range{3 * i, 3 * i + 3}));
}

TEST(SplitRowsByNnz, HeavyRowsGetFewerRowsPerRange) {
  // Rows 0..3 hold 10 each, rows 4..19 hold 1 each: 56 nonzeros, 28 per half.
  std::vector<offset_type> lengths(20, 1);
  for (int r = 0; r < 4; ++r) lengths[r] = 10;
  const auto ptr = prefix(lengths);
  const auto ranges = split_rows_by_nnz(ptr, 2);
  expect_tiling(ranges, 2, 20);
  EXPECT_EQ(ranges[0], (row_range{0, 3}));  // prefix 30 is nearer 28 than 20
  expect_balanced(ptr, ranges);
}

TEST(SplitRowsByNnz, KOneIsTheWholeMatrix) {
  const auto ptr = prefix({4, 0, 2, 7});
  const auto ranges = split_rows_by_nnz(ptr, 1);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0], (row_range{0, 4}));
}

TEST(SplitRowsByNnz, MoreRangesThanRows) {
  const auto ptr = prefix({5, 5, 5});
  const auto ranges = split_rows_by_nnz(ptr, 7);
  expect_tiling(ranges, 7, 3);
  int non_empty = 0;
  for (const auto& r : ranges) {
    EXPECT_LE(r.size(), 1);
    non_empty += r.size() > 0;
  }
  EXPECT_EQ(non_empty, 3);
}

TEST(SplitRowsByNnz, ZeroRows) {
  const auto ranges = split_rows_by_nnz({0}, 3);
  expect_tiling(ranges, 3, 0);
}

TEST(SplitRowsByNnz, ZeroNonzerosSpreadsRowsEvenly) {
  const auto ranges = split_rows_by_nnz(std::vector<offset_type>(11, 0), 3);
  EXPECT_EQ(ranges, split_rows_evenly(10, 3));
}

TEST(SplitRowsByNnz, OneGiantRowLandsInOneRange) {
  const auto ptr = prefix({1, 0, 1000, 0, 1});
  const auto ranges = split_rows_by_nnz(ptr, 4);
  expect_tiling(ranges, 4, 5);
  int holders = 0;
  for (const auto& r : ranges) holders += r.begin <= 2 && 2 < r.end;
  EXPECT_EQ(holders, 1);
  expect_balanced(ptr, ranges);
}

TEST(SplitRowsByNnz, RejectsBadArguments) {
  EXPECT_THROW(split_rows_by_nnz({0, 1}, 0), error);
  EXPECT_THROW(split_rows_by_nnz({}, 2), error);
}

TEST(SplitRowsByNnz, RandomRowLengthsAreBalanced) {
  std::mt19937_64 rng(20240611);
  for (int trial = 0; trial < 300; ++trial) {
    const int rows = std::uniform_int_distribution<int>(0, 200)(rng);
    const int k = std::uniform_int_distribution<int>(1, 40)(rng);
    std::vector<offset_type> lengths(rows);
    // Mostly short rows, some empty, a few long ones (power-law-like graphs).
    for (auto& l : lengths) {
      const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
      l = kind < 2 ? 0 : kind < 9 ? std::uniform_int_distribution<int>(1, 8)(rng)
                                  : std::uniform_int_distribution<int>(50, 500)(rng);
    }
    const auto ptr = prefix(lengths);
    const auto ranges = split_rows_by_nnz(ptr, k);
    SCOPED_TRACE("trial " + std::to_string(trial) + " rows " + std::to_string(rows) + " k " + std::to_string(k));
    expect_tiling(ranges, k, rows);
    if (ptr.back() > 0) expect_balanced(ptr, ranges);
  }
}

TEST(SplitRowsByNnz, HugeCountsDoNotOverflow) {
  // Two rows of 2^61 nonzeros each: i * nnz would overflow int64 for i >= 2.
  const offset_type big = offset_type{1} << 61;
  const std::vector<offset_type> ptr{0, big, 2 * big};
  const auto ranges = split_rows_by_nnz(ptr, 4);
  expect_tiling(ranges, 4, 2);
  EXPECT_EQ(ranges[1].end, 1);  // the target 2^61 is exactly the first row's end
}

}  // namespace
}  // namespace distspmv::io
