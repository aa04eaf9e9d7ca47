// Locality orderings of a rank's rows (partition/ordering.hpp): permutations, degree order
// non-increasing and stable, RCM shrinking the bandwidth of scrambled paths and grids.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "io/generators.hpp"
#include "partition/ordering.hpp"

namespace distspmv::partition {
namespace {

bool is_permutation_of_rows(const std::vector<global_index_type>& order, global_index_type n) {
  if (static_cast<global_index_type>(order.size()) != n) return false;
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (global_index_type r : order) {
    if (r < 0 || r >= n || seen[r]) return false;
    seen[r] = 1;
  }
  return true;
}

/// `a` with rows and columns renamed by a random permutation (a scrambled numbering).
csr_matrix<double> scrambled(const csr_matrix<double>& a, unsigned seed) {
  std::vector<global_index_type> order(static_cast<std::size_t>(a.rows));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  const auto new_id = inverse_permutation(order);
  csr_matrix<double> b;
  b.rows = b.cols = a.rows;
  for (global_index_type k = 0; k < a.rows; ++k) {
    const global_index_type r = order[k];
    std::vector<global_index_type> cols;
    for (offset_type e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) cols.push_back(new_id[a.col_idx[e]]);
    std::sort(cols.begin(), cols.end());
    b.col_idx.insert(b.col_idx.end(), cols.begin(), cols.end());
    b.row_ptr.push_back(static_cast<offset_type>(b.col_idx.size()));
  }
  b.values.assign(b.col_idx.size(), 1.0);
  return b;
}

/// A path 0 - 1 - ... - n-1 (tridiagonal pattern).
csr_matrix<double> path(global_index_type n) {
  csr_matrix<double> a;
  a.rows = a.cols = n;
  for (global_index_type r = 0; r < n; ++r) {
    for (global_index_type c = std::max<global_index_type>(0, r - 1); c <= std::min(n - 1, r + 1); ++c)
      a.col_idx.push_back(c);
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  a.values.assign(a.col_idx.size(), 1.0);
  return a;
}

TEST(DegreeOrder, IsAStablePermutationByDescendingLength) {
  const auto a = io::generate("gen:rmat:10:8");
  const auto order = degree_order(a.row_ptr);
  ASSERT_TRUE(is_permutation_of_rows(order, a.rows));
  for (std::size_t k = 1; k < order.size(); ++k) {
    const auto prev = a.row_length(order[k - 1]), cur = a.row_length(order[k]);
    ASSERT_GE(prev, cur) << "position " << k;
    if (prev == cur) {
      EXPECT_LT(order[k - 1], order[k]) << "ties keep their old order";
    }
  }
}

TEST(DegreeOrder, EmptyMatrix) {
  EXPECT_TRUE(degree_order({0}).empty());
  EXPECT_TRUE(degree_order({}).empty());
}

TEST(RcmOrder, IsAPermutation) {
  for (const char* spec : {"gen:rmat:10:8", "gen:lognormal:3000:2:1:100", "gen:poisson3d:7"}) {
    const auto a = io::generate(spec);
    EXPECT_TRUE(is_permutation_of_rows(rcm_order(a, 0), a.rows)) << spec;
  }
  csr_matrix<double> empty;
  EXPECT_TRUE(rcm_order(empty, 0).empty());
}

TEST(RcmOrder, RecoversThePathOfAScrambledPath) {
  const auto a = scrambled(path(500), 7);
  ASSERT_GT(local_bandwidth(a, 0), 100);
  const auto order = rcm_order(a, 0);
  ASSERT_TRUE(is_permutation_of_rows(order, a.rows));
  EXPECT_EQ(local_bandwidth(a, 0, order), 1);
}

TEST(RcmOrder, ShrinksTheBandwidthOfAScrambledGrid) {
  const auto grid = io::generate("gen:poisson3d:10");  // 1000 rows, bandwidth 100 in its own order
  const auto a = scrambled(grid, 3);
  const auto order = rcm_order(a, 0);
  ASSERT_TRUE(is_permutation_of_rows(order, a.rows));
  const auto before = local_bandwidth(a, 0), after = local_bandwidth(a, 0, order);
  EXPECT_GT(before, 800);
  EXPECT_LE(after, 2 * local_bandwidth(grid, 0)) << "before " << before;
}

TEST(RcmOrder, ThreadedListsAboveTwentyThousandRows) {
  // 27000 rows: the adjacency lists are sorted by OpenMP threads (the tests/sanitizers.sh tsan run
  // checks that loop), and the order is the same on every call.
  const auto grid = io::generate("gen:poisson3d:30");  // bandwidth 900 in its own order
  const auto a = scrambled(grid, 5);
  const auto order = rcm_order(a, 0);
  ASSERT_TRUE(is_permutation_of_rows(order, a.rows));
  EXPECT_LE(local_bandwidth(a, 0, order), 2 * local_bandwidth(grid, 0));
  EXPECT_EQ(order, rcm_order(a, 0));
}

TEST(RcmOrder, ComponentsAndIsolatedRowsAndGhostColumns) {
  // Two scrambled paths side by side, isolated rows, and columns outside [first, first + rows)
  // (ghosts), which the local order ignores.
  const global_index_type first = 1000;
  auto p = scrambled(path(40), 5);
  csr_matrix<double> a;
  a.rows = 100;
  a.cols = 5000;
  for (global_index_type r = 0; r < a.rows; ++r) {
    std::vector<global_index_type> cols;
    if (r < 40)
      for (offset_type e = p.row_ptr[r]; e < p.row_ptr[r + 1]; ++e) cols.push_back(first + p.col_idx[e]);
    else if (r < 80)
      for (offset_type e = p.row_ptr[r - 40]; e < p.row_ptr[r - 40 + 1]; ++e) cols.push_back(first + 40 + p.col_idx[e]);
    cols.push_back(r % 3 == 0 ? 7 : 4000 + r);  // ghosts, before and after the owned range
    std::sort(cols.begin(), cols.end());
    a.col_idx.insert(a.col_idx.end(), cols.begin(), cols.end());
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  a.values.assign(a.col_idx.size(), 1.0);
  const auto order = rcm_order(a, first);
  ASSERT_TRUE(is_permutation_of_rows(order, a.rows));
  EXPECT_EQ(local_bandwidth(a, first, order), 1);
}

}  // namespace
}  // namespace distspmv::partition
