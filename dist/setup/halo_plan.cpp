#include "dist/setup/halo_plan.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <numeric>
#include <string>

#include "dist/setup/mpi_util.hpp"
#include "partition/ordering.hpp"

namespace distspmv::dist {
namespace {

int owner_of(const std::vector<global_index_type>& row_offsets, global_index_type id) {
  return static_cast<int>(std::upper_bound(row_offsets.begin(), row_offsets.end(), id) - row_offsets.begin()) - 1;
}

/// The distinct columns of `a` outside [lo, hi), sorted: each of a fixed number of row ranges
/// sorted on its own, then merged pairwise (OpenMP over the ranges; the same result on any number
/// of threads).
std::vector<global_index_type> sorted_ghosts(const csr_matrix<double>& a, global_index_type lo, global_index_type hi) {
  constexpr std::int64_t parts = 64;
  const auto rows = static_cast<std::int64_t>(a.rows);
  std::vector<std::vector<global_index_type>> part(parts);
#pragma omp parallel for schedule(dynamic, 1) if (a.nnz() > (offset_type{1} << 16))
  for (std::int64_t p = 0; p < parts; ++p) {
    auto& g = part[static_cast<std::size_t>(p)];
    for (offset_type e = a.row_ptr[rows * p / parts]; e < a.row_ptr[rows * (p + 1) / parts]; ++e)
      if (a.col_idx[e] < lo || a.col_idx[e] >= hi) g.push_back(a.col_idx[e]);
    std::sort(g.begin(), g.end());
    g.erase(std::unique(g.begin(), g.end()), g.end());
  }
  for (std::int64_t step = 1; step < parts; step *= 2) {
#pragma omp parallel for schedule(dynamic, 1) if (a.nnz() > (offset_type{1} << 16))
    for (std::int64_t p = 0; p < parts - step; p += 2 * step) {
      auto &x = part[static_cast<std::size_t>(p)], &y = part[static_cast<std::size_t>(p + step)];
      std::vector<global_index_type> both;
      both.reserve(x.size() + y.size());
      std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
      x = std::move(both);
      y = {};
    }
  }
  return std::move(part[0]);
}

}  // namespace

void check_local_ids(MPI_Comm comm, global_index_type owned_rows, std::size_t ghosts) {
  collective_try(comm, "halo plan", [&] {
    const global_index_type limit = std::numeric_limits<index_type>::max();
    if (owned_rows + static_cast<global_index_type>(ghosts) > limit)
      DSPMV_BAD_INPUT("distributed matrix", "rank " + std::to_string(comm_rank(comm)),
                      std::to_string(owned_rows) + " owned rows and " + std::to_string(ghosts) +
                          " ghost columns do not fit 32-bit local indices; use more ranks");
  });
}

halo_plan build_halo_plan(MPI_Comm comm, const owned_rows& rows, halo_order_rule rule) {
  const int me = comm_rank(comm);
  const auto& a = rows.a;
  const global_index_type lo = rows.row_offsets[me], hi = rows.row_offsets[me + 1];
  const global_index_type n = hi - lo;
  halo_plan plan;

  // Ghosts: distinct columns outside [lo, hi), sorted, hence grouped by owner in rank order.
  plan.ghost_ids = sorted_ghosts(a, lo, hi);
  check_local_ids(comm, n, plan.ghost_ids.size());

  // Split entries into A_local and A_halo: each row's counts, their offsets, then the entries, the
  // rows in parallel (the same arrays as one pass in order, which took 1.5-1.9 s a rank for
  // rmat:22:8 on 4x H200 with lp: 6 M halo entries a rank, each a binary search among the ghosts).
  const bool parallel = a.nnz() > (offset_type{1} << 16);
  auto& al = plan.a_local;
  auto& ah = plan.a_halo;
  al.rows = al.cols = n;
  ah.cols = static_cast<global_index_type>(plan.ghost_ids.size());
  al.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  std::vector<offset_type> halo_length(static_cast<std::size_t>(n), 0);
#pragma omp parallel for schedule(dynamic, 4096) if (parallel)
  for (global_index_type r = 0; r < n; ++r) {
    offset_type inside = 0;
    for (offset_type e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) inside += a.col_idx[e] >= lo && a.col_idx[e] < hi;
    al.row_ptr[r + 1] = inside;
    halo_length[r] = a.row_length(r) - inside;
  }
  std::vector<offset_type> halo_start(static_cast<std::size_t>(n), 0);  // of each row's halo entries
  ah.row_ptr.assign(1, 0);
  for (global_index_type r = 0; r < n; ++r) {
    al.row_ptr[r + 1] += al.row_ptr[r];
    halo_start[r] = ah.row_ptr.back();
    if (halo_length[r] > 0) {
      plan.halo_rows.push_back(static_cast<index_type>(r));
      ah.row_ptr.push_back(ah.row_ptr.back() + halo_length[r]);
    }
  }
  ah.rows = static_cast<global_index_type>(plan.halo_rows.size());
  al.col_idx.resize(static_cast<std::size_t>(al.row_ptr.back()));
  al.values.resize(al.col_idx.size());
  ah.col_idx.resize(static_cast<std::size_t>(ah.row_ptr.back()));
  ah.values.resize(ah.col_idx.size());
  plan.entry_target.resize(a.col_idx.size());
#pragma omp parallel for schedule(dynamic, 4096) if (parallel)
  for (global_index_type r = 0; r < n; ++r) {
    offset_type l = al.row_ptr[r], h = halo_start[r];
    for (offset_type e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) {
      const global_index_type c = a.col_idx[e];
      if (c >= lo && c < hi) {
        plan.entry_target[e] = l;
        al.col_idx[l] = static_cast<index_type>(c - lo);
        al.values[l++] = a.values[e];
      } else {
        plan.entry_target[e] = -1 - h;
        ah.col_idx[h] = static_cast<index_type>(std::lower_bound(plan.ghost_ids.begin(), plan.ghost_ids.end(), c) -
                                                plan.ghost_ids.begin());
        ah.values[h++] = a.values[e];
      }
    }
  }

  order_halo_block(plan, rows.row_offsets, rule);
  plan_exchange(comm, rows.row_offsets, plan);
  return plan;
}

bool order_halo_block(halo_plan& plan, const std::vector<global_index_type>& row_offsets, halo_order_rule rule) {
  auto& a = plan.a_halo;
  const auto rows = static_cast<std::size_t>(a.rows), cols = static_cast<std::size_t>(a.cols);
  offset_type longest = 0;
  for (std::size_t r = 0; r < rows; ++r) longest = std::max(longest, a.row_length(static_cast<global_index_type>(r)));
  if (longest <= rule.rows_longer_than || a.nnz() < rule.min_nnz) return false;

  // Ghosts: within each owner's group (contiguous, the ids being sorted), most used first.
  std::vector<offset_type> uses(cols, 0);
  for (const index_type c : a.col_idx) ++uses[static_cast<std::size_t>(c)];
  std::vector<std::size_t> group_starts;
  for (std::size_t k = 0; k < cols; ++k)
    if (k == 0 || owner_of(row_offsets, plan.ghost_ids[k]) != owner_of(row_offsets, plan.ghost_ids[k - 1]))
      group_starts.push_back(k);
  const auto old_col = partition::most_used_first(uses, group_starts);  // new slot -> old slot
  std::vector<index_type> new_col(cols);
  std::vector<global_index_type> ids(cols);
  for (std::size_t k = 0; k < cols; ++k) {
    new_col[static_cast<std::size_t>(old_col[k])] = static_cast<index_type>(k);
    ids[k] = plan.ghost_ids[static_cast<std::size_t>(old_col[k])];
  }
  plan.ghost_ids = std::move(ids);

  // The rows keep their order, the scatter of their products into y its locality (sorted by
  // length, rmat:22:16 at 2 GPUs with the read order kept ran 288.3 us against 273.2; run 3 of
  // jobs/results/2026-11-28_h200x2_validate). Each row's entries sorted by new column, row by
  // row (short rows: a sort in cache, where a counting sort over the block scattered its writes),
  // the rows in parallel (each writes only its own entries): 16 M entries of rmat:22:16's halo
  // block at 2 ranks took 0.85 s on one thread of the 2-core VM.
  plan.halo_entry_order.resize(a.col_idx.size());
  struct entry {
    index_type col;  // new column
    offset_type from;
    double value;
    bool operator<(const entry& o) const { return col < o.col || (col == o.col && from < o.from); }
  };
  const auto n_rows = static_cast<std::int64_t>(rows);
#pragma omp parallel if (a.nnz() > (offset_type{1} << 16))
  {
    std::vector<entry> row;
#pragma omp for schedule(dynamic, 4096)
    for (std::int64_t r = 0; r < n_rows; ++r) {
      row.clear();
      for (offset_type e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e)
        row.push_back({new_col[static_cast<std::size_t>(a.col_idx[e])], e, a.values[e]});
      std::sort(row.begin(), row.end());
      auto k = static_cast<std::size_t>(a.row_ptr[r]);
      for (const auto& [c, from, v] : row) {  // in place: the row's old entries are in `row`
        plan.halo_entry_order[k] = from;
        a.col_idx[k] = c;
        a.values[k++] = v;
      }
    }
  }
  return true;
}

void reorder_halo_values(halo_plan& plan) {
  if (plan.halo_entry_order.empty()) return;
  std::vector<double> values(plan.halo_entry_order.size());
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = plan.a_halo.values[static_cast<std::size_t>(plan.halo_entry_order[k])];
  plan.a_halo.values = std::move(values);
}

void sort_halo_rows(halo_plan& plan, bool keep_entry_order) {
  const auto& at = plan.halo_rows;
  if (std::is_sorted(at.begin(), at.end())) return;
  const auto rows = at.size();
  std::vector<std::size_t> from(rows);  // new row -> old row
  std::iota(from.begin(), from.end(), std::size_t{0});
  std::sort(from.begin(), from.end(), [&](std::size_t i, std::size_t j) { return at[i] < at[j]; });
  const auto& a = plan.a_halo;
  csr_matrix<double, index_type> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr.assign(rows + 1, 0);
  std::vector<index_type> halo_rows(rows);
  for (std::size_t k = 0; k < rows; ++k) {
    b.row_ptr[k + 1] = b.row_ptr[k] + a.row_length(static_cast<global_index_type>(from[k]));
    halo_rows[k] = at[from[k]];
  }
  const auto nnz = static_cast<std::size_t>(a.nnz());
  b.col_idx.resize(nnz);
  b.values.resize(nnz);
  std::vector<offset_type> entry_order;
  if (keep_entry_order) entry_order.resize(nnz);
  const auto n_rows = static_cast<std::int64_t>(rows);
#pragma omp parallel for schedule(dynamic, 4096) if (nnz > (std::size_t{1} << 16))
  for (std::int64_t k = 0; k < n_rows; ++k) {
    const offset_type src = a.row_ptr[from[static_cast<std::size_t>(k)]], dst = b.row_ptr[k];
    for (offset_type i = 0; i < b.row_ptr[k + 1] - dst; ++i) {
      const auto s = static_cast<std::size_t>(src + i), d = static_cast<std::size_t>(dst + i);
      b.col_idx[d] = a.col_idx[s];
      b.values[d] = a.values[s];
      if (keep_entry_order) entry_order[d] = plan.halo_entry_order.empty() ? src + i : plan.halo_entry_order[s];
    }
  }
  plan.a_halo = std::move(b);
  plan.halo_rows = std::move(halo_rows);
  plan.halo_entry_order = std::move(entry_order);
}

void plan_exchange(MPI_Comm comm, const std::vector<global_index_type>& row_offsets, halo_plan& plan) {
  const int p = comm_size(comm), me = comm_rank(comm);
  const global_index_type lo = row_offsets[me];
  // Receive ranges by owner, and ask each owner for the ids we need.
  std::vector<std::int64_t> ask_counts(p, 0);
  for (global_index_type g : plan.ghost_ids) ++ask_counts[owner_of(row_offsets, g)];
  for (int q = 0; q < p; ++q)
    if (ask_counts[q] > 0) {
      plan.pattern.recv_ranks.push_back(q);
      plan.pattern.recv_offsets.push_back(plan.pattern.recv_offsets.back() + ask_counts[q]);
    }
  std::vector<std::int64_t> asked_counts;
  const auto asked = alltoallv(plan.ghost_ids, ask_counts, &asked_counts, comm);
  plan.send_idx.resize(asked.size());
  for (std::size_t k = 0; k < asked.size(); ++k) plan.send_idx[k] = static_cast<index_type>(asked[k] - lo);
  for (int q = 0; q < p; ++q)
    if (asked_counts[q] > 0) {
      plan.pattern.send_ranks.push_back(q);
      plan.pattern.send_offsets.push_back(plan.pattern.send_offsets.back() + asked_counts[q]);
    }
}

void scatter_values(const std::vector<double>& owned_values, halo_plan& plan) {
  for (std::size_t e = 0; e < owned_values.size(); ++e) {
    const offset_type t = plan.entry_target[e];
    if (t >= 0)
      plan.a_local.values[t] = owned_values[e];
    else
      plan.a_halo.values[-1 - t] = owned_values[e];
  }
}

}  // namespace distspmv::dist
