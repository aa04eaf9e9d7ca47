#include "dist/setup/order.hpp"

#include <algorithm>
#include <utility>

#include "common/errors.hpp"
#include "dist/setup/gpu_order.hpp"
#include "dist/setup/mpi_util.hpp"
#include "partition/ordering.hpp"

namespace distspmv::dist {

namespace {

/// partition::rcm_order of the local block of `a` (columns [first, first + rows)), on the GPU.
std::vector<global_index_type> rcm_order_on_gpu(const csr_matrix<double>& a, global_index_type first) {
  csr_matrix<double, index_type> local;
  local.rows = local.cols = a.rows;
  local.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (global_index_type r = 0; r < a.rows; ++r) {
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = a.col_idx[k] - first;
      if (c < 0 || c >= a.rows) continue;
      local.col_idx.push_back(static_cast<index_type>(c));
      local.values.push_back(a.values[k]);
    }
    local.row_ptr[r + 1] = static_cast<offset_type>(local.col_idx.size());
  }
  const auto block = upload_csr(local);
  local = {};
  const auto order = local_order_on_gpu(block.view(), row_order::rcm);
  return {order.begin(), order.end()};
}

}  // namespace

void reorder_owned_rows(MPI_Comm comm, owned_rows& rows, layout_map& map, row_order method, bool rcm_on_gpu) {
  if (method == row_order::none) return;
  DSPMV_REQUIRE(method == row_order::degree || method == row_order::rcm,
                "reorder_owned_rows: --order auto must be resolved (choose_order) before the setup");
  const int p = comm_size(comm), me = comm_rank(comm);
  const global_index_type first = rows.row_offsets[me];
  csr_matrix<double>& a = rows.a;
  const global_index_type n = a.rows;
  std::vector<global_index_type> order, new_pos;
  collective_try(comm, "order", [&] {
    order = method == row_order::degree ? partition::degree_order(a.row_ptr)
            : rcm_on_gpu                ? rcm_order_on_gpu(a, first)
                                        : partition::rcm_order(a, first);
    new_pos = partition::inverse_permutation(order);
  });
  auto owned = [&](global_index_type c) { return c >= first && c < first + n; };

  // The new ids of columns owned elsewhere: asked of their owners, once per distinct column.
  std::vector<global_index_type> distinct;
  for (global_index_type c : a.col_idx)
    if (!owned(c)) distinct.push_back(c);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<std::int64_t> ask_counts(p, 0);
  for (global_index_type c : distinct) {
    // The last rank whose range starts at or before c (ranks owning no rows are skipped).
    const auto q = std::upper_bound(rows.row_offsets.begin(), rows.row_offsets.end(), c) - rows.row_offsets.begin() - 1;
    ++ask_counts[q];
  }
  std::vector<std::int64_t> asked_counts;
  auto asked = alltoallv(distinct, ask_counts, &asked_counts, comm);
  for (auto& c : asked) c = first + new_pos[static_cast<std::size_t>(c - first)];
  std::vector<global_index_type> answers(distinct.size());
  alltoallv_known(asked.data(), asked_counts, answers.data(), ask_counts, comm);
  asked = {};
  auto renamed = [&](global_index_type c) {
    if (owned(c)) return first + new_pos[static_cast<std::size_t>(c - first)];
    return answers[static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), c) - distinct.begin())];
  };

  // Rows in the new order, columns renamed and sorted; `where` maps old entries to new ones.
  csr_matrix<double> b;
  b.rows = n;
  b.cols = a.cols;
  b.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (global_index_type k = 0; k < n; ++k) b.row_ptr[k + 1] = b.row_ptr[k] + a.row_length(order[k]);
  b.col_idx.resize(a.col_idx.size());
  b.values.resize(a.values.size());
  std::vector<offset_type> where(a.col_idx.size());
  // Each new row is written by one thread, at its own place (OpenMP above 20000 rows, as the host
  // kernels; rcm on rmat:20:16 spent 1.3 s of its 3.5 s here on one thread).
#pragma omp parallel if (n > 20000)
  {
    std::vector<std::pair<global_index_type, offset_type>> row;  // new column, old entry
#pragma omp for schedule(dynamic, 1024)
    for (global_index_type k = 0; k < n; ++k) {
      const global_index_type old = order[k];
      row.clear();
      for (offset_type e = a.row_ptr[old]; e < a.row_ptr[old + 1]; ++e) row.emplace_back(renamed(a.col_idx[e]), e);
      std::sort(row.begin(), row.end());
      for (std::size_t i = 0; i < row.size(); ++i) {
        const offset_type to = b.row_ptr[k] + static_cast<offset_type>(i);
        b.col_idx[to] = row[i].first;
        b.values[to] = a.values[row[i].second];
        where[row[i].second] = to;
      }
    }
  }
  a = std::move(b);

  std::vector<global_index_type> caller(rows.caller_ids.size());
  for (global_index_type k = 0; k < n; ++k) caller[k] = rows.caller_ids[order[k]];
  rows.caller_ids = std::move(caller);
  // Received rows and entries land at their permuted places.
  for (auto& pos : map.row_recv_pos) pos = new_pos[static_cast<std::size_t>(pos)];
  for (auto& pos : map.entry_recv_pos) pos = where[static_cast<std::size_t>(pos)];
}

row_order choose_order(MPI_Comm comm, const locality_sample& mine, std::string& reason) {
  const auto sum = allreduce_sum(
      {mine.entries, mine.near_diagonal, mine.on_top_diagonals, mine.tile_sectors, mine.random_sectors_x1000}, comm);
  locality_sample all;
  all.entries = sum[0];
  all.near_diagonal = sum[1];
  all.on_top_diagonals = sum[2];
  all.tile_sectors = sum[3];
  all.random_sectors_x1000 = sum[4];
  all.near_window = allreduce_max(static_cast<std::int64_t>(mine.near_window), comm);
  if (all.entries == 0) {
    reason = "auto: no entries sampled, none";
    return row_order::none;
  }
  const auto verdict = partition::judge_locality(all);
  reason = "auto: " + verdict.reason + "; " +
           (verdict.local ? "the numbering is already local (banded, stencil or clustered), none"
                          : "the numbering is not local, rcm");
  return verdict.local ? row_order::none : row_order::rcm;
}

}  // namespace distspmv::dist
