// COO -> CSR: counting sort on rows, stable per-row column sort, duplicates summed in the
// order the triplets came.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "io/coo.hpp"

namespace distspmv::io {
namespace {

coo_matrix make_coo(global_index_type rows, global_index_type cols,
                    std::vector<std::pair<global_index_type, global_index_type>> rc, std::vector<double> val) {
  coo_matrix c;
  c.rows = rows;
  c.cols = cols;
  for (const auto& [r, k] : rc) {
    c.row.push_back(r);
    c.col.push_back(k);
  }
  c.val = std::move(val);
  return c;
}

/// Reference: a sorted map summing duplicates in input order.
csr_matrix<double> reference_csr(const coo_matrix& c) {
  std::map<std::pair<global_index_type, global_index_type>, double> m;
  for (std::size_t k = 0; k < c.row.size(); ++k) {
    auto [it, fresh] = m.try_emplace({c.row[k], c.col[k]}, c.val[k]);
    if (!fresh) it->second += c.val[k];
  }
  csr_matrix<double> a;
  a.rows = c.rows;
  a.cols = c.cols;
  a.row_ptr.assign(static_cast<std::size_t>(c.rows) + 1, 0);
  for (const auto& [rc, v] : m) {
    ++a.row_ptr[rc.first + 1];
    a.col_idx.push_back(rc.second);
    a.values.push_back(v);
  }
  for (global_index_type r = 0; r < c.rows; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
  return a;
}

TEST(CooToCsr, EmptyTripletsGiveEmptyRows) {
  const auto a = coo_to_csr(make_coo(3, 5, {}, {}));
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.cols, 5);
  EXPECT_EQ(a.row_ptr, (std::vector<offset_type>{0, 0, 0, 0}));
  EXPECT_TRUE(a.col_idx.empty());
  EXPECT_TRUE(a.values.empty());
  const auto z = coo_to_csr(make_coo(0, 0, {}, {}));
  EXPECT_EQ(z.row_ptr, (std::vector<offset_type>{0}));
}

TEST(CooToCsr, UnsortedTripletsGiveRowsInOrderAndSortedColumns) {
  const auto a = coo_to_csr(make_coo(3, 4, {{2, 3}, {0, 3}, {2, 0}, {0, 1}, {1, 2}}, {1, 2, 3, 4, 5}));
  EXPECT_EQ(a.row_ptr, (std::vector<offset_type>{0, 2, 3, 5}));
  EXPECT_EQ(a.col_idx, (std::vector<global_index_type>{1, 3, 2, 0, 3}));
  EXPECT_EQ(a.values, (std::vector<double>{4, 2, 5, 3, 1}));
}

TEST(CooToCsr, DuplicatesAreSummedInInputOrder) {
  // 1e16 + 1 - 1e16 is 0 in doubles; summing in input order gives exactly that, and the
  // per-row sort must not reorder equal columns.
  const auto a = coo_to_csr(make_coo(2, 2, {{1, 1}, {0, 0}, {1, 1}, {0, 1}, {1, 1}, {0, 0}}, {1e16, 2, 1, 7, -1e16, 3}));
  EXPECT_EQ(a.row_ptr, (std::vector<offset_type>{0, 2, 3}));
  EXPECT_EQ(a.col_idx, (std::vector<global_index_type>{0, 1, 1}));
  EXPECT_EQ(a.values, (std::vector<double>{5, 7, 0}));
}

TEST(CooToCsr, EmptyRowsBetweenFullOnesKeepEqualPointers) {
  const auto a = coo_to_csr(make_coo(5, 2, {{4, 1}, {0, 0}}, {2, 1}));
  EXPECT_EQ(a.row_ptr, (std::vector<offset_type>{0, 1, 1, 1, 1, 2}));
}

TEST(CooToCsr, LongShuffledRowWithDuplicatesMatchesReference) {
  // Longer than the insertion-sort limit, so the stable_sort path runs.
  std::mt19937_64 rng(5);
  coo_matrix c;
  c.rows = 3;
  c.cols = 1000;
  for (int k = 0; k < 3000; ++k) {
    c.row.push_back(1);
    c.col.push_back(static_cast<global_index_type>(rng() % 700));
    c.val.push_back(static_cast<double>(rng() % 1000) / 8.0 - 60.0);
  }
  const auto expected = reference_csr(c);
  EXPECT_TRUE(coo_to_csr(std::move(c)) == expected);
}

TEST(CooToCsr, RandomTripletsMatchReference) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    coo_matrix c;
    c.rows = static_cast<global_index_type>(rng() % 60 + 1);
    c.cols = static_cast<global_index_type>(rng() % 60 + 1);
    const int n = static_cast<int>(rng() % 500);
    for (int k = 0; k < n; ++k) {
      c.row.push_back(static_cast<global_index_type>(rng() % static_cast<std::uint64_t>(c.rows)));
      c.col.push_back(static_cast<global_index_type>(rng() % static_cast<std::uint64_t>(c.cols)));
      c.val.push_back(static_cast<double>(rng() % 64) - 32.0);
    }
    const auto expected = reference_csr(c);
    const auto a = coo_to_csr(std::move(c));
    EXPECT_TRUE(a == expected) << "seed " << seed;
    EXPECT_NO_THROW(validate_csr(a, "coo_to_csr"));
  }
}

TEST(CooToCsr, ConsumesTheTriplets) {
  coo_matrix c = make_coo(2, 2, {{0, 0}, {1, 1}}, {1, 2});
  const auto a = coo_to_csr(std::move(c));
  EXPECT_EQ(a.nnz(), 2);
  EXPECT_TRUE(c.row.empty());
  EXPECT_TRUE(c.col.empty());
  EXPECT_TRUE(c.val.empty());
}

TEST(CooToCsr, OutOfRangeIndexThrowsInsteadOfWritingOutOfBounds) {
  EXPECT_THROW(coo_to_csr(make_coo(2, 2, {{2, 0}}, {1})), error);
  EXPECT_THROW(coo_to_csr(make_coo(2, 2, {{0, -1}}, {1})), error);
  EXPECT_THROW(coo_to_csr(make_coo(2, 2, {{-1, 0}}, {1})), error);
}

TEST(CooToCsr, MismatchedArrayLengthsThrow) {
  EXPECT_THROW(coo_to_csr(make_coo(2, 2, {{0, 0}, {1, 1}}, {1})), error);
}

}  // namespace
}  // namespace distspmv::io
