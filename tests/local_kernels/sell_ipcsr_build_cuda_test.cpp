// The GPU builders of SELL-C-sigma and IPCSR (label cuda; skipped without a GPU): build_cuda on a
// device CSR gives build()'s arrays on download_csr of it bit for bit (downloaded with the host
// vectors' lengths), its statistics and its refusals, for the registry's variants and a few more
// parameters, float and double, over the edge-case matrices and random odd sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/ipcsr/ipcsr.hpp"
#include "local_kernels/sell/sell.hpp"
#include "tests/support/gpu_test.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

using SellIpcsrBuildCuda = test::cuda_test;

/// The SELL parameters checked: the registry's variants (sell, sell-c32-s1, sell-c64-r2, with
/// 16-bit column offsets where they fit; sell-i32; sell-w with its top-slice spill), then an
/// explicit window, four 32-row groups per slice, C = 64 without sorting, 32-bit, x windows with
/// 32-bit columns, with sorting in windows of 64 (the spill asked for but not made), without the
/// spill, and with spilled rows at no cost (most top-slice rows spill).
std::vector<sell::sell_params> sell_variants() {
  return {{32, 0, 1},           {32, 1, 1},           {64, 0, 2},
          {32, 0, 1, false},    {32, 0, 1, true, true, true},
          {32, 512, 1, false},  {128, 128, 2},        {64, 1, 1, false},
          {32, 0, 1, false, true, true}, {32, 64, 1, true, true, true}, {32, 0, 1, true, true},
          {32, 0, 1, true, true, true, 0}};
}

/// The IPCSR parameters checked: the default (Hopper), the registry's for CUDA, and small stages
/// (many blocks, long rows alone).
std::vector<ipcsr::ipcsr_params> ipcsr_variants() {
  return {ipcsr::ipcsr_params{}, ipcsr::params_for(backend::cuda), ipcsr::ipcsr_params{1024},
          ipcsr::ipcsr_params{4096}};
}

std::string describe(const sell::sell_params& p) {
  return "C=" + std::to_string(p.slice_size) + " sigma=" + std::to_string(p.sigma) +
         " R=" + std::to_string(p.rows_per_thread) + (p.column_offsets ? "" : " 32-bit columns") +
         (p.x_windows ? " x windows" : "") +
         (p.top_spill ? " top spill, " + std::to_string(p.spill_row_bytes) + " bytes a row" : "");
}
std::string describe(const ipcsr::ipcsr_params& p) { return "shared_bytes=" + std::to_string(p.shared_bytes); }

void expect_same_stats(const format_stats& gpu, const format_stats& host) {
  EXPECT_EQ(gpu.stored_bytes, host.stored_bytes);
  EXPECT_EQ(gpu.padding_ratio, host.padding_ratio);
  EXPECT_EQ(gpu.n_iter, host.n_iter);
  EXPECT_EQ(gpu.n_p, host.n_p);
  EXPECT_EQ(gpu.params, host.params);
}

template <typename V>
void compare(const sell::sell_matrix<V>& host, const device_built<sell::sell_view<V>>& built) {
  const sell::sell_view<V>& v = built.view;
  EXPECT_EQ(v.rows, host.rows);
  EXPECT_EQ(v.cols, host.cols);
  EXPECT_EQ(v.slice_size, host.slice_size);
  EXPECT_EQ(v.rows_per_thread, host.rows_per_thread);
  test::expect_bitwise(host.slice_ptr, v.slice_ptr, "slice_ptr");
  EXPECT_EQ(v.col_offset != nullptr, !host.col_offset.empty()) << "16-bit column offsets on one side only";
  test::expect_bitwise(host.col_idx, v.col_idx, "col_idx");
  test::expect_bitwise(host.col_offset, v.col_offset, "col_offset");
  test::expect_bitwise(host.values, v.values, "values");
  if (host.perm.empty())
    EXPECT_EQ(v.perm, nullptr) << "the host stores no permutation";
  else
    test::expect_bitwise(host.perm, v.perm, "perm");
  EXPECT_EQ(v.window_begin != nullptr, !host.window_begin.empty()) << "x windows on one side only";
  test::expect_bitwise(host.window_begin, v.window_begin, "window_begin");
  test::expect_bitwise(host.window_end, v.window_end, "window_end");
  EXPECT_EQ(v.window_capacity, host.window_capacity);
  EXPECT_EQ(v.spill_ptr != nullptr, !host.spill_ptr.empty()) << "a spill on one side only";
  test::expect_bitwise(host.spill_ptr, v.spill_ptr, "spill_ptr");
  test::expect_bitwise(host.spill_col, v.spill_col, "spill_col");
  test::expect_bitwise(host.spill_val, v.spill_val, "spill_val");
  expect_same_stats(built.stats, host.stats);
}

template <typename V>
void compare(const ipcsr::ipcsr_matrix<V>& host, const device_built<ipcsr::ipcsr_view<V>>& built) {
  const ipcsr::ipcsr_view<V>& v = built.view;
  EXPECT_EQ(v.rows, host.rows);
  EXPECT_EQ(v.cols, host.cols);
  EXPECT_EQ(v.n_blocks, static_cast<global_index_type>(host.threads_per_row.size()));
  EXPECT_EQ(v.stage_entries, host.stage_entries);
  test::expect_bitwise(host.row_ptr, v.row_ptr, "row_ptr");
  test::expect_bitwise(host.col_idx, v.col_idx, "col_idx");
  test::expect_bitwise(host.values, v.values, "values");
  test::expect_bitwise(host.row_blocks, v.row_blocks, "row_blocks");
  test::expect_bitwise(host.threads_per_row, v.threads_per_row, "threads_per_row");
  expect_same_stats(built.stats, host.stats);
}

sell::sell_matrix<float> host_build(const csr_matrix<float, index_type>& a, const sell::sell_params& p) {
  return sell::build(a, p);
}
sell::sell_matrix<double> host_build(const csr_matrix<double, index_type>& a, const sell::sell_params& p) {
  return sell::build(a, p);
}
ipcsr::ipcsr_matrix<float> host_build(const csr_matrix<float, index_type>& a, const ipcsr::ipcsr_params& p) {
  return ipcsr::build(a, p);
}
ipcsr::ipcsr_matrix<double> host_build(const csr_matrix<double, index_type>& a, const ipcsr::ipcsr_params& p) {
  return ipcsr::build(a, p);
}
template <typename V>
auto gpu_build(device_csr<V>&& d, const sell::sell_params& p) {
  return sell::build_cuda(std::move(d), p);
}
template <typename V>
auto gpu_build(device_csr<V>&& d, const ipcsr::ipcsr_params& p) {
  return ipcsr::build_cuda(std::move(d), p);
}

/// build() on download_csr(d) and build_cuda(d): the same arrays and statistics, or the same
/// refusal (where and problem; the source names the builder).
template <typename V, typename Params>
void expect_same(device_csr<V> d, const Params& p, const std::string& name) {
  SCOPED_TRACE(name + " " + describe(p) + (sizeof(V) == 4 ? " float" : " double"));
  const csr_matrix<V, index_type> a = download_csr(d.view());
  std::optional<decltype(host_build(a, p))> host;
  std::optional<bad_input> host_refusal;
  try {
    host = host_build(a, p);
  } catch (const bad_input& e) {
    host_refusal = e;
  }
  try {
    const auto built = gpu_build(std::move(d), p);
    ASSERT_TRUE(host.has_value()) << "the GPU accepted what the host refused: " << host_refusal->what();
    compare(*host, built);
  } catch (const bad_input& e) {
    ASSERT_TRUE(host_refusal.has_value()) << "the GPU refused what the host accepted: " << e.what();
    EXPECT_EQ(e.where(), host_refusal->where()) << e.what() << "\nhost: " << host_refusal->what();
    EXPECT_EQ(e.problem(), host_refusal->problem()) << e.what() << "\nhost: " << host_refusal->what();
  }
}

template <typename Params>
void expect_same_both_types(const csr_matrix<double, index_type>& a, const Params& p, const std::string& name) {
  expect_same(upload_csr(convert_csr<float, index_type>(a)), p, name);
  expect_same(upload_csr(a), p, name);
}

TEST_F(SellIpcsrBuildCuda, SellArraysEqualTheHostBuildBitwise) {
  for (const auto& m : test::builder_matrices())
    for (const auto& p : sell_variants()) expect_same_both_types(m.a, p, m.name);
}

TEST_F(SellIpcsrBuildCuda, SellColumnOffsetsAtTheirLimits) {
  // Row 3 reaching 32767 (fits) or 32768 (does not) columns right, row 39999 reaching 32768
  // (fits) or 32769 left; empty rows between (their padding next to their own index), sorted and
  // unsorted, R = 1 and 2.
  for (const auto& [right, left] : std::vector<std::pair<index_type, index_type>>{{32767, 32768}, {32768, 5}, {5, 32769}}) {
    test::row_entries rows(40000);
    for (index_type r = 0; r < 40000; r += (r % 7 == 3 ? 2 : 1)) rows[r].push_back({r, 1.0 + r});
    rows[3].push_back({3 + right, -2.0});
    rows[39999].insert(rows[39999].begin(), {39999 - left, 0.5});
    const auto a = test::from_rows(80000, rows);
    for (const auto& p : std::vector<sell::sell_params>{{32, 0, 1}, {64, 1, 2}, {32, 32, 1}})
      expect_same_both_types(a, p, "limits " + std::to_string(right) + "/" + std::to_string(left));
  }
}

TEST_F(SellIpcsrBuildCuda, IpcsrArraysEqualTheHostBuildBitwise) {
  for (const auto& m : test::builder_matrices())
    for (const auto& p : ipcsr_variants()) expect_same_both_types(m.a, p, m.name);
}

TEST_F(SellIpcsrBuildCuda, MatricesCoverSortedUnsortedAndDroppedPermutations) {
  // Guards the coverage of the tests above: the automatic sigma sorts one matrix and not another,
  // and an explicit window over rows of equal length stores no permutation.
  const auto spread = convert_csr<double, index_type>(test::random_csr(4097, 3001, 0, 40, 13));
  const auto sorted = sell::build(spread, sell::sell_params{32, 0, 1});
  EXPECT_GT(sorted.sigma, 1);
  EXPECT_FALSE(sorted.perm.empty());
  const auto equal = convert_csr<double, index_type>(test::random_csr(300, 300, 5, 5, 17));
  EXPECT_EQ(sell::build(equal, sell::sell_params{32, 0, 1}).sigma, 1);
  EXPECT_TRUE(sell::build(equal, sell::sell_params{32, 256, 1}).perm.empty());
  const auto long_rows = test::random_csr(513, 5003, 1500, 4000, 14);
  const auto blocks = ipcsr::build(long_rows, ipcsr::ipcsr_params{1024});
  EXPECT_NE(std::find(blocks.threads_per_row.begin(), blocks.threads_per_row.end(), 0), blocks.threads_per_row.end());
}

TEST_F(SellIpcsrBuildCuda, SpecialValuesAreCopiedBitForBit) {
  auto a = test::random_csr(1001, 999, 0, 60, 21);
  const double specials[] = {-0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(), 0.0, std::numeric_limits<double>::denorm_min()};
  for (std::size_t k = 0; k < a.values.size(); k += 5) a.values[k] = specials[(k / 5) % 6];
  for (const auto& p : sell_variants()) expect_same_both_types(a, p, "special values");
  for (const auto& p : ipcsr_variants()) expect_same_both_types(a, p, "special values");
}

TEST_F(SellIpcsrBuildCuda, IpcsrTakesOverTheDeviceArraysWithoutCopying) {
  auto d = upload_csr(convert_csr<double, index_type>(test::random_csr(300, 200, 0, 9, 22)));
  const offset_type* row_ptr = d.row_ptr;
  const index_type* col_idx = d.col_idx;
  const double* values = d.values;
  const auto built = ipcsr::build_cuda(std::move(d), ipcsr::ipcsr_params{});
  EXPECT_EQ(built.view.row_ptr, row_ptr);
  EXPECT_EQ(built.view.col_idx, col_idx);
  EXPECT_EQ(built.view.values, values);
}

TEST_F(SellIpcsrBuildCuda, RefusesBadParametersAsTheHostDoes) {
  const auto a = test::random_csr(100, 50, 1, 5, 23);
  for (const sell::sell_params& p : std::vector<sell::sell_params>{
           {48, 1, 1}, {0, 1, 1}, {32, 1, 2}, {64, 1, 3}, {32, 40, 1}, {32, -1, 1}})
    expect_same(upload_csr(a), p, "bad SELL parameters");
  expect_same(upload_csr(a), ipcsr::ipcsr_params{100}, "stage below 32 values");
  // Both an invalid column and invalid parameters: the parameters are named first.
  auto bad = a;
  bad.col_idx[a.row_ptr[38] - 1] = 50;
  expect_same(upload_csr(bad), sell::sell_params{48, 1, 1}, "bad parameters and column");
  expect_same(upload_csr(bad), ipcsr::ipcsr_params{100}, "bad parameters and column");
}

TEST_F(SellIpcsrBuildCuda, RefusesInvalidCsrAsTheHostDoes) {
  // Every row has 2 to 5 entries; row 37 is the one spoiled, row 60 holds a second spoil that the
  // message must not name.
  const auto a = test::random_csr(100, 50, 2, 5, 24);
  const auto first = [&a](global_index_type r) { return static_cast<std::size_t>(a.row_ptr[r]); };
  std::vector<std::pair<std::string, csr_matrix<double, index_type>>> cases;
  auto m = a;
  m.col_idx[first(38) - 1] = 50;
  m.col_idx[first(60)] = 50;
  cases.push_back({"column out of range", m});
  m = a;
  m.col_idx[first(37)] = -1;
  cases.push_back({"negative column", m});
  m = a;
  m.col_idx[first(37) + 1] = m.col_idx[first(37)];
  cases.push_back({"duplicate column", m});
  m = a;
  std::swap(m.col_idx[first(37)], m.col_idx[first(37) + 1]);
  cases.push_back({"unsorted columns", m});
  m = a;
  m.col_idx[first(37) + 1] = -5;  // out of range and below its predecessor: the range is named
  cases.push_back({"negative and unsorted", m});
  m = a;
  std::swap(m.row_ptr[10], m.row_ptr[11]);
  cases.push_back({"decreasing row pointer", m});
  m = a;
  for (auto& p : m.row_ptr) ++p;  // starts at 1; one more entry keeps the arrays' lengths right
  m.col_idx.push_back(0);
  m.values.push_back(1.0);
  cases.push_back({"row pointer not starting at 0", m});
  for (const auto& [name, bad] : cases) {
    EXPECT_THROW(sell::build(bad, sell::sell_params{}), bad_input) << name;
    EXPECT_THROW(ipcsr::build(bad, ipcsr::ipcsr_params{}), bad_input) << name;
    for (const auto& p : sell_variants()) expect_same_both_types(bad, p, name);
    for (const auto& p : ipcsr_variants()) expect_same_both_types(bad, p, name);
  }
  // A device block whose row pointer ends past its nnz: download_csr gives nnz columns, which
  // validate_csr words as the columns' count.
  for (const auto& p : sell_variants()) {
    auto d = upload_csr(a);
    --d.nnz;
    expect_same(std::move(d), p, "row pointer past nnz");
  }
  for (const auto& p : ipcsr_variants()) {
    auto d = upload_csr(a);
    --d.nnz;
    expect_same(std::move(d), p, "row pointer past nnz");
  }
}

}  // namespace
}  // namespace distspmv
