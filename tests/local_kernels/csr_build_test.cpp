// The CSR kernels' build-time decisions (host; the kernels themselves are checked on the GPU by
// formats_test): the gather span, the choice to stream the matrix past the L2 cache, and pattern
// storage (no values where every value is 1).
#include <gtest/gtest.h>

#include "local_kernels/csr/csr.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

const csr_matrix<double, index_type>& edge_case(const std::string& name) {
  static const auto all = test::edge_case_matrices();
  for (const auto& m : all)
    if (m.name == name) return m.a;
  throw std::runtime_error("no edge case " + name);
}

TEST(CsrGatherSpan, WeighsEachBlocksColumnSpanByItsNonzeros) {
  // Block 0: rows 0-1 with columns {2, 9} and {5}: span 7 over 3 entries. Block 1: row 2 with
  // columns {0, 100}: span 100 over 2 entries. An empty block counts for nothing.
  const std::vector<offset_type> row_ptr = {0, 2, 3, 5, 5};
  const std::vector<index_type> col_idx = {2, 9, 5, 0, 100};
  EXPECT_DOUBLE_EQ(csr::mean_gather_span(row_ptr, col_idx, {0, 2, 3, 4}), (3.0 * 7 + 2.0 * 100) / 5.0);
  EXPECT_DOUBLE_EQ(csr::mean_gather_span({0}, {}, {0}), 0.0);
}

template <typename V>
bool streams(const csr_matrix<double, index_type>& a) {
  return csr::build(convert_csr<V, index_type>(a), csr::csr_params{csr::kernel::adaptive, 0}).stream_matrix;
}

TEST(CsrStreaming, FarApartGathersStreamTheMatrixCloseOnesDoNot) {
  // 600000 columns drawn at random: each block gathers from about 4.8 MB (double), 2.4 MB (float).
  EXPECT_TRUE(streams<double>(edge_case("wide_random")));
  EXPECT_TRUE(streams<float>(edge_case("wide_random")));
  // Five diagonals within +-300 columns, and a 20000-column power-law matrix: well under 1 MB.
  EXPECT_FALSE(streams<double>(edge_case("banded_five_diagonals")));
  EXPECT_FALSE(streams<double>(edge_case("power_law")));
  EXPECT_FALSE(streams<double>(edge_case("zero_rows")));
  // Other kernels never stream.
  const auto a = edge_case("wide_random");
  EXPECT_FALSE(csr::build(a, csr::csr_params{csr::kernel::vector, 0}).stream_matrix);
}

template <typename V>
void check_pattern(csr::kernel k) {
  const auto a = convert_csr<V, index_type>(edge_case("pattern_power_law"));
  const auto m = csr::build(a, csr::csr_params{k, 0});
  EXPECT_TRUE(m.pattern);
  EXPECT_TRUE(m.values.empty());
  EXPECT_NE(m.stats.params.find("pattern"), std::string::npos) << m.stats.params;
  const auto with_values = csr::build(convert_csr<V, index_type>(edge_case("power_law")), csr::csr_params{k, 0});
  EXPECT_FALSE(with_values.pattern);
  // Same rows and nonzeros: the pattern stores nnz values fewer.
  EXPECT_EQ(with_values.stats.stored_bytes - m.stats.stored_bytes, static_cast<std::size_t>(a.nnz()) * sizeof(V));
  // The view has no values; the host SpMV multiplies by 1, and to_csr gives the ones back.
  const auto v = csr::traits::view_of(m, [](const auto& vec) { return vec.data(); });
  EXPECT_TRUE(v.pattern);
  EXPECT_EQ(v.values, nullptr);
  std::vector<V> x(static_cast<std::size_t>(a.cols)), y(static_cast<std::size_t>(a.rows), V(2)), want = y;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = V(static_cast<double>(i % 17) - 8);
  csr::spmv_reference(v, V(1.5), x.data(), V(-0.5), y.data());
  csr::spmv_host(a, V(1.5), x.data(), V(-0.5), want.data());
  EXPECT_EQ(y, want);
  EXPECT_EQ(csr::to_csr(m).values, a.values);
}

TEST(CsrPattern, AllOnesStoreNoValuesAndMultiplyByOne) {
  for (const auto k :
       {csr::kernel::scalar, csr::kernel::vector, csr::kernel::adaptive, csr::kernel::merge, csr::kernel::split}) {
    check_pattern<double>(k);
    check_pattern<float>(k);
  }
}

TEST(CsrPattern, OneValueOtherThanOneKeepsTheValues) {
  auto a = edge_case("pattern_power_law");
  a.values[a.values.size() / 2] = 2.0;
  EXPECT_FALSE(csr::build(a, csr::csr_params{}).pattern);
  EXPECT_FALSE(csr::build(csr_matrix<double, index_type>(edge_case("zero_rows")), csr::csr_params{}).pattern);
}

}  // namespace
}  // namespace distspmv
