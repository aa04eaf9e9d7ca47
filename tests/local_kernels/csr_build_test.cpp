// The CSR kernels' build-time decisions (host; the kernels themselves are checked on the GPU by
// formats_test): the gather span, the choice to stream the matrix past the L2 cache, pattern
// storage (no values where every value is 1) and float values (mixed precision).
#include <gtest/gtest.h>

#include <limits>

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

TEST(CsrRowBlocks, EachBlockKnowsTheNonzerosBeforeIt) {
  // The adaptive kernel loads a block's first nonzero beside its first row, not after it.
  for (const auto& m : test::edge_case_matrices()) {
    const auto b = csr::build(convert_csr<double, index_type>(m.a), csr::csr_params{csr::kernel::adaptive, 0});
    ASSERT_EQ(b.row_block_nnz.size(), b.row_blocks.size()) << m.name;
    for (std::size_t k = 0; k < b.row_blocks.size(); ++k)
      EXPECT_EQ(b.row_block_nnz[k], b.row_ptr[static_cast<std::size_t>(b.row_blocks[k])]) << m.name << " block " << k;
  }
  EXPECT_TRUE(csr::build(convert_csr<double, index_type>(edge_case("many_empty_rows")),
                         csr::csr_params{csr::kernel::split, 0})
                  .row_block_nnz.empty());
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

csr::csr_params float_values_params(csr::kernel k) {
  csr::csr_params p;
  p.algorithm = k;
  p.float_values = true;
  return p;
}

TEST(CsrFloatValues, StoresTheValuesRoundedToFloatAndMultipliesInDouble) {
  const auto& a = edge_case("power_law");
  for (const auto k :
       {csr::kernel::scalar, csr::kernel::vector, csr::kernel::adaptive, csr::kernel::merge, csr::kernel::split}) {
    const auto m = csr::build(a, float_values_params(k));
    ASSERT_EQ(m.values_f32.size(), a.values.size());
    EXPECT_TRUE(m.values.empty());
    EXPECT_NE(m.stats.params.find("float-values"), std::string::npos) << m.stats.params;
    EXPECT_EQ(m.stats.stored_bytes, csr::build(a, csr::csr_params{k, 0}).stats.stored_bytes - 4 * a.values.size());
    // The oracle on the rounded values, in double: the same sums in the same order.
    auto rounded = a;
    for (auto& v : rounded.values) v = static_cast<double>(static_cast<float>(v));
    EXPECT_EQ(csr::to_csr(m).values, rounded.values);
    const auto v = csr::traits::view_of(m, [](const auto& vec) { return vec.data(); });
    EXPECT_EQ(v.values, nullptr);
    EXPECT_NE(v.values_f32, nullptr);
    std::vector<double> x(static_cast<std::size_t>(a.cols)), y(static_cast<std::size_t>(a.rows), 2.0), want = y;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / static_cast<double>(i + 3);  // not exact in float
    csr::spmv_reference(v, 1.5, x.data(), -0.5, y.data());
    csr::spmv_host(rounded, 1.5, x.data(), -0.5, want.data());
    EXPECT_EQ(y, want);
  }
}

TEST(CsrFloatValues, FloatMatricesAndPatternsAreUnchanged) {
  const auto f = csr::build(convert_csr<float, index_type>(edge_case("power_law")), float_values_params(csr::kernel::split));
  EXPECT_TRUE(f.values_f32.empty());
  EXPECT_FALSE(f.values.empty());
  const auto p = csr::build(edge_case("pattern_power_law"), float_values_params(csr::kernel::split));
  EXPECT_TRUE(p.pattern);
  EXPECT_TRUE(p.values_f32.empty());
  EXPECT_EQ(p.stats.params.find("float-values"), std::string::npos);
}

TEST(CsrFloatValues, AValueBeyondFloatsRangeIsBadInputNamingIt) {
  auto a = edge_case("odd_999");
  const offset_type k = a.row_ptr[500];  // every row of odd_999 has an entry
  a.values[static_cast<std::size_t>(k)] = -1e39;
  try {
    csr::build(a, float_values_params(csr::kernel::adaptive));
    FAIL() << "no bad_input";
  } catch (const bad_input& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("of row 500"), std::string::npos) << what;
    EXPECT_NE(what.find("-1e+39"), std::string::npos) << what;
    EXPECT_NE(what.find("--precision double"), std::string::npos) << what;
  }
  // Infinity stays infinity in float: --allow-nonfinite decides about it, not the narrowing.
  a.values[static_cast<std::size_t>(k)] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(csr::build(a, float_values_params(csr::kernel::adaptive)).values_f32[static_cast<std::size_t>(k)],
            std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace distspmv
