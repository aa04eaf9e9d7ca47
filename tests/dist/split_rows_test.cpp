// The split of a rank's rows where no row moves (dist/setup/split_rows.hpp): the host split
// rebuilds exactly the rows it was given (label cpu), and the GPU split equals the host split,
// array by array (label cuda; skips without a GPU). Square matrices, the rank owning a middle
// range of rows, chunks of one row up to all rows, empty rows, a very long row, no owned rows.
#include <gtest/gtest.h>

#include "dist/setup/halo_plan.hpp"
#include "dist/setup/split_rows.hpp"
#include "local_kernels/device_storage.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv::dist {
namespace {

struct split_case {
  std::string name;
  csr_matrix<double> a;  // square, global ids
  row_range owned;
};

csr_matrix<double> global(const csr_matrix<double, index_type>& a) { return convert_csr<double, global_index_type>(a); }

std::vector<split_case> cases() {
  std::vector<split_case> c;
  c.push_back({"random_1001", global(test::random_csr(1001, 1001, 0, 40, 11)), {300, 701}});
  c.push_back({"random_all_owned", global(test::random_csr(999, 999, 1, 9, 12)), {0, 999}});
  c.push_back({"random_none_owned", global(test::random_csr(500, 500, 1, 9, 13)), {250, 250}});
  c.push_back({"empty_rows", global(test::random_csr(777, 777, 0, 1, 14)), {100, 600}});
  for (auto& m : test::edge_case_matrices())
    if (m.a.rows == m.a.cols && m.a.rows > 2) c.push_back({m.name, global(m.a), {m.a.rows / 3, m.a.rows - m.a.rows / 4}});
  return c;
}

row_reader reader_of(const csr_matrix<double>& a) {
  return [&a](row_range r) { return slice_rows(a, r); };
}

/// One row per chunk (small ranges only: a chunk costs a thread and, on the GPU, a few CUB
/// calls), 97 rows, all rows in one, and the empty list (the caller fills in 1000-entry chunks).
std::vector<std::vector<row_range>> chunkings(row_range owned) {
  std::vector<std::vector<row_range>> c{row_chunks(owned, 1.0, 97), {owned}, {}};
  if (owned.size() <= 2000) c.push_back(row_chunks(owned, 1.0, 1));
  return c;
}

TEST(SplitRowsHost, RebuildsTheRowsItWasGiven) {
  for (const auto& c : cases()) {
    for (auto chunks : chunkings(c.owned)) {
      if (chunks.empty()) chunks = row_chunks(c.owned, 5.0, 1000);
      split_options o;
      o.keep_for_update = true;
      const auto s = split_rows_on_host<double>(c.owned, chunks, reader_of(c.a), o);
      const auto ref = slice_rows(c.a, c.owned);
      ASSERT_EQ(s.nnz, ref.nnz()) << c.name;
      ASSERT_EQ(s.a_local.rows, c.owned.size()) << c.name;
      // Row by row: owned entries then ghost entries, back in global ids, equal the input row.
      std::size_t h = 0;
      for (global_index_type r = 0; r < ref.rows; ++r) {
        std::vector<std::pair<global_index_type, double>> got;
        for (offset_type k = s.a_local.row_ptr[r]; k < s.a_local.row_ptr[r + 1]; ++k)
          got.emplace_back(s.a_local.col_idx[k] + c.owned.begin, s.a_local.values[k]);
        if (h < s.halo_rows.size() && s.halo_rows[h] == r) {
          for (offset_type k = s.a_halo.row_ptr[h]; k < s.a_halo.row_ptr[h + 1]; ++k)
            got.emplace_back(s.ghost_ids[s.a_halo.col_idx[k]], s.a_halo.values[k]);
          ++h;
        }
        std::sort(got.begin(), got.end());
        std::vector<std::pair<global_index_type, double>> want;
        for (offset_type k = ref.row_ptr[r]; k < ref.row_ptr[r + 1]; ++k) want.emplace_back(ref.col_idx[k], ref.values[k]);
        ASSERT_EQ(got, want) << c.name << " row " << r;
        double diag = 0;
        for (const auto& [col, v] : want)
          if (col == c.owned.begin + r) diag = v;
        ASSERT_EQ(s.diagonal[r], diag) << c.name << " row " << r;
      }
      EXPECT_EQ(h, s.halo_rows.size()) << c.name;
      EXPECT_TRUE(std::is_sorted(s.ghost_ids.begin(), s.ghost_ids.end())) << c.name;
      for (global_index_type g : s.ghost_ids) EXPECT_TRUE(g < c.owned.begin || g >= c.owned.end) << c.name;
      EXPECT_EQ(static_cast<offset_type>(s.entry_is_local.size()), s.nnz) << c.name;
    }
  }
}

TEST(SplitRowsHost, UpdateValuesRefillsBothBlocks) {
  const auto c = cases().front();
  const auto chunks = row_chunks(c.owned, 20.0, 500);
  split_options o;
  o.keep_for_update = true;
  auto s = split_rows_on_host<double>(c.owned, chunks, reader_of(c.a), o);
  const auto ref = slice_rows(c.a, c.owned);
  std::vector<double> doubled(ref.values.size());
  for (std::size_t e = 0; e < doubled.size(); ++e) doubled[e] = 2 * ref.values[e];
  auto halo = s.a_halo;
  const auto local_before = s.a_local.values;
  split_values_on_host(s, doubled.data(), halo);
  for (std::size_t k = 0; k < local_before.size(); ++k) EXPECT_EQ(s.a_local.values[k], 2 * local_before[k]);
  for (std::size_t k = 0; k < halo.values.size(); ++k) EXPECT_EQ(halo.values[k], 2 * s.a_halo.values[k]);
}

/// (owned row, ghost id, value) of every halo entry, sorted.
std::vector<std::tuple<index_type, global_index_type, double>> halo_entries(const halo_plan& p) {
  std::vector<std::tuple<index_type, global_index_type, double>> e;
  for (global_index_type r = 0; r < p.a_halo.rows; ++r)
    for (offset_type k = p.a_halo.row_ptr[r]; k < p.a_halo.row_ptr[r + 1]; ++k)
      e.emplace_back(p.halo_rows[r], p.ghost_ids[p.a_halo.col_idx[k]], p.a_halo.values[k]);
  std::sort(e.begin(), e.end());
  return e;
}

// order_halo_block (the CUDA backend's layout of irregular halo blocks): the same entries, the
// rows in their order with sorted columns, ghosts most used first within each owner's group, and
// update_values' refill moved into the new layout.
TEST(SplitRowsHost, OrderedHaloBlockKeepsItsEntries) {
  for (const auto& c : cases()) {
    const auto s = split_rows_on_host<double>(c.owned, row_chunks(c.owned, 5.0, 1000), reader_of(c.a), {});
    halo_plan split;
    split.a_halo = s.a_halo;
    split.halo_rows = s.halo_rows;
    split.ghost_ids = s.ghost_ids;
    const std::vector<global_index_type> row_offsets{0, c.owned.begin, c.owned.end, c.a.rows};  // 3 ranks
    auto plan = split;
    offset_type longest = 0;
    for (global_index_type r = 0; r < plan.a_halo.rows; ++r) longest = std::max(longest, plan.a_halo.row_length(r));
    EXPECT_FALSE(order_halo_block(plan, row_offsets, {longest, 0})) << c.name;  // regular enough: kept
    EXPECT_FALSE(order_halo_block(plan, row_offsets, {0, plan.a_halo.nnz() + 1})) << c.name;  // small: kept
    EXPECT_EQ(plan.ghost_ids, split.ghost_ids) << c.name;
    if (longest == 0) continue;
    ASSERT_TRUE(order_halo_block(plan, row_offsets, {longest - 1, plan.a_halo.nnz()})) << c.name;
    ASSERT_EQ(halo_entries(plan), halo_entries(split)) << c.name;
    EXPECT_EQ(plan.halo_rows, split.halo_rows) << c.name;
    std::vector<offset_type> uses(plan.ghost_ids.size(), 0);
    for (global_index_type r = 0; r < plan.a_halo.rows; ++r) {
      EXPECT_EQ(plan.a_halo.row_length(r), split.a_halo.row_length(r)) << c.name;
      EXPECT_TRUE(std::is_sorted(plan.a_halo.col_idx.begin() + plan.a_halo.row_ptr[r],
                                 plan.a_halo.col_idx.begin() + plan.a_halo.row_ptr[r + 1])) << c.name;
    }
    for (const index_type col : plan.a_halo.col_idx) ++uses[col];
    auto owner = [&](global_index_type g) { return g < c.owned.begin ? 0 : 2; };
    for (std::size_t k = 1; k < uses.size(); ++k) {
      ASSERT_LE(owner(plan.ghost_ids[k - 1]), owner(plan.ghost_ids[k])) << c.name;
      if (owner(plan.ghost_ids[k - 1]) == owner(plan.ghost_ids[k])) {
        EXPECT_GE(uses[k - 1], uses[k]) << c.name;
      }
    }
    // A refill writes the split's layout; reorder_halo_values moves it into the plan's.
    const auto ordered = plan.a_halo.values;
    for (std::size_t k = 0; k < split.a_halo.values.size(); ++k) plan.a_halo.values[k] = 3 * split.a_halo.values[k] + 1;
    reorder_halo_values(plan);
    for (std::size_t k = 0; k < ordered.size(); ++k) ASSERT_EQ(plan.a_halo.values[k], 3 * ordered[k] + 1) << c.name;
  }
}

// sort_halo_rows (after an order renamed the rank's rows on the GPU path): the same entries, the
// rows ascending again, and update_values' refill moved with them, after order_halo_block or not.
TEST(SplitRowsHost, SortedHaloRowsKeepTheirEntries) {
  for (const auto& c : cases()) {
    const auto s = split_rows_on_host<double>(c.owned, row_chunks(c.owned, 5.0, 1000), reader_of(c.a), {});
    for (const bool ordered : {false, true}) {
      halo_plan plan;
      plan.a_halo = s.a_halo;
      plan.halo_rows = s.halo_rows;
      plan.ghost_ids = s.ghost_ids;
      if (ordered) order_halo_block(plan, {0, c.owned.begin, c.owned.end, c.a.rows}, {0, 0});
      // An order of the owned rows: reversed.
      const auto n = static_cast<index_type>(c.owned.size());
      for (auto& r : plan.halo_rows) r = n - 1 - r;
      const auto before = plan;
      sort_halo_rows(plan, true);
      EXPECT_TRUE(std::is_sorted(plan.halo_rows.begin(), plan.halo_rows.end())) << c.name;
      ASSERT_EQ(halo_entries(plan), halo_entries(before)) << c.name;
      for (global_index_type r = 0; r < plan.a_halo.rows; ++r)
        EXPECT_EQ(plan.a_halo.row_length(r), before.a_halo.row_length(before.a_halo.rows - 1 - r)) << c.name;
      // A refill in the split's layout lands where each entry now is.
      const auto now = plan.a_halo.values;
      plan.a_halo.values = s.a_halo.values;
      for (auto& v : plan.a_halo.values) v = 3 * v + 1;
      reorder_halo_values(plan);
      for (std::size_t k = 0; k < now.size(); ++k) ASSERT_EQ(plan.a_halo.values[k], 3 * now[k] + 1) << c.name;
    }
  }
}

template <typename V>
void expect_gpu_equals_host(const split_case& c, const std::vector<row_range>& chunks) {
  split_options o;
  o.keep_for_update = true;
  const auto h = split_rows_on_host<V>(c.owned, chunks, reader_of(c.a), o);
  const auto g = split_rows_on_gpu<V>(c.owned, chunks, reader_of(c.a), o);
  const auto local = download_csr(g.a_local.view());
  EXPECT_TRUE(local == h.a_local) << c.name;
  EXPECT_TRUE(g.a_halo == h.a_halo) << c.name;
  EXPECT_EQ(g.halo_rows, h.halo_rows) << c.name;
  EXPECT_EQ(g.ghost_ids, h.ghost_ids) << c.name;
  EXPECT_EQ(g.diagonal, h.diagonal) << c.name;
  EXPECT_EQ(g.nnz, h.nnz) << c.name;
  // update_values: the same new values split the same way.
  std::vector<V> values(static_cast<std::size_t>(h.nnz));
  for (std::size_t e = 0; e < values.size(); ++e) values[e] = static_cast<V>(0.5 + static_cast<double>(e % 13));
  auto host = h;
  auto host_halo = h.a_halo, gpu_halo = h.a_halo;
  split_values_on_host(host, values.data(), host_halo);
  const auto updated = split_values_on_gpu(g, values.data(), false, gpu_halo);
  EXPECT_TRUE(download_csr(updated.view()) == host.a_local) << c.name;
  EXPECT_EQ(gpu_halo.values, host_halo.values) << c.name;
  EXPECT_EQ(diagonal_on_gpu(updated.view()), host.diagonal) << c.name;
}

TEST(SplitRowsCuda, EqualsTheHostSplit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  for (const auto& c : cases())
    for (auto chunks : chunkings(c.owned)) {
      if (chunks.empty()) chunks = row_chunks(c.owned, 5.0, 1000);
      expect_gpu_equals_host<double>(c, chunks);
      expect_gpu_equals_host<float>(c, chunks);
    }
}

}  // namespace
}  // namespace distspmv::dist
