// IPCSR build tests (STYLE.md §6, tier 2): the row blocks of the paper's examples, the decision
// tree, block invariants and CSR -> IPCSR -> CSR on every edge case, statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/ipcsr/ipcsr.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

/// Rows of the given lengths (columns 0, 1, ..., values 1).
csr_matrix<double, index_type> with_lengths(const std::vector<index_type>& lengths, global_index_type cols) {
  csr_matrix<double, index_type> a;
  a.rows = static_cast<global_index_type>(lengths.size());
  a.cols = cols;
  for (index_type len : lengths) {
    for (index_type c = 0; c < len; ++c) {
      a.col_idx.push_back(c);
      a.values.push_back(1.0);
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

/// Parameters whose stage holds exactly `values` doubles.
ipcsr::ipcsr_params stage_of(offset_type values) {
  ipcsr::ipcsr_params p;
  p.shared_bytes = static_cast<std::size_t>(values + 3) * sizeof(double);
  return p;
}

TEST(IpcsrBuild, PaperExampleEvenRowsMakeTwoBlocks) {
  // Seed 004 §4: 128 rows of 16 nonzeros, SHARED_SIZE = 1024 -> two blocks of 64 rows.
  const auto m = ipcsr::build(with_lengths(std::vector<index_type>(128, 16), 64), stage_of(1024));
  EXPECT_EQ(m.row_blocks, (std::vector<index_type>{0, 64, 128}));
  EXPECT_EQ(m.threads_per_row, (std::vector<std::int32_t>{16, 16}));  // 16 * 64 = nt
  EXPECT_EQ(m.stage_entries, 1024);
}

TEST(IpcsrBuild, PaperExampleLongFirstRowMakesThreeBlocks) {
  // First row 32 nonzeros, 127 rows of 16: blocks of 63, 64 and 1 rows.
  std::vector<index_type> lengths(128, 16);
  lengths[0] = 32;
  const auto m = ipcsr::build(with_lengths(lengths, 64), stage_of(1024));
  EXPECT_EQ(m.row_blocks, (std::vector<index_type>{0, 63, 127, 128}));
  EXPECT_EQ(m.threads_per_row, (std::vector<std::int32_t>{16, 16, 0}));  // a one-row block takes the long-row path
}

TEST(IpcsrBuild, RowLongerThanTheStageGetsItsOwnBlock) {
  const auto m = ipcsr::build(with_lengths({5, 5000, 5, 7}, 6000), stage_of(1024));
  EXPECT_EQ(m.row_blocks, (std::vector<index_type>{0, 1, 2, 4}));
  EXPECT_EQ(m.threads_per_row, (std::vector<std::int32_t>{0, 0, 8}));  // 2 rows of mean 6: P = 8 < 2 * 6
  EXPECT_EQ(m.stage_entries, 12);
}

TEST(IpcsrBuild, BlocksHoldAtMostNtRows) {
  const auto m = ipcsr::build(with_lengths(std::vector<index_type>(3000, 1), 4), ipcsr::ipcsr_params{});
  EXPECT_EQ(m.row_blocks, (std::vector<index_type>{0, 1024, 2048, 3000}));
  EXPECT_EQ(m.threads_per_row, (std::vector<std::int32_t>{1, 1, 1}));
}

TEST(IpcsrBuild, DecisionTreeGivesThreadsToRowsWhileThreadsAreSpare) {
  EXPECT_EQ(ipcsr::threads_per_row_for(1024, 1024), 1);  // every thread has a row
  EXPECT_EQ(ipcsr::threads_per_row_for(64, 1024), 16);   // 16 * 64 = 1024
  EXPECT_EQ(ipcsr::threads_per_row_for(2, 2000), 32);    // capped at a warp
  EXPECT_EQ(ipcsr::threads_per_row_for(100, 100), 1);    // rows of 1: no second thread
  EXPECT_EQ(ipcsr::threads_per_row_for(100, 300), 4);    // mean 3: P < 2 * mean
  EXPECT_EQ(ipcsr::threads_per_row_for(300, 30000), 2);  // 4 * 300 > 1024
}

template <typename V>
void check_blocks(const ipcsr::ipcsr_matrix<V>& m, const std::string& name) {
  const offset_type capacity = ipcsr::stage_capacity(m.params.shared_bytes, sizeof(V));
  ASSERT_EQ(m.row_blocks.front(), 0) << name;
  ASSERT_EQ(m.row_blocks.back(), m.rows) << name;
  ASSERT_EQ(m.threads_per_row.size() + 1, m.row_blocks.size()) << name;
  for (std::size_t b = 0; b + 1 < m.row_blocks.size(); ++b) {
    const offset_type rows = m.row_blocks[b + 1] - m.row_blocks[b];
    const offset_type nnz = m.row_ptr[m.row_blocks[b + 1]] - m.row_ptr[m.row_blocks[b]];
    const int p = m.threads_per_row[b];
    ASSERT_GE(rows, 1) << name << " block " << b;
    ASSERT_LE(rows, ipcsr::block_threads) << name << " block " << b;
    if (rows == 1) {
      ASSERT_EQ(p, 0) << name << " block " << b;
    } else {
      ASSERT_LE(nnz, capacity) << name << " block " << b;
      ASSERT_LE(nnz, m.stage_entries) << name << " block " << b;
      ASSERT_TRUE(p == 1 || p == 2 || p == 4 || p == 8 || p == 16 || p == 32) << name << " block " << b;
      ASSERT_LE(p * rows, ipcsr::block_threads) << name << " block " << b;
    }
  }
  ASSERT_LE(m.stage_entries, capacity) << name;
}

TEST(IpcsrBuild, RoundTripsEveryEdgeCaseWithValidBlocks) {
  for (const auto& named : test::edge_case_matrices()) {
    const auto copy = named.a;
    const auto m = ipcsr::build(named.a, ipcsr::ipcsr_params{});
    EXPECT_EQ(ipcsr::to_csr(m), named.a) << named.name;
    check_blocks(m, named.name);
    const auto f = convert_csr<float, index_type>(named.a);
    const auto mf = ipcsr::build(f, stage_of(1000));  // a small stage: more blocks and long rows
    EXPECT_EQ(ipcsr::to_csr(mf), f) << named.name;
    check_blocks(mf, named.name);
    EXPECT_EQ(named.a, copy) << named.name << ": input changed";
  }
}

TEST(IpcsrBuild, DefaultStageIsEq3OnHopperAndHostParamsKeepIt) {
  EXPECT_EQ(ipcsr::default_shared_bytes, 228u * 1024u / 2u - 1024u);
  EXPECT_EQ(ipcsr::params_for(backend::host).shared_bytes, ipcsr::default_shared_bytes);
  EXPECT_EQ(ipcsr::stage_capacity(ipcsr::default_shared_bytes, sizeof(double)), 14464 - 3);
  // Without a GPU (CI, this machine) the CUDA parameters stay at the default.
  if (ipcsr::device_shared_bytes() == 0)
    EXPECT_EQ(ipcsr::params_for(backend::cuda).shared_bytes, ipcsr::default_shared_bytes);
  else
    EXPECT_LE(ipcsr::params_for(backend::cuda).shared_bytes, ipcsr::device_shared_bytes());
}

TEST(IpcsrBuild, RejectsAStageBelowAWarp) {
  ipcsr::ipcsr_params p;
  p.shared_bytes = 100;
  EXPECT_THROW(ipcsr::build(with_lengths({1, 2}, 3), p), bad_input);
}

TEST(IpcsrBuild, StatisticsDescribeTheLayout) {
  const auto a = with_lengths({5, 5000, 5, 7}, 6000);
  const auto m = ipcsr::build(a, stage_of(1024));
  EXPECT_EQ(m.stats.stored_bytes, 5 * sizeof(offset_type) + 5017 * (sizeof(index_type) + sizeof(double)) +
                                      4 * sizeof(index_type) + 3 * sizeof(std::int32_t));
  EXPECT_DOUBLE_EQ(m.stats.padding_ratio, 1.0);
  EXPECT_EQ(m.stats.n_iter, 5000);
  EXPECT_EQ(m.stats.n_p, 5000 * 32 - 5017);
  EXPECT_NE(m.stats.params.find("single_row_blocks=2"), std::string::npos) << m.stats.params;
}

TEST(IpcsrReference, MatchesCsrAndOverwritesYWhenBetaIsZero) {
  const auto a = test::random_csr(777, 500, 0, 30, 31);
  const auto m = ipcsr::build(a, stage_of(512));
  const auto v = ipcsr::traits::view_of(m, [](const auto& vec) { return vec.data(); });
  std::vector<double> x(500);
  for (int i = 0; i < 500; ++i) x[i] = std::sin(0.3 * i);
  std::vector<double> y(777, std::numeric_limits<double>::quiet_NaN()), ref(777);
  ipcsr::spmv_reference(v, 0.75, x.data(), 0.0, y.data());
  csr::spmv_host(a, 0.75, x.data(), 0.0, ref.data());
  for (int r = 0; r < 777; ++r) ASSERT_NEAR(y[r], ref[r], 1e-12) << "row " << r;
}

}  // namespace
}  // namespace distspmv
