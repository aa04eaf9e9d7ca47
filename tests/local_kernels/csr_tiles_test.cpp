// The tiled CSR kernels (csr-merge, csr-split) on the host, where they cannot run (STYLE.md §6,
// tier 2):
//  - merge: the build-time partition and the kernel's per-thread search (merge_path.hpp, the same
//    code the kernel calls) against a step-by-step walk of the merge, so that every row end and
//    every nonzero is owned by exactly one block and one thread;
//  - split: the nonzero tiles' invariants (each nonzero in one tile, each row owned by the tile it
//    ends in, bounded nonzeros and rows per tile);
//  - host models of both kernels' carry schemes (block carry-outs, fix-up in block order, beta
//    once) against the CSR oracle on rows spanning many blocks and many empty rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/csr/merge_path.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv {
namespace {

/// Rows of the given lengths, columns 0, 1, ... (only the structure matters here).
csr_matrix<double, index_type> with_lengths(const std::vector<offset_type>& lengths, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  test::uniform_real value(-1.0, 1.0);
  csr_matrix<double, index_type> a;
  a.rows = static_cast<global_index_type>(lengths.size());
  a.cols = std::max<global_index_type>(1, *std::max_element(lengths.begin(), lengths.end()));
  for (offset_type len : lengths) {
    for (offset_type c = 0; c < len; ++c) {
      a.col_idx.push_back(static_cast<index_type>(c));
      a.values.push_back(value(rng));
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

/// Power-law-ish lengths with a share of empty rows and one huge row.
std::vector<offset_type> skewed_lengths(std::size_t rows, double empty_share, offset_type huge, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  test::uniform_real u(0.0, 1.0);
  std::vector<offset_type> lengths(rows);
  for (auto& l : lengths)
    l = u(rng) < empty_share ? 0 : static_cast<offset_type>(std::min(300.0, std::floor(1.0 / std::pow(u(rng) + 1e-9, 0.7))));
  if (rows > 0) lengths[rows / 3] = huge;
  return lengths;
}

/// The structures the tests walk: skewed ones, the edge cases of every format, empty ones.
std::vector<test::named_matrix> structures() {
  std::vector<test::named_matrix> m = test::edge_case_matrices();
  m.push_back({"skewed_mostly_empty", with_lengths(skewed_lengths(5000, 0.8, 20000, 1), 1)});
  m.push_back({"skewed_some_empty", with_lengths(skewed_lengths(3001, 0.3, 7777, 2), 2)});
  m.push_back({"empty_runs_then_huge", with_lengths({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5000, 0, 0, 0, 1}, 3)});
  m.push_back({"one_row_huge", with_lengths({100000}, 4)});
  m.push_back({"one_empty_row", with_lengths({0}, 5)});
  return m;
}

/// Rows consumed after d steps, for every d in [0, rows + nnz]: the merge walked one item at a time.
std::vector<offset_type> walk_merge(const std::vector<offset_type>& row_ptr) {
  const offset_type rows = static_cast<offset_type>(row_ptr.size()) - 1, nnz = row_ptr.back();
  std::vector<offset_type> path{0};
  offset_type i = 0, j = 0;
  while (i + j < rows + nnz) {
    if (i < rows && row_ptr[i + 1] <= j)
      ++i;
    else
      ++j;
    path.push_back(i);
  }
  return path;
}

/// The partition and the per-thread starts (as the kernel computes them on its staged, relative row
/// ends) agree with the walk, so each item has exactly one owner.
void check_partition(const csr_matrix<double, index_type>& a, offset_type threads, offset_type items,
                     const std::string& name) {
  const offset_type rows = a.rows, nnz = a.nnz(), total = rows + nnz, tile = threads * items;
  const auto path = walk_merge(a.row_ptr);
  const auto p = csr::partition_merge_path(a.row_ptr, tile);
  const offset_type blocks = (total + tile - 1) / tile;
  ASSERT_EQ(static_cast<offset_type>(p.rows.size()), blocks + 1) << name;
  ASSERT_EQ(p.nnz.size(), p.rows.size()) << name;
  EXPECT_EQ(p.rows.back(), rows) << name;
  EXPECT_EQ(p.nnz.back(), nnz) << name;
  offset_type rows_owned = 0, nnz_owned = 0;
  for (offset_type b = 0; b < blocks; ++b) {
    const offset_type i0 = p.rows[b], j0 = p.nnz[b];
    const offset_type n_rows = p.rows[b + 1] - i0, n_nz = p.nnz[b + 1] - j0;
    ASSERT_EQ(i0, path[b * tile]) << name << " block " << b;
    ASSERT_EQ(i0 + j0, b * tile) << name << " block " << b;
    ASSERT_GE(n_rows, 0) << name;
    ASSERT_GE(n_nz, 0) << name;
    ASSERT_EQ(n_rows + n_nz, std::min(tile, total - b * tile)) << name << " block " << b;  // full except the last
    ASSERT_GT(n_rows + n_nz, 0) << name;
    rows_owned += n_rows;
    nnz_owned += n_nz;
    // The kernel's relative row ends lie in [0, n_nz] (they are staged as ints).
    std::vector<int> ends(static_cast<std::size_t>(n_rows));
    for (offset_type x = 0; x < n_rows; ++x) {
      const offset_type e = a.row_ptr[i0 + x + 1] - j0;
      ASSERT_GE(e, 0) << name;
      ASSERT_LE(e, n_nz) << name;
      ends[static_cast<std::size_t>(x)] = static_cast<int>(e);
    }
    for (offset_type t = 0; t <= threads; ++t) {
      const int d = static_cast<int>(std::min(t * items, n_rows + n_nz));
      const int x = csr::merge_path_rows(d, static_cast<int>(n_rows), static_cast<int>(n_nz),
                                         [&](int r) { return ends[static_cast<std::size_t>(r)]; });
      ASSERT_EQ(i0 + x, path[b * tile + d]) << name << " block " << b << " thread " << t;
    }
  }
  EXPECT_EQ(rows_owned, rows) << name;
  EXPECT_EQ(nnz_owned, nnz) << name;
}

TEST(CsrMergePartition, CoversEveryRowAndNonzeroOnce) {
  for (const auto& m : structures()) {
    check_partition(m.a, csr::merge_block_threads, csr::merge_items_per_thread<double>, m.name + " (double)");
    check_partition(m.a, csr::merge_block_threads, csr::merge_items_per_thread<float>, m.name + " (float)");
    check_partition(m.a, 4, 3, m.name + " (4x3)");  // tiny blocks: rows span many of them
    check_partition(m.a, 1, 1, m.name + " (1x1)");
  }
}

TEST(CsrMergePartition, SearchMatchesTheWalkOnEveryDiagonal) {
  for (const auto& lengths : {skewed_lengths(700, 0.6, 3000, 7), std::vector<offset_type>{0, 0, 0},
                              std::vector<offset_type>{9}, std::vector<offset_type>{0, 4, 0, 0, 2, 0}}) {
    const auto a = with_lengths(lengths, 8);
    const auto path = walk_merge(a.row_ptr);
    for (offset_type d = 0; d < static_cast<offset_type>(path.size()); ++d)
      ASSERT_EQ(csr::merge_path_rows(d, a.rows, a.nnz(), [&](offset_type r) { return a.row_ptr[r + 1]; }), path[d])
          << "diagonal " << d;
  }
}

TEST(CsrMergeBuild, HoldsThePartitionAndOneCarryPerBlock) {
  const auto a = with_lengths(skewed_lengths(4000, 0.5, 10000, 9), 9);
  const auto m = csr::build(a, csr::csr_params{csr::kernel::merge, 0});
  const auto p = csr::partition_merge_path(a.row_ptr, csr::merge_items_per_block<double>);
  EXPECT_EQ(m.tile_rows, p.rows);
  EXPECT_EQ(m.tile_nnz, p.nnz);
  EXPECT_EQ(m.tile_carry.size() + 1, m.tile_rows.size());
  EXPECT_TRUE(m.row_blocks.empty());
  const auto v = csr::traits::view_of(m, [](const auto& vec) { return vec.data(); });
  EXPECT_EQ(v.n_tiles, static_cast<global_index_type>(m.tile_carry.size()));
  EXPECT_EQ(v.algorithm, csr::kernel::merge);
  // Other kernels carry no merge data; an empty matrix has no blocks.
  EXPECT_TRUE(csr::build(a, csr::csr_params{csr::kernel::adaptive, 0}).tile_rows.empty());
  const auto empty = csr::build(test::random_csr(0, 5, 0, 0, 1), csr::csr_params{csr::kernel::merge, 0});
  EXPECT_EQ(empty.tile_rows, (std::vector<index_type>{0}));
  EXPECT_TRUE(empty.tile_carry.empty());
}

/// carry_fixup_kernel: each run of blocks that end in the same open row adds its carries, in block
/// order, after the block that owns the row has written y.
void add_carries(const csr_matrix<double, index_type>& a, const csr::merge_partition& p,
                 const std::vector<double>& carry_out, double alpha, std::vector<double>& y) {
  const std::size_t blocks = p.rows.size() - 1;
  for (std::size_t b = 0; b + 1 < blocks; ++b) {  // the last block ends at (rows, nnz)
    const index_type row = p.rows[b + 1];
    if (row >= a.rows || (b > 0 && p.rows[b] == row)) continue;
    double carry = 0;
    std::size_t e = b;
    for (; e < blocks && p.rows[e + 1] == row; ++e) carry += carry_out[e];
    if (p.nnz[e] > a.row_ptr[row]) y[static_cast<std::size_t>(row)] += alpha * carry;
  }
}

/// The kernel's scheme step by step on the host: threads consume their items, a segmented scan in
/// thread order joins rows split between threads, each block writes y (beta once) for the rows that
/// end in it and stores its carry-out, then each run of blocks ending in the same row adds its
/// carries in block order.
std::vector<double> model_merge_spmv(const csr_matrix<double, index_type>& a, int threads, int items, double alpha,
                                     const std::vector<double>& x, double beta, std::vector<double> y) {
  const auto p = csr::partition_merge_path(a.row_ptr, offset_type{threads} * items);
  const std::size_t blocks = p.rows.size() - 1;
  std::vector<double> carry_out(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    const offset_type i0 = p.rows[b], j0 = p.nnz[b];
    const int n_rows = static_cast<int>(p.rows[b + 1] - i0), n_nz = static_cast<int>(p.nnz[b + 1] - j0);
    std::vector<int> end(static_cast<std::size_t>(n_rows));
    for (int r = 0; r < n_rows; ++r) end[r] = static_cast<int>(a.row_ptr[i0 + r + 1] - j0);
    std::vector<double> row_sum(static_cast<std::size_t>(n_rows));
    auto start = [&](int t) {
      const int d = std::min(t * items, n_rows + n_nz);
      return std::pair<int, int>{csr::merge_path_rows(d, n_rows, n_nz, [&](int r) { return end[r]; }), d};
    };
    double open = 0;  // the scan's running value: what the threads so far leave open
    for (int t = 0; t < threads; ++t) {
      const auto [r0, d0] = start(t);
      const auto [r1, d1] = start(t + 1);
      int r = r0, k = d0 - r0;
      double sum = 0;
      for (int q = 0; q < items; ++q) {
        if (r < r1 && end[r] <= k) {
          row_sum[r] = sum;
          sum = 0;
          ++r;
        } else if (k < d1 - r1) {
          sum += a.values[j0 + k] * x[a.col_idx[j0 + k]];
          ++k;
        }
      }
      EXPECT_EQ(r, r1);
      EXPECT_EQ(k, d1 - r1);
      if (r1 > r0) row_sum[r0] += open;  // carry-in: the previous thread's inclusive value
      open = r1 > r0 ? sum : open + sum;
    }
    carry_out[b] = open;
    for (int r = 0; r < n_rows; ++r) {
      double& yr = y[static_cast<std::size_t>(i0 + r)];
      yr = beta == 0.0 ? alpha * row_sum[r] : alpha * row_sum[r] + beta * yr;
    }
  }
  add_carries(a, p, carry_out, alpha, y);
  return y;
}

/// The split kernel: each tile writes y (beta once) for the rows it owns, summing their parts in
/// the tile, and carries the part of its open row; then the same fix-up.
std::vector<double> model_split_spmv(const csr_matrix<double, index_type>& a, offset_type tile, double alpha,
                                     const std::vector<double>& x, double beta, std::vector<double> y) {
  const auto p = csr::partition_nnz(a.row_ptr, tile);
  const std::size_t tiles = p.rows.size() - 1;
  std::vector<double> carry_out(tiles);
  for (std::size_t b = 0; b < tiles; ++b) {
    const offset_type begin = p.nnz[b], end = p.nnz[b + 1];
    auto part = [&](global_index_type r) {  // row r's part in the tile, as the kernel clips it
      double sum = 0;
      for (offset_type k = std::max(a.row_ptr[r], begin); k < std::min(a.row_ptr[r + 1], end); ++k)
        sum += a.values[k] * x[a.col_idx[k]];
      return sum;
    };
    for (global_index_type r = p.rows[b]; r < p.rows[b + 1]; ++r) {
      double& yr = y[static_cast<std::size_t>(r)];
      yr = beta == 0.0 ? alpha * part(r) : alpha * part(r) + beta * yr;
    }
    carry_out[b] = p.rows[b + 1] < a.rows ? part(p.rows[b + 1]) : 0.0;
  }
  add_carries(a, p, carry_out, alpha, y);
  return y;
}

/// got equals the oracle within the per-row rounding bound, and no NaN of a poisoned y leaks.
void expect_oracle(const test::named_matrix& m, const std::vector<double>& got, double alpha,
                   const std::vector<double>& x, double beta, const std::vector<double>& y, const std::string& what) {
  std::vector<double> ref = y;
  csr::spmv_host(m.a, alpha, x.data(), beta, ref.data());
  for (global_index_type r = 0; r < m.a.rows; ++r) {
    double mag = std::abs(beta == 0.0 ? 0.0 : beta * y[r]);
    for (offset_type k = m.a.row_ptr[r]; k < m.a.row_ptr[r + 1]; ++k)
      mag += std::abs(alpha * m.a.values[k] * x[m.a.col_idx[k]]);
    const double bound = 2.0 * std::numeric_limits<double>::epsilon() * static_cast<double>(m.a.row_length(r) + 2) * mag +
                         std::numeric_limits<double>::min();
    ASSERT_FALSE(std::isnan(got[r])) << m.name << " " << what << " row " << r;
    ASSERT_LE(std::abs(got[r] - ref[r]), bound) << m.name << " " << what << " row " << r;
  }
}

/// Random alpha, x and y (NaN where beta == 0), for each beta kind.
template <typename Model>
void check_model_against_oracle(Model model) {
  std::mt19937_64 rng(42);
  test::uniform_real u(-2.0, 2.0);
  for (const auto& m : structures()) {
    for (bool beta_zero : {true, false}) {
      const double alpha = u(rng), beta = beta_zero ? 0.0 : u(rng);
      std::vector<double> x(static_cast<std::size_t>(m.a.cols)), y(static_cast<std::size_t>(m.a.rows));
      for (auto& v : x) v = u(rng);
      for (auto& v : y) v = beta_zero ? std::numeric_limits<double>::quiet_NaN() : u(rng);
      model(m, alpha, x, beta, y);
    }
  }
}

TEST(CsrMergeModel, CarriesReproduceTheOracle) {
  check_model_against_oracle([](const test::named_matrix& m, double alpha, const std::vector<double>& x, double beta,
                                const std::vector<double>& y) {
    for (auto [threads, items] : {std::pair<int, int>{csr::merge_block_threads, csr::merge_items_per_thread<double>},
                                  {4, 3}, {2, 1}, {32, 7}}) {
      const auto got = model_merge_spmv(m.a, threads, items, alpha, x, beta, y);
      expect_oracle(m, got, alpha, x, beta, y, std::to_string(threads) + "x" + std::to_string(items));
    }
  });
}

/// Each nonzero in exactly one tile, in order, at most `tile` per tile; each row owned by one tile,
/// the one its end falls in; at most 2 * tile rows per tile.
void check_split_partition(const csr_matrix<double, index_type>& a, offset_type tile, const std::string& name) {
  const auto p = csr::partition_nnz(a.row_ptr, tile);
  ASSERT_GE(p.rows.size(), 2u) << name << ": at least one tile";
  EXPECT_EQ(p.rows.front(), 0) << name;
  EXPECT_EQ(p.nnz.front(), 0) << name;
  EXPECT_EQ(p.rows.back(), a.rows) << name;
  EXPECT_EQ(p.nnz.back(), a.nnz()) << name;
  for (std::size_t b = 0; b + 1 < p.rows.size(); ++b) {
    const offset_type begin = p.nnz[b], end = p.nnz[b + 1];
    ASSERT_LE(begin, end) << name << " tile " << b;
    ASSERT_LE(end - begin, tile) << name << " tile " << b;
    ASSERT_LE(p.rows[b], p.rows[b + 1]) << name << " tile " << b;
    ASSERT_LE(p.rows[b + 1] - p.rows[b], 2 * tile) << name << " tile " << b;
    for (global_index_type r = p.rows[b]; r < p.rows[b + 1]; ++r) {
      ASSERT_LE(a.row_ptr[r + 1], end) << name << " tile " << b << " owns row " << r << " ending after it";
      // It ends in this tile, not before: only an empty row may end on the tile's start.
      if (a.row_ptr[r + 1] == begin) {
        ASSERT_EQ(a.row_length(r), 0) << name << " tile " << b << " row " << r;
      }
      ASSERT_GE(a.row_ptr[r + 1], begin) << name << " tile " << b << " owns row " << r << " ending before it";
    }
    // The open row starts at or before the tile's end.
    if (p.rows[b + 1] < a.rows) {
      ASSERT_LE(a.row_ptr[p.rows[b + 1]], end) << name << " tile " << b;
    }
  }
}

TEST(CsrSplitPartition, CoversEveryRowAndNonzeroOnce) {
  for (const auto& m : structures())
    for (offset_type tile : {csr::split_tile_nnz, offset_type{1}, offset_type{3}, offset_type{64}})
      check_split_partition(m.a, tile, m.name + " tile " + std::to_string(tile));
}

TEST(CsrSplitPartition, CutsRunsOfEmptyRows) {
  // 10000 empty rows, one entry, 10000 empty rows: one tile of nonzeros, cut by rows.
  std::vector<offset_type> lengths(20001, 0);
  lengths[10000] = 1;
  const auto a = with_lengths(lengths, 6);
  const auto p = csr::partition_nnz(a.row_ptr, 64);
  EXPECT_EQ(p.rows.size() - 1, static_cast<std::size_t>((20001 + 127) / 128));
  check_split_partition(a, 64, "empty runs");
  const auto m = csr::build(a, csr::csr_params{csr::kernel::split, 0});
  EXPECT_EQ(m.tile_carry.size() + 1, m.tile_rows.size());
  EXPECT_TRUE(m.params.algorithm == csr::kernel::split);
}

TEST(CsrSplitModel, CarriesReproduceTheOracle) {
  check_model_against_oracle([](const test::named_matrix& m, double alpha, const std::vector<double>& x, double beta,
                                const std::vector<double>& y) {
    for (offset_type tile : {csr::split_tile_nnz, offset_type{1}, offset_type{5}, offset_type{256}}) {
      const auto got = model_split_spmv(m.a, tile, alpha, x, beta, y);
      expect_oracle(m, got, alpha, x, beta, y, "tile " + std::to_string(tile));
    }
  });
}

}  // namespace
}  // namespace distspmv
