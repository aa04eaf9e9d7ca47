// The locality order on the GPU (dist/setup/gpu_order.hpp, issue 37): the GPU's rcm and degree
// orders equal the host's (partition/ordering.hpp) on the same local block, and a split
// permuted on the GPU equals the host split permuted on the host, update map included (label
// cuda; skips without a GPU). The layout moves of rows ordered in place (label cpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "dist/setup/assign.hpp"
#include "dist/setup/gpu_order.hpp"
#include "io/matrix_source.hpp"
#include "local_kernels/device_storage.hpp"
#include "partition/ordering.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv::dist {
namespace {

struct order_case {
  std::string name;
  csr_matrix<double> a;  // square, global ids
  row_range owned;
};

csr_matrix<double> global(const csr_matrix<double, index_type>& a) { return convert_csr<double, global_index_type>(a); }

/// Several components of different shapes: paths, a star with a very long row, isolated rows,
/// a clique, in a scrambled numbering.
csr_matrix<double> components(global_index_type n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<global_index_type> id(static_cast<std::size_t>(n));
  std::iota(id.begin(), id.end(), global_index_type{0});
  std::shuffle(id.begin(), id.end(), rng);
  test::row_entries rows(static_cast<std::size_t>(n));
  auto edge = [&](global_index_type u, global_index_type v) {
    rows[id[u]].emplace_back(static_cast<index_type>(id[v]), 1.0 + static_cast<double>(u % 5));
    rows[id[v]].emplace_back(static_cast<index_type>(id[u]), 2.0);
  };
  const global_index_type q = n / 4;
  for (global_index_type v = 0; v + 1 < q; ++v) edge(v, v + 1);                  // a path
  for (global_index_type v = q + 1; v < 2 * q; ++v) edge(q, v);                   // a star
  for (global_index_type v = 2 * q; v < 2 * q + 12; ++v)                          // a clique
    for (global_index_type w = v + 1; w < 2 * q + 12; ++w) edge(v, w);
  for (global_index_type v = 2 * q + 20; v + 3 < 3 * q; v += 3) edge(v, v + 1);  // pairs; isolated rows between
  for (global_index_type v = 0; v < n; v += 7) rows[id[v]].emplace_back(static_cast<index_type>(id[v]), 4.0);
  // One-sided entries (the pattern is symmetrised) among the last quarter.
  std::uniform_int_distribution<global_index_type> pick(3 * q, n - 1);
  for (global_index_type v = 3 * q; v < n; ++v) rows[id[v]].emplace_back(static_cast<index_type>(id[pick(rng)]), 0.5);
  for (auto& r : rows) {
    std::sort(r.begin(), r.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    r.erase(std::unique(r.begin(), r.end(), [](const auto& x, const auto& y) { return x.first == y.first; }), r.end());
  }
  return global(test::from_rows(n, rows));
}

std::vector<order_case> cases() {
  std::vector<order_case> c;
  c.push_back({"random_1001", global(test::random_csr(1001, 1001, 0, 40, 21)), {300, 701}});
  c.push_back({"random_999_all_owned", global(test::random_csr(999, 999, 1, 9, 22)), {0, 999}});
  c.push_back({"no_rows", global(test::random_csr(500, 500, 1, 9, 23)), {250, 250}});
  c.push_back({"empty_rows", global(test::random_csr(777, 777, 0, 1, 24)), {100, 600}});
  c.push_back({"components_5003", components(5003, 25), {0, 5003}});
  c.push_back({"components_owned_part", components(4001, 26), {1000, 3500}});
  for (const std::string spec : {"gen:rmat:12:8", "gen:poisson3d:9", "gen:lognormal:3000:2:1:50"}) {
    auto a = io::read_matrix(spec);
    c.push_back({spec, a, {0, a.rows}});
    c.push_back({spec + "_middle", a, {a.rows / 3, a.rows - a.rows / 5}});
  }
  for (auto& m : test::edge_case_matrices())
    if (m.a.rows == m.a.cols && m.a.rows > 2) c.push_back({m.name, global(m.a), {m.a.rows / 3, m.a.rows - m.a.rows / 4}});
  return c;
}

row_reader reader_of(const csr_matrix<double>& a) {
  return [&a](row_range r) { return slice_rows(a, r); };
}

std::vector<index_type> narrow(const std::vector<global_index_type>& v) { return {v.begin(), v.end()}; }

/// The host's permutation of a local block: row k = old row order[k], columns renamed, sorted.
template <typename V>
csr_matrix<V, index_type> permuted(const csr_matrix<V, index_type>& a, const std::vector<index_type>& order) {
  std::vector<index_type> new_pos(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) new_pos[order[k]] = static_cast<index_type>(k);
  csr_matrix<V, index_type> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr.assign(1, 0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::vector<std::pair<index_type, V>> row;
    for (offset_type e = a.row_ptr[order[k]]; e < a.row_ptr[order[k] + 1]; ++e)
      row.emplace_back(new_pos[a.col_idx[e]], a.values[e]);
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [c, v] : row) {
      b.col_idx.push_back(c);
      b.values.push_back(v);
    }
    b.row_ptr.push_back(static_cast<offset_type>(b.col_idx.size()));
  }
  return b;
}

TEST(GpuOrderCuda, RcmAndDegreeEqualTheHostOrders) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  for (const auto& c : cases()) {
    split_options o;
    const auto g = split_rows_on_gpu<double>(c.owned, row_chunks(c.owned, 5.0, 4000), reader_of(c.a), o);
    const auto rows = slice_rows(c.a, c.owned);
    EXPECT_EQ(local_order_on_gpu(g.a_local.view(), row_order::rcm), narrow(partition::rcm_order(rows, c.owned.begin)))
        << c.name;
    std::vector<offset_type> halo_length(static_cast<std::size_t>(c.owned.size()), 0);
    for (std::size_t i = 0; i < g.halo_rows.size(); ++i) halo_length[g.halo_rows[i]] = g.a_halo.row_length(i);
    EXPECT_EQ(local_order_on_gpu(g.a_local.view(), row_order::degree, halo_length),
              narrow(partition::degree_order(rows.row_ptr)))
        << c.name;
  }
}

template <typename V>
void expect_permuted_split_equals_host(const order_case& c, row_order method) {
  split_options o;
  o.keep_for_update = true;
  const auto chunks = row_chunks(c.owned, 5.0, 3000);
  const auto h = split_rows_on_host<V>(c.owned, chunks, reader_of(c.a), o);
  auto g = split_rows_on_gpu<V>(c.owned, chunks, reader_of(c.a), o);
  const auto order = local_order_on_gpu(g.a_local.view(), method);
  permute_split_on_gpu(g, order);
  const std::string what = c.name + " " + to_string(method);
  EXPECT_TRUE(download_csr(g.a_local.view()) == permuted(h.a_local, order)) << what;
  std::vector<index_type> new_pos(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) new_pos[order[k]] = static_cast<index_type>(k);
  ASSERT_EQ(g.halo_rows.size(), h.halo_rows.size()) << what;
  for (std::size_t i = 0; i < h.halo_rows.size(); ++i) EXPECT_EQ(g.halo_rows[i], new_pos[h.halo_rows[i]]) << what;
  EXPECT_TRUE(g.a_halo == h.a_halo) << what;
  for (std::size_t k = 0; k < order.size(); ++k) EXPECT_EQ(g.diagonal[k], h.diagonal[order[k]]) << what;
  EXPECT_EQ(diagonal_on_gpu(g.a_local.view()), g.diagonal) << what;
  // update_values through the kept map: new values land in the permuted places.
  std::vector<V> values(static_cast<std::size_t>(h.nnz));
  for (std::size_t e = 0; e < values.size(); ++e) values[e] = static_cast<V>(0.25 + static_cast<double>((e * 7) % 19));
  auto host = h;
  auto host_halo = h.a_halo, gpu_halo = h.a_halo;
  split_values_on_host(host, values.data(), host_halo);
  const auto updated = split_values_on_gpu(g, values.data(), false, gpu_halo);
  EXPECT_TRUE(download_csr(updated.view()) == permuted(host.a_local, order)) << what;
  EXPECT_EQ(gpu_halo.values, host_halo.values) << what;
}

TEST(GpuOrderCuda, PermutedSplitEqualsTheHostPermutation) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  for (const auto& c : cases())
    for (auto method : {row_order::rcm, row_order::degree}) {
      expect_permuted_split_equals_host<double>(c, method);
      expect_permuted_split_equals_host<float>(c, method);
    }
}

TEST(GpuOrderHost, RowsOrderedInPlaceMoveByTheirNewPositions) {
  layout_map map;
  map.identity = true;
  map.identity_rows = 5;
  map.local_new_pos = {3, 0, 4, 1, 2};  // caller row i is owned row local_new_pos[i]
  const std::vector<double> caller{10, 11, 12, 13, 14};
  std::vector<double> owned(5), back(5);
  rows_to_partitioned(map, caller.data(), owned.data(), MPI_COMM_SELF);
  EXPECT_EQ(owned, (std::vector<double>{11, 13, 14, 10, 12}));
  rows_from_partitioned(map, owned.data(), back.data(), MPI_COMM_SELF);
  EXPECT_EQ(back, caller);
  std::vector<double> entries(5);
  EXPECT_THROW(entries_to_partitioned(map, caller.data(), entries.data(), MPI_COMM_SELF), error);
}

}  // namespace
}  // namespace distspmv::dist
