// Panel build tests (STYLE.md §6, tier 2): the layout's invariants on the edge cases (no slot twice
// in a round, whole rounds, slots per row, padding, split rows), CSR -> panels -> CSR, the
// automatic sizes, refusals, and the host SpMV of split rows against CSR.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "local_kernels/device_csr.hpp"
#include "local_kernels/panel/panel.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv {
namespace {

/// Every invariant panel.hpp states, checked entry by entry.
template <typename V>
void expect_layout(const csr_matrix<V, index_type>& a, const panel::panel_matrix<V>& m, const std::string& name) {
  // Split rows: every row longer than panel_entries, in parts of consecutive entries within it.
  const panel::panel_plan plan = panel::plan_panels(a.row_ptr, m.params);
  const std::vector<offset_type>& rp = plan.panel_row_ptr(a.row_ptr);
  EXPECT_EQ(plan.row_out, m.row_out) << name;
  EXPECT_EQ(plan.split_row, m.split_row) << name;
  for (global_index_type r = 0; r < a.rows; ++r)
    EXPECT_EQ(std::count(m.split_row.begin(), m.split_row.end(), r) == 1, a.row_length(r) > m.params.panel_entries)
        << name << " row " << r;
  for (std::size_t i = 0; i + 1 < rp.size(); ++i) EXPECT_LE(rp[i + 1] - rp[i], m.params.panel_entries) << name;
  EXPECT_EQ(m.part_sums.size(), m.split_row.empty() ? 0u : static_cast<std::size_t>(m.split_part.back())) << name;
  const global_index_type panel_rows = static_cast<global_index_type>(rp.size()) - 1;

  ASSERT_EQ(m.panel_row.front(), 0) << name;
  ASSERT_EQ(m.panel_row.back(), panel_rows) << name;
  const std::size_t panels = m.panel_row.size() - 1;
  ASSERT_EQ(m.slot_begin.size(), static_cast<std::size_t>(panel_rows) + panels) << name;
  offset_type real = 0;
  for (std::size_t p = 0; p < panels; ++p) {
    const offset_type b = m.panel_entry[p], e = m.panel_entry[p + 1];
    EXPECT_EQ((e - b) % panel::round_entries, 0) << name << " panel " << p;
    const index_type rows = m.panel_row[p + 1] - m.panel_row[p];
    EXPECT_GT(rows, 0) << name;
    const std::uint16_t* sb = m.slot_begin.data() + m.panel_row[p] + p;
    EXPECT_EQ(sb[0], 0) << name;
    EXPECT_LE(sb[rows], m.max_slots) << name;
    for (index_type i = 0; i < rows; ++i) {
      const offset_type len = rp[m.panel_row[p] + i + 1] - rp[m.panel_row[p] + i];
      EXPECT_EQ(sb[i + 1] - sb[i] > 0, len > 0) << name << " row " << m.panel_row[p] + i;
      EXPECT_LE(sb[i + 1] - sb[i], len) << name;
    }
    for (offset_type r0 = b; r0 < e; r0 += panel::round_entries) {
      std::set<std::uint16_t> seen;
      for (offset_type k = r0; k < r0 + panel::round_entries; ++k) {
        const std::uint16_t s = m.slot[static_cast<std::size_t>(k)];
        if (s == panel::padding_slot) {
          EXPECT_EQ(m.values[static_cast<std::size_t>(k)], V(0)) << name;
          continue;
        }
        ++real;
        EXPECT_LT(s, sb[rows]) << name;
        EXPECT_TRUE(seen.insert(s).second) << name << ": slot " << s << " twice in the round at " << r0;
        EXPECT_GE(m.col_idx[static_cast<std::size_t>(k)], 0) << name;
        EXPECT_LT(m.col_idx[static_cast<std::size_t>(k)], a.cols) << name;
      }
    }
    for (offset_type k = b; k < e; ++k)  // padding gathers a valid column too
      EXPECT_TRUE(m.col_idx[static_cast<std::size_t>(k)] >= 0 && m.col_idx[static_cast<std::size_t>(k)] < std::max<global_index_type>(1, a.cols)) << name;
  }
  EXPECT_EQ(real, a.nnz()) << name;
  // The kernel takes every panel once, in panel order or the most stored entries first (ties in
  // panel order).
  ASSERT_EQ(m.dispatch.size(), panels) << name;
  EXPECT_EQ(m.dispatch, panel::dispatch_order(m.panel_entry, m.params.wave_panels)) << name;
  bool in_order = true;
  for (std::size_t b = 0; b < panels; ++b) in_order &= m.dispatch[b] == static_cast<index_type>(b);
  std::vector<bool> taken(panels, false);
  for (std::size_t b = 0; b < panels; ++b) {
    const auto p = static_cast<std::size_t>(m.dispatch[b]);
    ASSERT_LT(p, panels) << name;
    EXPECT_FALSE(taken[p]) << name << ": panel " << p << " dispatched twice";
    taken[p] = true;
    if (b == 0 || in_order) continue;
    const auto q = static_cast<std::size_t>(m.dispatch[b - 1]);
    const offset_type sp = m.panel_entry[p + 1] - m.panel_entry[p], sq = m.panel_entry[q + 1] - m.panel_entry[q];
    EXPECT_TRUE(sq > sp || (sq == sp && q < p)) << name << ": block " << b;
  }
}

TEST(PanelBuild, LayoutInvariantsAndRoundTripOnEveryEdgeCase) {
  for (const auto& [name, a] : test::edge_case_matrices()) {
    const auto m = panel::build(a, panel::panel_params{});
    expect_layout(a, m, name);
    const auto back = panel::to_csr(m);
    EXPECT_EQ(back.row_ptr, a.row_ptr) << name;
    EXPECT_EQ(back.col_idx, a.col_idx) << name;
    EXPECT_EQ(back.values, a.values) << name;
  }
}

TEST(PanelBuild, SmallPanelsAndPiecesKeepTheInvariants) {
  // Tiny panels: many panels, long rows cut into many pieces, rows alone in their panel.
  const auto a = test::random_csr(3001, 2500, 0, 300, 7);
  panel::panel_params p;
  p.panel_rows = 40;
  p.panel_entries = 2000;
  p.piece_entries = 3;
  p.max_slots = 200;
  const auto m = panel::build(a, p);
  expect_layout(a, m, "random 3001 x 2500");
  EXPECT_GT(m.panel_row.size(), 100u);
  EXPECT_EQ(panel::to_csr(m).col_idx, a.col_idx);
}

TEST(PanelBuild, SplitsRowsLongerThanAPanel) {
  // A hub row of 9000 entries among short rows, panels of 2048 entries: 5 parts of 1800, which
  // may share panels with their neighbours; two split rows side by side; a row of exactly 2048
  // entries stays whole. The host SpMV (the kernel's order) against CSR, beta 0 and not.
  std::vector<global_index_type> lengths(600, 3);
  lengths[17] = 9000;
  lengths[300] = 4097;
  lengths[301] = 2049;
  lengths[400] = 2048;
  const auto a = test::from_lengths(12000, lengths, 5);
  panel::panel_params p;
  p.panel_entries = 2048;
  const auto m = panel::build(a, p);
  expect_layout(a, m, "hub rows");
  ASSERT_EQ(m.split_row, (std::vector<index_type>{17, 300, 301}));
  EXPECT_EQ(m.split_part, (std::vector<index_type>{0, 5, 8, 10}));
  EXPECT_NE(m.stats.params.find("split_rows=3 parts=10"), std::string::npos) << m.stats.params;
  const auto back = panel::to_csr(m);
  EXPECT_EQ(back.row_ptr, a.row_ptr);
  EXPECT_EQ(back.col_idx, a.col_idx);
  EXPECT_EQ(back.values, a.values);

  const auto view = panel::traits::view_of(m, [](const auto& v) { return v.data(); });
  const auto x = test::random_vector<double>(a.cols, 3);
  for (const double beta : {0.0, -0.75}) {
    const auto y0 = test::random_vector<double>(a.rows, 4);
    auto y = y0, want = y0;
    panel::spmv_reference(view, 1.5, x.data(), beta, y.data());
    for (global_index_type r = 0; r < a.rows; ++r) {
      double sum = 0, scale = 0;
      for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        sum += a.values[k] * x[a.col_idx[k]];
        scale += std::abs(a.values[k] * x[a.col_idx[k]]);
      }
      want[r] = 1.5 * sum + beta * y0[r];
      EXPECT_NEAR(y[r], want[r], 1e-13 * (1.5 * scale + std::abs(beta * y0[r]) + 1)) << "row " << r << " beta " << beta;
    }
  }
}

TEST(PanelBuild, PicksPanelAndPieceSizesFromTheNonzeros) {
  const auto small = test::random_csr(2000, 2000, 1, 20, 3);  // ~21 K nonzeros: the smallest panels
  const auto m = panel::build(small, panel::panel_params{});
  EXPECT_EQ(m.params.panel_entries, panel::min_panel_entries);
  EXPECT_EQ(m.params.piece_entries, panel::min_panel_entries / panel::round_entries / 2);  // 8
  EXPECT_NE(m.stats.params.find("entries<=16384"), std::string::npos) << m.stats.params;
  EXPECT_EQ(m.stats.params.rfind("panels=" + std::to_string(m.panel_row.size() - 1) + " ", 0), 0u) << m.stats.params;
  EXPECT_GE(m.stats.padding_ratio, 1.0);
  panel::panel_params fixed;
  fixed.panel_entries = 4096;
  fixed.piece_entries = 5;
  const auto f = panel::build(small, fixed);
  EXPECT_EQ(f.params.panel_entries, 4096);
  EXPECT_EQ(f.params.piece_entries, 5);
}

// Rows of 64 entries: the automatic cap (16384 entries, 256 rows) cuts `rows / 256` panels. With
// a wave of 8 panels, 9 panels end in a wave of one: cut to 16 smaller ones (two full waves,
// makespan 2 x (9216 + 4096) entries with the panel's overhead, against 2 x (16384 + 4096)). 15
// panels gain too little from 16 (2 x 19456 against 2 x 20480, above fill_gain): kept. A cap
// given, or no wave: kept.
TEST(PanelBuild, CutsSmallerPanelsWhereTheyFillTheLastWave) {
  auto rows_of_64 = [](offset_type rows) {
    std::vector<offset_type> row_ptr(static_cast<std::size_t>(rows) + 1);
    for (offset_type r = 0; r <= rows; ++r) row_ptr[static_cast<std::size_t>(r)] = 64 * r;
    return row_ptr;
  };
  panel::panel_params p;
  p.wave_panels = 8;
  const auto filled = panel::plan_panels(rows_of_64(9 * 256), p);
  EXPECT_EQ(filled.panel_row.size() - 1, 16u);
  EXPECT_EQ(filled.params.panel_entries, 9216);  // 9 rounds: 144 rows
  EXPECT_EQ(filled.params.piece_entries, 4);
  const auto near_full = panel::plan_panels(rows_of_64(15 * 256), p);
  EXPECT_EQ(near_full.panel_row.size() - 1, 15u);
  EXPECT_EQ(near_full.params.panel_entries, panel::min_panel_entries);
  panel::panel_params given = p;
  given.panel_entries = panel::min_panel_entries;
  EXPECT_EQ(panel::plan_panels(rows_of_64(9 * 256), given).panel_row.size() - 1, 9u);
  panel::panel_params no_wave;
  no_wave.wave_panels = 0;
  EXPECT_EQ(panel::plan_panels(rows_of_64(9 * 256), no_wave).panel_row.size() - 1, 9u);
}

// Four panels of one round and two of 32, 3 places, each panel 4 rounds more: in panel order the
// large ones start after the first small ones (41 rounds), largest first the small ones fill the
// third place beside them (36 rounds, less than 0.9 x 41): dispatched largest first. Equal panels,
// no wave, or one wave's worth: panel order.
TEST(PanelBuild, DispatchesTheLargestPanelsFirstWhereThatShortensTheKernel) {
  const offset_type r = panel::round_entries;
  const std::vector<offset_type> runs{0, r, 2 * r, 3 * r, 4 * r, 36 * r, 68 * r};
  EXPECT_EQ(panel::dispatch_order(runs, 3), (std::vector<index_type>{4, 5, 0, 1, 2, 3}));
  const std::vector<index_type> in_order{0, 1, 2, 3, 4, 5};
  EXPECT_EQ(panel::dispatch_order(runs, 0), in_order);
  EXPECT_EQ(panel::dispatch_order(runs, 6), in_order);
  const std::vector<offset_type> equal{0, r, 2 * r, 3 * r, 4 * r, 5 * r, 6 * r};
  EXPECT_EQ(panel::dispatch_order(equal, 4), in_order);
  EXPECT_TRUE(panel::dispatch_order({0}, 3).empty());
}

TEST(PanelBuild, RefusesInvalidParameters) {
  const auto a = test::random_csr(10, 10, 1, 3, 1);
  panel::panel_params p;
  p.panel_rows = 0;
  EXPECT_THROW(panel::build(a, p), bad_input);
  p = {};
  p.max_slots = 65535;
  EXPECT_THROW(panel::build(a, p), bad_input);
  p = {};
  p.piece_entries = -1;
  EXPECT_THROW(panel::build(a, p), bad_input);
  p = {};
  p.wave_panels = -1;
  EXPECT_THROW(panel::build(a, p), bad_input);
}

// The GPU builders (ipcsr, panel) check the downloaded row pointer with check_row_pointer: it must
// refuse what validate_csr refuses, with the same words.
TEST(PanelBuild, RowPointerChecksWordedAsValidateCsr) {
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const bad_input& e) {
      return std::string(e.what());
    }
    return std::string("no refusal");
  };
  auto a = test::random_csr(20, 20, 1, 4, 5);
  const auto same = [&](const std::string& what) {
    const std::string host = message([&] { validate_csr(a, "src"); });
    const std::string gpu = message([&] { check_row_pointer(a.row_ptr, static_cast<offset_type>(a.col_idx.size()), "src"); });
    EXPECT_NE(host, "no refusal") << what;
    EXPECT_EQ(gpu, host) << what;
  };
  auto saved = a.row_ptr;
  a.row_ptr[0] = 1;
  same("start");
  a.row_ptr = saved;
  std::swap(a.row_ptr[7], a.row_ptr[8]);
  same("decrease");
  a.row_ptr = saved;
  a.row_ptr.back() += 1;
  same("end");
  a.row_ptr = saved;
  EXPECT_NO_THROW(check_row_pointer(a.row_ptr, static_cast<offset_type>(a.col_idx.size()), "src"));
}

}  // namespace
}  // namespace distspmv
