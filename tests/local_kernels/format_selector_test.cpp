// `--format auto`'s rules (format_selector.cpp) on statistics shaped like the bench matrices, and
// the statistics themselves on small matrices whose answers are known.
#include <gtest/gtest.h>

#include <algorithm>

#include "local_kernels/format_registry.hpp"
#include "local_kernels/format_selector.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "local_kernels/sell/sell.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

row_statistics irregular(offset_type nnz, int value_bytes) {
  row_statistics s;
  s.rows = nnz / 16;
  s.cols = s.rows;
  s.nnz = nnz;
  s.mean_length = 16;
  s.max_length = 98002;
  s.diagonals = 4097;
  s.ell_padding = static_cast<double>(s.rows) * 98002.0 / static_cast<double>(nnz);
  s.value_bytes = value_bytes;
  return s;
}

TEST(FormatSelector, FollowsTheMeasuredRules) {
  row_statistics stencil;
  stencil.rows = stencil.cols = 1000;
  stencil.nnz = 27000;
  stencil.mean_length = 27;
  stencil.max_length = 27;
  stencil.diagonals = 27;
  stencil.ell_padding = 1.0;
  EXPECT_EQ(select_format(stencil, backend::cuda).format, "hdia");
  EXPECT_EQ(select_format(stencil, backend::host).format, "csr");

  row_statistics uneven = stencil;  // cage11-like: many diagonals, short uneven rows
  uneven.diagonals = 4097;
  uneven.max_length = 41;
  uneven.mean_length = 17;
  uneven.ell_padding = 2.4;
  EXPECT_EQ(select_format(uneven, backend::cuda).format, "ellr");

  // Irregular rows with values: adaptive CSR while small, cuSPARSE between, row panels from
  // large_irregular_nnz (R-MAT 1.05-1.68x in double, 1.18-1.57x in float, runs 124-125).
  for (const int bytes : {8, 4}) {
    EXPECT_EQ(select_format(irregular(small_irregular_nnz - 1, bytes), backend::cuda).format, "csr");
    EXPECT_EQ(select_format(irregular(small_irregular_nnz, bytes), backend::cuda).format, "cusparse");
    EXPECT_EQ(select_format(irregular(large_irregular_nnz - 1, bytes), backend::cuda).format, "cusparse");
    EXPECT_EQ(select_format(irregular(large_irregular_nnz, bytes), backend::cuda).format, "panel");
    EXPECT_EQ(select_format(irregular(huge_irregular_nnz, bytes), backend::cuda).format, "panel");
  }
  // Short rows (rmat:22:8, mean 7.7: panel 0.94x in double) keep csr-split when huge in double,
  // else cuSPARSE.
  row_statistics short_mean = irregular(huge_irregular_nnz, 8);
  short_mean.mean_length = 7.7;
  EXPECT_EQ(select_format(short_mean, backend::cuda).format, "csr-split");
  short_mean.value_bytes = 4;
  EXPECT_EQ(select_format(short_mean, backend::cuda).format, "cusparse");
  EXPECT_NE(select_format(irregular(huge_irregular_nnz, 8), backend::cuda).reason.find("row panels"), std::string::npos);
  // A pattern (no values): adaptive CSR up to large_irregular_nnz, then csr-split in double.
  auto pattern = [](offset_type nnz, int bytes) {
    row_statistics s = irregular(nnz, bytes);
    s.pattern = true;
    return s;
  };
  EXPECT_EQ(select_format(pattern(large_irregular_nnz - 1, 4), backend::cuda).format, "csr");
  EXPECT_EQ(select_format(pattern(large_irregular_nnz, 8), backend::cuda).format, "csr-split");
  EXPECT_EQ(select_format(pattern(large_irregular_nnz, 4), backend::cuda).format, "cusparse");
  EXPECT_NE(select_format(pattern(1 << 20, 8), backend::cuda).reason.find("every value 1"), std::string::npos);
  EXPECT_EQ(select_format(row_statistics{}, backend::cuda).format, "csr");

  // Every pick is a registered format, and every pick says why.
  for (const auto& s : {stencil, uneven, irregular(1 << 20, 8), irregular(large_irregular_nnz, 8),
                        irregular(huge_irregular_nnz, 8), irregular(huge_irregular_nnz, 4),
                        pattern(large_irregular_nnz, 8)}) {
    const auto c = select_format(s, backend::cuda);
    EXPECT_NO_THROW(find_format(c.format)) << c.format;
    EXPECT_FALSE(c.reason.empty()) << c.format;
  }
}

TEST(FormatSelector, TrialFormatsAddPanelForIrregularRows) {
  // Issues 36 and 37: `--order auto` times panel beside the rule's pick where the mean row keeps
  // the rule from panel (rmat:22:8, R-MAT's rank blocks from 4 M nonzeros), and on one rank below
  // the rule's size (rmat:19:16 with its hub rows cut: 1.18x); elsewhere the pick alone.
  row_statistics short_mean = irregular(huge_irregular_nnz, 8);
  short_mean.mean_length = 7.7;
  const auto c = trial_formats(short_mean, backend::cuda, false);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].format, select_format(short_mean, backend::cuda).format);
  EXPECT_EQ(c[1].format, "panel");
  EXPECT_FALSE(c[1].reason.empty());
  EXPECT_EQ(trial_formats(short_mean, backend::host, false).size(), 1u);
  EXPECT_EQ(trial_formats(irregular(huge_irregular_nnz, 8), backend::cuda, true).size(), 1u);  // panel already
  row_statistics rank_block = irregular(large_irregular_nnz - 1, 8);
  EXPECT_EQ(trial_formats(rank_block, backend::cuda, false).size(), 1u);  // rows of mean 16: the rule's pick
  EXPECT_EQ(trial_formats(rank_block, backend::cuda, true).size(), 2u);   // one rank: timed
  rank_block.mean_length = 7.8;
  EXPECT_EQ(trial_formats(rank_block, backend::cuda, false).size(), 2u);
  rank_block.nnz = trial_panel_nnz - 1;
  EXPECT_EQ(trial_formats(rank_block, backend::cuda, false).size(), 1u);  // small
  EXPECT_EQ(trial_formats(rank_block, backend::cuda, true).size(), 1u);
  short_mean.pattern = true;
  EXPECT_EQ(trial_formats(short_mean, backend::cuda, false).size(), 1u);
  short_mean.pattern = false;
  short_mean.window_fit = 1.0;  // x windows fit: the rules keep their format
  EXPECT_EQ(trial_formats(short_mean, backend::cuda, false).size(), 1u);
}

/// Statistics of a block with rows of mean length 12.2 and at most 60 entries (lognormal lengths,
/// columns within a band), as measured in runs 68-69.
row_statistics short_rows(offset_type nnz, double ell_padding, double sorted_padding, int value_bytes,
                          global_index_type bandwidth = 1000) {
  row_statistics s;
  s.nnz = nnz;
  s.mean_length = 12.2;
  s.rows = s.cols = static_cast<global_index_type>(static_cast<double>(nnz) / s.mean_length);
  s.max_length = 28;
  s.diagonals = 2001;
  s.bandwidth = bandwidth;
  s.ell_padding = ell_padding;
  s.sell32_padding = 1.2 * sorted_padding;
  s.sell32_sorted_padding = sorted_padding;
  s.value_bytes = value_bytes;
  return s;
}

TEST(FormatSelector, PicksSellOrEllrByTheirBytes) {
  const offset_type big = 49'000'000, small = 610'000;  // ELLR: 14 MB at padding 2.27
  // Beyond L2, SELL-C-sigma wherever its sorted slots cost at most 1.05x CSR's bytes (runs 69-73:
  // 1.10-1.42x cuSPARSE in double, 1.03-1.35x in float, where ELLR ran 0.63-0.93x).
  for (const int bytes : {8, 4}) {
    EXPECT_EQ(select_format(short_rows(big, 1.31, 1.02, bytes), backend::cuda).format, "sell") << bytes;
    EXPECT_EQ(select_format(short_rows(big, 1.63, 1.04, bytes), backend::cuda).format, "sell") << bytes;
    EXPECT_EQ(select_format(short_rows(big, 2.27, 1.06, bytes), backend::cuda).format, "sell") << bytes;
  }
  // Sorted padding 1.14: SELL with 16-bit columns in double (1.05x, csr-split 1.06x); in float its
  // 32-bit columns cost more than CSR's bytes (SELL 0.93x), and the irregular path takes the block:
  // row panels, since these statistics say x's windows do not fit (window_fit 0).
  EXPECT_EQ(select_format(short_rows(big, 4.71, 1.14, 8), backend::cuda).format, "sell");
  EXPECT_EQ(select_format(short_rows(big, 4.71, 1.14, 4), backend::cuda).format, "panel");
  // Past 16-bit offsets, SELL's 32-bit columns: still within 1.05x at sorted padding 1.02, not at 1.13.
  EXPECT_EQ(select_format(short_rows(big, 1.31, 1.02, 8, 40000), backend::cuda).format, "sell");
  // Beyond: the irregular path, row panels (lognormal columns spread over 50000: 1.72x, run 125).
  EXPECT_EQ(select_format(short_rows(big, 4.48, 1.13, 8, 50000), backend::cuda).format, "panel");
  // A block whose ELLR bytes stay in L2: ELLR up to ELL padding 2.5 (1.21x at 2.27; cage11 1.56x).
  EXPECT_EQ(select_format(short_rows(small, 2.27, 1.06, 8), backend::cuda).format, "ellr");
  EXPECT_EQ(select_format(short_rows(small, 2.6, 1.06, 8), backend::cuda).format, "csr");  // as before
  EXPECT_EQ(select_format(short_rows(small * 2, 2.27, 1.06, 8), backend::cuda).format, "sell");  // 27 MB
  // A pattern: CSR stores no values, so neither ELL layout can match its bytes.
  row_statistics pattern = short_rows(big, 1.31, 1.02, 8);
  pattern.pattern = true;
  EXPECT_EQ(select_format(pattern, backend::cuda).format, "csr-split");

  const format_bytes b = format_bytes_per_nonzero(short_rows(big, 1.31, 1.02, 8));
  EXPECT_TRUE(b.ellr_16bit_columns);
  EXPECT_TRUE(b.sell_16bit_columns);
  EXPECT_NEAR(b.ellr, 1.31 * 10 + 4 / 12.2, 1e-12);
  EXPECT_NEAR(b.sell, 1.02 * 10 + 4 / 12.2, 1e-12);
  EXPECT_NEAR(b.csr, 12 + 8 / 12.2, 1e-12);
  const format_bytes f = format_bytes_per_nonzero(short_rows(big, 1.31, 1.02, 4));
  EXPECT_FALSE(f.sell_16bit_columns);  // SELL keeps 32-bit columns in float
  EXPECT_NEAR(f.sell, 1.02 * 8 + 4 / 12.2, 1e-12);
  EXPECT_FALSE(format_bytes_per_nonzero(short_rows(big, 1.31, 1.02, 8, 32767 - 255 + 1)).sell_16bit_columns);
  EXPECT_TRUE(format_bytes_per_nonzero(short_rows(big, 1.31, 1.02, 8, 32767)).ellr_16bit_columns);
  for (const auto& s : {short_rows(big, 1.31, 1.02, 8), short_rows(big, 2.27, 1.06, 4), short_rows(small, 2.27, 1.06, 8)})
    EXPECT_NE(select_format(s, backend::cuda).reason.find("bytes per nonzero"), std::string::npos);
}

/// The bench lognormal's statistics (gen:lognormal:4000000:2.5:0.8:2000, run 82): rows up to
/// about 1000 entries, x windows fitting every 2048-row block.
row_statistics windowed(int value_bytes, double window_fit = 1.0, offset_type nnz = 67'000'000) {
  row_statistics s = short_rows(nnz, 60.0, 1.67, value_bytes, 2000);
  s.mean_length = 16.8;
  s.rows = s.cols = static_cast<global_index_type>(static_cast<double>(nnz) / s.mean_length);
  s.max_length = 1000;
  s.sell32_window_padding = s.sell32_window_capped_padding = 1.13;  // (not capped)
  s.window_fit = window_fit;
  return s;
}

TEST(FormatSelector, PicksXWindowsWhereTheyFit) {
  // Runs 82-99: sell-w 1.29-1.33x cuSPARSE in double (csr-split 1.07x); in float its bytes are
  // 1.09x CSR's and it ran 0.87-1.03x, so the irregular path keeps the block.
  EXPECT_EQ(select_format(windowed(8), backend::cuda).format, "sell-w");
  EXPECT_NE(select_format(windowed(8), backend::cuda).reason.find("x fits in shared memory"), std::string::npos);
  EXPECT_EQ(select_format(windowed(4), backend::cuda).format, "cusparse");
  // Blocks whose windows do not fit gather from global memory, slowly (0.49x at band 5000, run
  // 88): 95% of the nonzeros must fit. Such blocks go to row panels (band 5000: 1.07x, csr-split
  // 0.93x, run 124).
  EXPECT_EQ(select_format(windowed(8, 0.9), backend::cuda).format, "panel");
  // A block that stays in L2 keeps the rules below (here ELLR's bytes are too many: CSR).
  EXPECT_EQ(select_format(windowed(8, 1.0, 1'000'000), backend::cuda).format, "csr");
  // Short regular rows (sorted padding 1.01): sell-w also in float, where SELL ran 1.04x and sell-w 1.20x.
  row_statistics regular = short_rows(49'000'000, 1.5, 1.03, 4);
  regular.sell32_window_padding = regular.sell32_window_capped_padding = 1.01;
  regular.window_fit = 1.0;
  EXPECT_EQ(select_format(regular, backend::cuda).format, "sell-w");
  regular.pattern = true;  // CSR stores no values: 4 bytes per nonzero (float: cuSPARSE)
  EXPECT_EQ(select_format(regular, backend::cuda).format, "cusparse");

  // Long rows in few rows: gen:lognormal:150000:4.6:0.2:800 (mean 101, 74 window blocks for 132
  // SMs) ran sell-w at 0.84x cuSPARSE CSR, which the irregular path keeps (ELLR 1.03x, CSR
  // 1.01x; 2026-12-02_h200_long_rows, call 3). With a window block per SM it is sell-w again.
  row_statistics few = windowed(8, 1.0, 15'217'371);
  few.rows = few.cols = 150'000;
  few.mean_length = 101.4;
  few.max_length = 281;
  EXPECT_EQ(select_format(few, backend::cuda).format, "cusparse") << select_format(few, backend::cuda).reason;
  few.rows = few.cols = sell_w_min_window_blocks * sell::window_rows;
  few.nnz = static_cast<offset_type>(101.4 * static_cast<double>(few.rows));
  EXPECT_EQ(select_format(few, backend::cuda).format, "sell-w") << select_format(few, backend::cuda).reason;
  few.rows = few.cols = sell_w_min_window_blocks * sell::window_rows - sell::window_rows;  // one block short
  EXPECT_NE(select_format(few, backend::cuda).format, "sell-w");

  const format_bytes b = format_bytes_per_nonzero(windowed(8));
  EXPECT_NEAR(b.sell_windows, 1.13 * 10 + 4 / 16.8, 1e-12);  // 16-bit columns: band 2000 + 2047 fits
  EXPECT_NEAR(format_bytes_per_nonzero(windowed(4)).sell_windows, 1.13 * 8 + 4 / 16.8, 1e-12);
}

TEST(FormatSelector, PricesTheTopSliceSpillInDouble) {
  // gen:lognormal:3500000:2.0:1.1:2500 --seed 13 (outside the bench set): SELL-32-2048 stores
  // 1.30x the nonzeros; with the top slices capped 1.07x, 1.7% spilled from 0.26% of the rows.
  row_statistics s = windowed(8, 1.0, 47'401'216);
  s.rows = s.cols = 3'500'000;
  s.mean_length = 13.54;
  s.sell32_window_padding = 1.30;
  s.sell32_window_capped_padding = 1.07;
  s.sell32_window_spill = 0.017;
  s.sell32_window_spill_rows = 0.00255 * 3.5e6 / 47'401'216.0;
  // 1.19x cuSPARSE CSR with sell-w where csr-split ran 1.06x (2026-12-02_h200_small_spill, run 2).
  EXPECT_EQ(select_format(s, backend::cuda).format, "sell-w") << select_format(s, backend::cuda).reason;
  EXPECT_NEAR(format_bytes_per_nonzero(s).sell_windows,
              1.07 * 10 + 0.017 * 12 + s.sell32_window_spill_rows * 2048 + 4 / 13.54, 1e-12);
  // In float the spill is priced as padding: sell-w with a spill ran 0.72-0.85x cuSPARSE (run 3).
  s.value_bytes = 4;
  EXPECT_EQ(select_format(s, backend::cuda).format, "cusparse");
  EXPECT_NEAR(format_bytes_per_nonzero(s).sell_windows, 1.30 * 8 + 4 / 13.54, 1e-12);
}

TEST(FormatSelector, MeasuresXWindows) {
  // A band of 100 over 5000 rows: every 2048-row block fits; the sorted padding is what the
  // SELL build with x windows stores.
  test::row_entries band_rows(5000);
  for (int r = 0; r < 5000; ++r)
    for (int c = std::max(0, r - 50); c <= std::min(4999, r + 50); c += 1 + (r * 7 + c) % 13)
      band_rows[r].push_back({c, 1.0 + c % 3});
  const auto band = test::from_rows(5000, band_rows);
  const row_statistics s = compute_row_statistics(band);
  EXPECT_EQ(s.window_fit, 1.0);
  EXPECT_DOUBLE_EQ(s.sell32_window_padding, sell::build(band, sell::sell_params{32, 0, 1, false, true}).stats.padding_ratio);
  // One entry of block 1 far away: block 1's nonzeros no longer count in double (8192 columns fit)
  // but do in float (16384). Padding columns are not counted.
  test::row_entries rows(5000);
  for (int r = 0; r < 5000; ++r) rows[r].push_back({r, 1.0});
  rows[3000].push_back({12000, 2.0});
  const auto far = test::from_rows(20000, rows);
  EXPECT_DOUBLE_EQ(compute_row_statistics(far).window_fit, (2048.0 + (5000 - 4096)) / 5001.0);
  EXPECT_EQ(compute_row_statistics(convert_csr<float, index_type>(far)).window_fit, 1.0);
}

TEST(FormatSelector, MeasuresTheTopSliceSpill) {
  // The slots, spilled entries and spilling rows of sell-w's builds, in double (16-bit columns)
  // and in float (32-bit): each block's top slice capped at the same width.
  const auto a = test::spilling_rows(5000, 6000, 7);
  const auto af = convert_csr<float, index_type>(a);
  auto expect_as_built = [](const row_statistics& s, const auto& built) {
    const double nnz = static_cast<double>(s.nnz);
    ASSERT_FALSE(built.spill_col.empty());
    EXPECT_DOUBLE_EQ(s.sell32_window_capped_padding * nnz, static_cast<double>(built.slice_ptr.back()));
    EXPECT_GT(s.sell32_window_padding, s.sell32_window_capped_padding);
    EXPECT_DOUBLE_EQ(s.sell32_window_spill * nnz, static_cast<double>(built.spill_col.size()));
    offset_type rows = 0;
    for (std::size_t p = 0; p + 1 < built.spill_ptr.size(); ++p) rows += built.spill_ptr[p + 1] > built.spill_ptr[p];
    EXPECT_DOUBLE_EQ(s.sell32_window_spill_rows * nnz, static_cast<double>(rows));
  };
  expect_as_built(compute_row_statistics(a), sell::build(a, sell::sell_params{32, 0, 1, true, true, true}));
  expect_as_built(compute_row_statistics(af), sell::build(af, sell::sell_params{32, 0, 1, false, true, true}));
  // Rows of equal length spill nothing.
  const row_statistics even = compute_row_statistics(test::random_csr(4096, 6000, 9, 9, 3));
  EXPECT_EQ(even.sell32_window_spill, 0.0);
  EXPECT_DOUBLE_EQ(even.sell32_window_capped_padding, 1.0);
}

TEST(FormatSelector, SeesDiagonalsHackByHackAfterAPartition) {
  // A stencil renumbered by a partition: too many distinct offsets for rule 1, but HDIA's hacks
  // pad little, and the selector keeps HDIA (issue 15: METIS had sent stencil27 to ELLR).
  const auto part = test::stencil27_part(64);
  const row_statistics s = compute_row_statistics(part);
  EXPECT_GT(s.diagonals, 32);
  EXPECT_GT(s.hdia_padding, 1.0);
  EXPECT_LT(s.hdia_padding, 1.2) << s.hdia_padding;
  EXPECT_EQ(select_format(s, backend::cuda).format, "hdia") << select_format(s, backend::cuda).reason;
  // The padding is HDIA's own: the built matrix stores the same slots.
  EXPECT_NEAR(s.hdia_padding, hdia::build(part, {}).stats.padding_ratio, 0.01);  // it counts the last hack whole

  // Not measured where rule 1 decides or rows are longer than a hack may hold; -1 where HDIA
  // would refuse (a random matrix with short rows).
  EXPECT_EQ(compute_row_statistics(test::from_rows(3, {{{0, 1.0}}, {{1, 1.0}}, {{2, 1.0}}})).hdia_padding, 0.0);
  EXPECT_EQ(compute_row_statistics(test::random_csr(999, 999, 1, 12, 5)).hdia_padding, -1.0);
  EXPECT_EQ(compute_row_statistics(test::random_csr(300, 300, 150, 200, 5)).hdia_padding, 0.0);
  EXPECT_EQ(select_format(compute_row_statistics(test::random_csr(999, 999, 1, 12, 5)), backend::cuda).format, "ellr");
}

TEST(FormatSelector, StatisticsKnowTheValueType) {
  const auto a = test::random_csr(50, 40, 0, 7, 3);
  EXPECT_EQ(compute_row_statistics(a).value_bytes, 8);
  EXPECT_EQ(compute_row_statistics(convert_csr<float, index_type>(a)).value_bytes, 4);
  EXPECT_EQ(compute_row_statistics(a).nnz, a.nnz());
}

}  // namespace
}  // namespace distspmv
