// compute_row_statistics on the GPU (label cuda; skipped without a GPU): every field equal to the
// host version's on the same matrix, over the edge-case matrices, stencils, odd sizes and the
// diagonal counts around the host's cap, in float and double. The doubles are compared exactly:
// both sides finish them with the same host function from the same sums, exact at these sizes.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/format_selector.hpp"
#include "tests/support/gpu_test.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

/// The 27-point (full = true) or 7-point stencil on an n x n x m grid.
csr_matrix<double, index_type> stencil3d(int n, int m, bool full) {
  csr_matrix<double, index_type> a;
  a.rows = a.cols = static_cast<global_index_type>(n) * n * m;
  for (int z = 0; z < m; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              if (!full && std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
              const int cx = x + dx, cy = y + dy, cz = z + dz;
              if (cx < 0 || cy < 0 || cz < 0 || cx >= n || cy >= n || cz >= m) continue;
              a.col_idx.push_back((cz * n + cy) * n + cx);
              a.values.push_back(dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0);
            }
        a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
      }
  return a;
}

/// rows x cols with one entry per row, on diagonal r % distinct: exactly min(distinct, rows)
/// distinct offsets.
csr_matrix<double, index_type> cycling_diagonals(global_index_type rows, global_index_type distinct) {
  csr_matrix<double, index_type> a;
  a.rows = rows;
  a.cols = rows + distinct;
  for (global_index_type r = 0; r < rows; ++r) {
    a.col_idx.push_back(static_cast<index_type>(r + r % distinct));
    a.values.push_back(1.0);
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

template <typename V>
void expect_same_statistics(const csr_matrix<double, index_type>& a64, const std::string& name) {
  SCOPED_TRACE(name + (sizeof(V) == 4 ? " float" : " double"));
  const auto a = convert_csr<V, index_type>(a64);
  const row_statistics host = compute_row_statistics(a);
  const device_csr<V> d = upload_csr(a);
  const row_statistics gpu = compute_row_statistics(d.view());
  EXPECT_EQ(gpu.rows, host.rows);
  EXPECT_EQ(gpu.cols, host.cols);
  EXPECT_EQ(gpu.nnz, host.nnz);
  EXPECT_EQ(gpu.min_length, host.min_length);
  EXPECT_EQ(gpu.max_length, host.max_length);
  EXPECT_EQ(gpu.mean_length, host.mean_length);
  EXPECT_EQ(gpu.stddev_length, host.stddev_length);
  EXPECT_EQ(gpu.empty_rows, host.empty_rows);
  EXPECT_EQ(gpu.bandwidth, host.bandwidth);
  EXPECT_EQ(gpu.diagonals, host.diagonals);
  EXPECT_EQ(gpu.ell_padding, host.ell_padding);
  EXPECT_EQ(gpu.sell32_padding, host.sell32_padding);
  EXPECT_EQ(gpu.sell32_sorted_padding, host.sell32_sorted_padding);
  EXPECT_EQ(gpu.sell32_window_padding, host.sell32_window_padding);
  EXPECT_EQ(gpu.sell32_window_capped_padding, host.sell32_window_capped_padding);
  EXPECT_EQ(gpu.sell32_window_spill, host.sell32_window_spill);
  EXPECT_EQ(gpu.sell32_window_spill_rows, host.sell32_window_spill_rows);
  EXPECT_EQ(gpu.window_fit, host.window_fit);
  EXPECT_EQ(gpu.hdia_padding, host.hdia_padding);
  EXPECT_EQ(gpu.value_bytes, host.value_bytes);
  EXPECT_EQ(gpu.pattern, host.pattern);
}

void expect_same_both_types(const csr_matrix<double, index_type>& a, const std::string& name) {
  expect_same_statistics<double>(a, name);
  expect_same_statistics<float>(a, name);
}

using RowStatisticsCuda = test::cuda_test;

TEST_F(RowStatisticsCuda, EdgeCasesMatchTheHost) {
  for (const auto& named : test::edge_case_matrices()) expect_same_both_types(named.a, named.name);
}

TEST_F(RowStatisticsCuda, StencilsMatchTheHost) {
  expect_same_both_types(stencil3d(17, 9, false), "7-point 17x17x9");
  expect_same_both_types(stencil3d(13, 13, true), "27-point 13^3");
  expect_same_both_types(stencil3d(40, 1, false), "5-point 40x40");
  const auto d = upload_csr(stencil3d(64, 64, false));
  EXPECT_EQ(compute_row_statistics(d.view()).diagonals, 7);  // the selector's HDIA rule sees the stencil
  expect_same_both_types(test::stencil27_part(64), "27-point 64^3, one side of a stepped cut");
}

TEST_F(RowStatisticsCuda, OddSizesMatchTheHost) {
  for (global_index_type rows : {1, 31, 33, 255, 257, 511, 1023, 65537})
    expect_same_both_types(test::random_csr(rows, rows + 7, 0, 37, 100 + rows), "random " + std::to_string(rows));
  // Many windows per block of the row kernel (more than 2^16 windows of 256 rows).
  csr_matrix<double, index_type> many;
  many.rows = (1 << 24) + 5;
  many.cols = 1000;
  for (global_index_type r = 0; r < many.rows; ++r) {
    const auto length = static_cast<int>((static_cast<std::uint64_t>(r) * 2654435761u >> 7) % 4);  // 0..3, scattered
    for (int j = 0; j < length; ++j) {
      many.col_idx.push_back(static_cast<index_type>(j * 250 + r % 250));
      many.values.push_back(1.0);
    }
    many.row_ptr.push_back(static_cast<offset_type>(many.col_idx.size()));
  }
  expect_same_statistics<double>(many, "2^24 + 5 short rows");
}

TEST_F(RowStatisticsCuda, TopSliceSpillMatchesTheHost) {
  for (global_index_type rows : {997, 2048, 5000, 70001}) {
    const auto a = test::spilling_rows(rows, rows + 500, rows);
    ASSERT_GT(compute_row_statistics(a).sell32_window_spill, 0.0);
    expect_same_both_types(a, "spilling rows " + std::to_string(rows));
  }
}

TEST_F(RowStatisticsCuda, DiagonalCountStopsWhereTheHostsDoes) {
  // The host's set stops growing after 4097 offsets: 4096, 4097, and anything above give
  // 4096, 4097, 4097.
  for (global_index_type distinct : {1, 32, 33, 4096, 4097, 4098, 10000})
    expect_same_statistics<double>(cycling_diagonals(20000, distinct), "distinct " + std::to_string(distinct));
  const auto d = upload_csr(cycling_diagonals(20000, 4098));
  EXPECT_EQ(compute_row_statistics(d.view()).diagonals, 4097);
}

TEST_F(RowStatisticsCuda, OffsetsWiderThanOneBitmapWindow) {
  // Offsets spanning more than 2^30: the bitmap covers them in several windows.
  csr_matrix<double, index_type> a;
  a.rows = 4;
  a.cols = INT_MAX;
  a.row_ptr = {0, 1, 3, 4, 4};
  a.col_idx = {0, 5, INT_MAX - 1, 7};
  a.values = {1, 2, 3, 4};
  expect_same_both_types(a, "wide offsets");
}

}  // namespace
}  // namespace distspmv
