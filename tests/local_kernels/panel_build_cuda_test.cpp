// The panel format's GPU builder (label cuda; skipped without a GPU): build_cuda on a device copy
// of a matrix gives build()'s arrays bit for bit and its statistics, over the builder matrices
// (edge cases, odd sizes, long rows) with the automatic sizes and with tiny panels (many panels,
// many pieces, rows split into parts), in float and double, and with pieces long enough that the
// rounds' counts stay in global memory; and it refuses what build() refuses.
#include <gtest/gtest.h>

#include <string>

#include "common/errors.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/panel/panel.hpp"
#include "tests/support/gpu_test.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

class PanelBuildCuda : public test::cuda_test {};

template <typename V>
csr_matrix<V, index_type> as(const csr_matrix<double, index_type>& a) {
  csr_matrix<V, index_type> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr = a.row_ptr;
  b.col_idx = a.col_idx;
  b.values.assign(a.values.begin(), a.values.end());
  return b;
}

template <typename V>
void expect_same(const csr_matrix<V, index_type>& a, const panel::panel_params& p, const std::string& name) {
  const auto host = panel::build(a, p);
  const auto gpu = panel::build_cuda(upload_csr(a), p);
  const auto& v = gpu.view;
  EXPECT_EQ(v.panels, static_cast<index_type>(host.panel_row.size() - 1)) << name;
  EXPECT_EQ(v.max_slots, host.max_slots) << name;
  test::expect_bitwise(host.panel_row, v.panel_row, name + " panel_row");
  test::expect_bitwise(host.panel_entry, v.panel_entry, name + " panel_entry");
  test::expect_bitwise(host.dispatch, v.dispatch, name + " dispatch");
  test::expect_bitwise(host.slot_begin, v.slot_begin, name + " slot_begin");
  test::expect_bitwise(host.col_idx, v.col_idx, name + " col_idx");
  test::expect_bitwise(host.values, v.values, name + " values");
  test::expect_bitwise(host.slot, v.slot, name + " slot");
  EXPECT_EQ(v.splits, static_cast<index_type>(host.split_row.size())) << name;
  if (v.splits > 0) {
    test::expect_bitwise(host.row_out, v.row_out, name + " row_out");
    test::expect_bitwise(host.split_row, v.split_row, name + " split_row");
    test::expect_bitwise(host.split_part, v.split_part, name + " split_part");
  }
  EXPECT_EQ(gpu.stats.stored_bytes, host.stats.stored_bytes) << name;
  EXPECT_EQ(gpu.stats.padding_ratio, host.stats.padding_ratio) << name;
  EXPECT_EQ(gpu.stats.params, host.stats.params) << name;
}

TEST_F(PanelBuildCuda, SameArraysAsTheHostBuilder) {
  panel::panel_params tiny;
  tiny.panel_rows = 40;
  tiny.panel_entries = 2000;
  tiny.piece_entries = 3;
  tiny.max_slots = 200;
  for (const auto& [name, a] : test::builder_matrices()) {
    expect_same(a, panel::panel_params{}, name);
    expect_same(as<float>(a), panel::panel_params{}, name + " float");
    expect_same(a, tiny, name + " tiny panels");
  }
}

// Pieces so long that a panel's rounds could outgrow shared memory: the rounds' counts stay in
// global memory (the same loop).
TEST_F(PanelBuildCuda, LongPiecesKeepTheirCountsInGlobalMemory) {
  panel::panel_params long_pieces;
  long_pieces.panel_entries = 131072;
  long_pieces.piece_entries = 2000;
  const auto a = test::random_csr(600, 50000, 200, 400, 9);
  expect_same(a, long_pieces, "600 rows of 200-400 entries, one piece each");
  expect_same(a, panel::panel_params{}, "the same, default sizes");
}

TEST_F(PanelBuildCuda, RefusesWhatTheHostBuilderRefuses) {
  auto bad_column = test::random_csr(50, 40, 1, 5, 3);
  bad_column.col_idx[17] = 40;
  EXPECT_THROW(panel::build(bad_column, {}), bad_input);
  EXPECT_THROW(panel::build_cuda(upload_csr(bad_column), {}), bad_input);
  auto unsorted = test::random_csr(50, 40, 3, 5, 4);
  std::swap(unsorted.col_idx[unsorted.row_ptr[7]], unsorted.col_idx[unsorted.row_ptr[7] + 1]);
  EXPECT_THROW(panel::build(unsorted, {}), bad_input);
  EXPECT_THROW(panel::build_cuda(upload_csr(unsorted), {}), bad_input);
  try {
    panel::build_cuda(upload_csr(unsorted), {});
  } catch (const bad_input& e) {
    EXPECT_NE(std::string(e.what()).find("columns of row 7 are not sorted and unique"), std::string::npos) << e.what();
  }
  panel::panel_params p;
  p.max_slots = 0;
  EXPECT_THROW(panel::build_cuda(upload_csr(test::random_csr(5, 5, 1, 2, 1)), p), bad_input);
}

}  // namespace
}  // namespace distspmv
