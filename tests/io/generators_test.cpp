// Tests of the matrix generators: exact small stencils, range slicing, determinism, the
// statistics of the random kinds, and every malformed spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "io/generators.hpp"

namespace distspmv::io {
namespace {

/// Entries of one row as (column, value) pairs.
std::vector<std::pair<global_index_type, double>> row_entries(const csr_matrix<double>& a, global_index_type r) {
  std::vector<std::pair<global_index_type, double>> out;
  for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) out.emplace_back(a.col_idx[k], a.values[k]);
  return out;
}

/// Reference 3-D stencil by brute force over all grid pairs (reach 1 per axis).
csr_matrix<double> brute_stencil(global_index_type n, bool seven) {
  csr_matrix<double> a;
  a.rows = a.cols = n * n * n;
  a.row_ptr.assign(1, 0);
  for (global_index_type i = 0; i < a.rows; ++i) {
    const global_index_type x = i % n, y = (i / n) % n, z = i / (n * n);
    for (global_index_type j = 0; j < a.rows; ++j) {
      const global_index_type dx = j % n - x, dy = (j / n) % n - y, dz = j / (n * n) - z;
      const auto manhattan = std::abs(dx) + std::abs(dy) + std::abs(dz);
      const auto chebyshev = std::max({std::abs(dx), std::abs(dy), std::abs(dz)});
      if (seven ? manhattan > 1 : chebyshev > 1) continue;
      a.col_idx.push_back(j);
      a.values.push_back(i == j ? (seven ? 6.0 : 26.0) : -1.0);
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

const std::vector<std::string> small_specs = {
    "gen:poisson3d:1",     "gen:poisson3d:5",        "gen:stencil27:1",
    "gen:stencil27:4",     "gen:rmat:1:1",           "gen:rmat:7:8",
    "gen:rmat:9:3",        "gen:lognormal:1:0:0:0",  "gen:lognormal:500:1.5:1:20",
    "gen:lognormal:300:4:1:3",  // most rows fill their whole window
    "gen:lognormal:200:0.5:2:1000"};  // band wider than the matrix

// ---- exact small cases ----------------------------------------------------------------------

TEST(Poisson3d, TwoCubedIsExact) {
  const auto a = generate("gen:poisson3d:2");
  ASSERT_EQ(a.rows, 8);
  ASSERT_EQ(a.cols, 8);
  ASSERT_EQ(a.nnz(), 32);  // every corner has 3 neighbours
  // Row 0 = (0,0,0): neighbours x+1 = 1, y+1 = 2, z+1 = 4.
  EXPECT_EQ(row_entries(a, 0), (std::vector<std::pair<global_index_type, double>>{{0, 6}, {1, -1}, {2, -1}, {4, -1}}));
  // Row 5 = (1,0,1): x-1 = 4, y+1 = 7, z-1 = 1.
  EXPECT_EQ(row_entries(a, 5), (std::vector<std::pair<global_index_type, double>>{{1, -1}, {4, -1}, {5, 6}, {7, -1}}));
  EXPECT_EQ(a, brute_stencil(2, true));
  validate_csr(a, "gen:poisson3d:2");
}

TEST(Poisson3d, MatchesBruteForceAndInteriorRowSumsToZero) {
  const auto a = generate("gen:poisson3d:4");
  EXPECT_EQ(a, brute_stencil(4, true));
  const global_index_type interior = 1 + 1 * 4 + 2 * 16;  // (1, 1, 2)
  double sum = 0;
  for (const auto& [c, v] : row_entries(a, interior)) sum += v;
  EXPECT_EQ(a.row_length(interior), 7);
  EXPECT_EQ(sum, 0.0);
  // A corner keeps the Dirichlet diagonal 6 with three neighbours: row sum 3.
  double corner = 0;
  for (const auto& [c, v] : row_entries(a, 0)) corner += v;
  EXPECT_EQ(corner, 3.0);
}

TEST(Stencil27, ThreeCubedIsExact) {
  const auto a = generate("gen:stencil27:3");
  ASSERT_EQ(a.rows, 27);
  EXPECT_EQ(a.nnz(), 7 * 7 * 7);  // (3N - 2)^3
  EXPECT_EQ(a.row_length(13), 27);  // the centre sees the whole grid
  EXPECT_EQ(a.row_length(0), 8);    // a corner sees a 2x2x2 block
  EXPECT_EQ(a.row_length(1), 12);   // an edge midpoint: 3x2x2
  EXPECT_EQ(a.row_length(4), 18);   // a face centre: 3x3x2
  double centre_sum = 0;
  for (const auto& [c, v] : row_entries(a, 13)) centre_sum += v;
  EXPECT_EQ(centre_sum, 0.0);
  EXPECT_EQ(row_entries(a, 0), (std::vector<std::pair<global_index_type, double>>{
                                   {0, 26}, {1, -1}, {3, -1}, {4, -1}, {9, -1}, {10, -1}, {12, -1}, {13, -1}}));
  EXPECT_EQ(a, brute_stencil(3, false));
  validate_csr(a, "gen:stencil27:3");
}

TEST(Stencil27, OneCellIsTheDiagonal) {
  const auto a = generate("gen:stencil27:1");
  ASSERT_EQ(a.nnz(), 1);
  EXPECT_EQ(a.values[0], 26.0);
}

// ---- ranges, determinism, describe ----------------------------------------------------------

TEST(Generators, RangesAreSlicesOfTheWholeMatrix) {
  std::mt19937_64 rng(7);
  for (const auto& spec : small_specs) {
    SCOPED_TRACE(spec);
    const auto whole = generate(spec, 3);
    validate_csr(whole, spec);
    const global_index_type n = whole.rows;
    std::vector<row_range> ranges = {{0, n}, {0, 0}, {n, n}, {n - 1, n}, {0, 1}, {n / 2, n / 2}};
    for (int t = 0; t < 12; ++t) {
      global_index_type a = static_cast<global_index_type>(rng() % (n + 1));
      global_index_type b = static_cast<global_index_type>(rng() % (n + 1));
      ranges.push_back({std::min(a, b), std::max(a, b)});
    }
    for (const auto& r : ranges) {
      SCOPED_TRACE("rows [" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")");
      const auto part = generate_rows(spec, r, 3);
      EXPECT_EQ(part.rows, r.size());
      EXPECT_EQ(part, slice_rows(whole, r));
    }
  }
}

TEST(Generators, ParallelWholeMatrixEqualsSerialRanges) {
  // Large enough that the whole matrix is built by several OpenMP threads (when there are any)
  // while small ranges are built serially: results must not depend on the split.
  for (const std::string spec : {"gen:poisson3d:24", "gen:stencil27:22", "gen:rmat:15:4", "gen:lognormal:30000:2:1:50"}) {
    SCOPED_TRACE(spec);
    const auto whole = generate(spec, 9);
    const global_index_type n = whole.rows;
    for (const row_range r : {row_range{0, 100}, row_range{n / 3, n / 3 + 5000}, row_range{n - 777, n}}) {
      EXPECT_EQ(generate_rows(spec, r, 9), slice_rows(whole, r));
    }
  }
}

TEST(Generators, SameSeedSameMatrixOtherSeedOtherMatrix) {
  for (const auto& spec : small_specs) {
    SCOPED_TRACE(spec);
    EXPECT_EQ(generate(spec, 11), generate(spec, 11));
  }
  for (const std::string spec : {"gen:rmat:8:4", "gen:lognormal:300:2:1:10"}) {
    SCOPED_TRACE(spec);
    const auto a = generate(spec, 11), b = generate(spec, 12);
    EXPECT_FALSE(a.col_idx == b.col_idx);
    EXPECT_FALSE(a.values == b.values);
  }
  // Stencils ignore the seed.
  EXPECT_EQ(generate("gen:stencil27:3", 1), generate("gen:stencil27:3", 99));
  // The default seed is 1.
  EXPECT_EQ(generate("gen:rmat:6:2"), generate("gen:rmat:6:2", 1));
}

TEST(Generators, DescribeMatchesGenerate) {
  for (const std::string spec : {"gen:poisson3d:1", "gen:poisson3d:2", "gen:poisson3d:7", "gen:stencil27:1",
                                 "gen:stencil27:2", "gen:stencil27:6"}) {
    SCOPED_TRACE(spec);
    const auto info = describe_generator(spec);
    const auto a = generate(spec);
    EXPECT_EQ(info.rows, a.rows);
    EXPECT_EQ(info.cols, a.cols);
    EXPECT_EQ(info.nnz_estimate, a.nnz());  // exact for the stencils
  }
  // The DESIGN.md anchors, by closed form (no generation).
  EXPECT_EQ(describe_generator("gen:poisson3d:200").nnz_estimate, 55760000);
  EXPECT_EQ(describe_generator("gen:stencil27:150").nnz_estimate, 89915392);
  EXPECT_EQ(describe_generator("gen:rmat:22:16").rows, 4194304);

  for (const std::string spec : {"gen:rmat:12:16", "gen:rmat:14:2", "gen:lognormal:20000:2:0.7:50",
                                 "gen:lognormal:50000:1:3:10", "gen:lognormal:5000:3:0:10"}) {
    SCOPED_TRACE(spec);
    const auto info = describe_generator(spec);
    const auto a = generate(spec);
    EXPECT_EQ(info.rows, a.rows);
    EXPECT_NEAR(static_cast<double>(a.nnz()), static_cast<double>(info.nnz_estimate), 0.02 * info.nnz_estimate);
  }
  // SIGMA = 0 makes every length exactly round(exp(MU)) clamped to the window: exact.
  EXPECT_EQ(describe_generator("gen:lognormal:5000:3:0:10").nnz_estimate, generate("gen:lognormal:5000:3:0:10").nnz());
}

TEST(Generators, DescribeOfHugeSpecsIsCheap) {
  // Closed forms and sums over quantiles, never over rows.
  const auto r = describe_generator("gen:rmat:40:16");
  EXPECT_EQ(r.rows, global_index_type{1} << 40);
  EXPECT_GT(r.nnz_estimate, 0);
  EXPECT_LE(r.nnz_estimate, offset_type{16} << 40);
  // A band of a billion: the far tail of the length distribution is integrated, not summed.
  const auto l = describe_generator("gen:lognormal:1000000000:2:2.5:1000000000");
  EXPECT_GT(l.nnz_estimate, 1000000000);
  EXPECT_LT(l.nnz_estimate, offset_type{1000000000} * 1000);
}

// ---- R-MAT ----------------------------------------------------------------------------------

TEST(Rmat, RelabellingIsABijection) {
  for (const std::uint64_t seed : {1ULL, 2ULL, 12345ULL}) {
    std::vector<char> seen(1 << 10, 0);
    bool identity = true;
    for (std::uint64_t v = 0; v < (1u << 10); ++v) {
      const std::uint64_t w = detail::rmat_relabel(v, 10, seed);
      ASSERT_LT(w, 1u << 10);
      ASSERT_FALSE(seen[w]) << "two vertices map to " << w;
      seen[w] = 1;
      identity = identity && w == v;
    }
    EXPECT_FALSE(identity);
  }
  for (int scale : {1, 2, 3, 5}) {
    std::set<std::uint64_t> images;
    for (std::uint64_t v = 0; v < (1u << scale); ++v) images.insert(detail::rmat_relabel(v, scale, 5));
    EXPECT_EQ(images.size(), 1u << scale);
    EXPECT_LT(*images.rbegin(), 1u << scale);
  }
}

TEST(Rmat, SizeSkewAndValues) {
  const auto a = generate("gen:rmat:12:16");
  const global_index_type n = 1 << 12;
  ASSERT_EQ(a.rows, n);
  ASSERT_EQ(a.cols, n);
  EXPECT_LE(a.nnz(), 16 * n);
  EXPECT_GT(a.nnz(), 8 * n);  // duplicates remove a few percent, not half
  offset_type longest = 0;
  global_index_type empty = 0;
  for (global_index_type r = 0; r < n; ++r) {
    longest = std::max(longest, a.row_length(r));
    empty += a.row_length(r) == 0;
  }
  const double mean = static_cast<double>(a.nnz()) / n;
  EXPECT_GT(longest, 20 * mean) << "R-MAT degrees should be heavily skewed";
  EXPECT_GT(empty, n / 10) << "R-MAT leaves many vertices without out-edges";
  // Relabelling spreads the hubs: the longest row is not vertex 0 (whose pre-image is the
  // all-"a" corner).
  EXPECT_NE(a.row_length(0), longest);
  // Values are sums of draws in (0, 1]: positive, and the sum per row at most the raw edges.
  double total = 0;
  for (double v : a.values) {
    ASSERT_GT(v, 0.0);
    total += v;
  }
  EXPECT_NEAR(total / (16.0 * n), 0.5, 0.02);  // mean draw 1/2, every edge counted once
}

TEST(Rmat, AverageNnzOverSeedsMatchesExpectation) {
  // The expectation of describe_generator, over 200 seeds of a tiny graph: checks the quadrant
  // probabilities of the generator as well.
  const std::string spec = "gen:rmat:5:4";
  double sum = 0;
  const int seeds = 200;
  for (int s = 1; s <= seeds; ++s) sum += static_cast<double>(generate(spec, s).nnz());
  EXPECT_NEAR(sum / seeds, static_cast<double>(describe_generator(spec).nnz_estimate), 1.0);
}

// ---- lognormal ------------------------------------------------------------------------------

TEST(Lognormal, BandAndMeanLength) {
  const global_index_type rows = 100000, band = 200;
  const double mu = 2.0, sigma = 0.6;
  const auto a = generate("gen:lognormal:100000:2.0:0.6:200");
  ASSERT_EQ(a.rows, rows);
  for (global_index_type r = 0; r < rows; ++r) {
    ASSERT_GE(a.row_length(r), 1);
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      ASSERT_LE(std::abs(a.col_idx[k] - r), band) << "row " << r;
      ASSERT_GT(a.values[k], 0.0);
      ASSERT_LE(a.values[k], 1.0);
    }
  }
  validate_csr(a, "lognormal");
  const double mean = static_cast<double>(a.nnz()) / rows;
  EXPECT_NEAR(mean, std::exp(mu + sigma * sigma / 2), 0.1 * std::exp(mu + sigma * sigma / 2));
}

TEST(Lognormal, ClampsToTheWindowAndFillsIt) {
  // exp(MU) far above the window: every row is its whole window, edges included.
  const auto a = generate("gen:lognormal:50:10:0:3");
  for (global_index_type r = 0; r < a.rows; ++r) {
    const global_index_type lo = std::max<global_index_type>(0, r - 3), hi = std::min<global_index_type>(49, r + 3);
    ASSERT_EQ(a.row_length(r), hi - lo + 1);
    EXPECT_EQ(a.col_idx[a.row_ptr[r]], lo);
    EXPECT_EQ(a.col_idx[a.row_ptr[r + 1] - 1], hi);
  }
  // exp(MU) below 1/2: every row keeps one entry. BAND 0 is the diagonal.
  const auto b = generate("gen:lognormal:40:-5:0:7");
  EXPECT_EQ(b.nnz(), 40);
  // A band far wider than the matrix (even near the int64 limit) is the whole row.
  const auto wide = generate("gen:lognormal:5:10:0:9223372036854775807");
  EXPECT_EQ(wide.nnz(), 25);
  const auto d = generate("gen:lognormal:40:3:1:0");
  for (global_index_type r = 0; r < d.rows; ++r) {
    ASSERT_EQ(d.row_length(r), 1);
    EXPECT_EQ(d.col_idx[d.row_ptr[r]], r);
  }
}

TEST(Lognormal, ColumnsAreUniformWithinTheWindow) {
  // Sparse picks (rejection) and dense picks (selection sampling) must both cover the window
  // evenly: count column offsets relative to the row over interior rows.
  for (const std::string spec : {"gen:lognormal:20000:1:0:40", "gen:lognormal:20000:3.4:0:40"}) {
    SCOPED_TRACE(spec);
    const auto a = generate(spec);
    std::vector<double> hits(81, 0);
    double picks = 0;
    for (global_index_type r = 40; r < a.rows - 40; ++r)
      for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k, ++picks) hits[a.col_idx[k] - r + 40] += 1;
    for (double h : hits) EXPECT_NEAR(h / picks, 1.0 / 81, 0.25 / 81);
  }
}

// ---- bad specs ------------------------------------------------------------------------------

/// Expects bad_input whose where() names `field` and whose message names the spec.
void expect_bad(const std::string& spec, const std::string& field) {
  SCOPED_TRACE(spec);
  try {
    describe_generator(spec);
    ADD_FAILURE() << "describe_generator accepted " << spec;
  } catch (const bad_input& e) {
    EXPECT_EQ(e.source(), spec);
    EXPECT_EQ(e.where(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(spec), std::string::npos);
  }
  EXPECT_THROW(generate_rows(spec, {0, 0}), bad_input);
}

TEST(Generators, BadSpecsNameTheField) {
  expect_bad("gen:", "kind");
  expect_bad("gen:poisson", "kind");
  expect_bad("gen:Poisson3d:4", "kind");
  expect_bad("gen:poisson3d", "fields");
  expect_bad("gen:poisson3d:4:4", "fields");
  expect_bad("gen:poisson3d:", "N");
  expect_bad("gen:poisson3d:x", "N");
  expect_bad("gen:poisson3d:4.0", "N");
  expect_bad("gen:poisson3d: 4", "N");
  expect_bad("gen:poisson3d:+4", "N");
  expect_bad("gen:poisson3d:0", "N");
  expect_bad("gen:poisson3d:-3", "N");
  expect_bad("gen:poisson3d:99999999999999999999", "N");
  expect_bad("gen:poisson3d:1000000", "N");  // 7e18 nonzeros > 2^62
  expect_bad("gen:stencil27:600000", "N");   // 5.8e18
  expect_bad("gen:stencil27:0", "N");
  expect_bad("gen:rmat:10", "fields");
  expect_bad("gen:rmat:10:16:1", "fields");
  expect_bad("gen:rmat:0:16", "SCALE");
  expect_bad("gen:rmat:41:16", "SCALE");
  expect_bad("gen:rmat:ten:16", "SCALE");
  expect_bad("gen:rmat:10:0", "EF");
  expect_bad("gen:rmat:10:-1", "EF");
  expect_bad("gen:rmat:10:1.5", "EF");
  expect_bad("gen:rmat:40:4194305", "EF");  // 2^40 * (2^22 + 1) > 2^62 edges
  expect_bad("gen:lognormal:100:1:1", "fields");
  expect_bad("gen:lognormal:0:1:1:10", "ROWS");
  expect_bad("gen:lognormal:-5:1:1:10", "ROWS");
  expect_bad("gen:lognormal:1e6:1:1:10", "ROWS");
  expect_bad("gen:lognormal:100:abc:1:10", "MU");
  expect_bad("gen:lognormal:100:nan:1:10", "MU");
  expect_bad("gen:lognormal:100:inf:1:10", "MU");
  expect_bad("gen:lognormal:100:1:-0.5:10", "SIGMA");
  expect_bad("gen:lognormal:100:1:x:10", "SIGMA");
  expect_bad("gen:lognormal:100:1:1:-1", "BAND");
  expect_bad("gen:lognormal:100:1:1:2.5", "BAND");
  expect_bad("gen:lognormal:4000000000000:1:1:4000000000000", "BAND");  // 1.6e25 possible entries
  expect_bad("gen:unknown:3", "kind");
  // The unknown-kind message lists the known kinds.
  try {
    describe_generator("gen:banana:3");
  } catch (const bad_input& e) {
    for (const char* kind : {"poisson3d", "stencil27", "rmat", "lognormal"})
      EXPECT_NE(std::string(e.what()).find(kind), std::string::npos) << e.what();
  }
  EXPECT_THROW(describe_generator("poisson3d:4"), bad_input);
}

TEST(Generators, BadRangesAreRejected) {
  EXPECT_THROW(generate_rows("gen:poisson3d:3", {-1, 2}), bad_input);
  EXPECT_THROW(generate_rows("gen:poisson3d:3", {3, 2}), bad_input);
  EXPECT_THROW(generate_rows("gen:poisson3d:3", {0, 28}), bad_input);
  EXPECT_THROW(generate_rows("gen:rmat:4:1", {0, 17}), bad_input);
  EXPECT_NO_THROW(generate_rows("gen:poisson3d:3", {27, 27}));
}

TEST(Generators, IsGenerator) {
  EXPECT_TRUE(is_generator("gen:poisson3d:4"));
  EXPECT_TRUE(is_generator("gen:"));
  EXPECT_FALSE(is_generator("gen"));
  EXPECT_FALSE(is_generator("A.mtx"));
  EXPECT_FALSE(is_generator("./gen:poisson3d:4"));
}

}  // namespace
}  // namespace distspmv::io
