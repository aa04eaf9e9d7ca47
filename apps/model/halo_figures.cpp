// The halo at P ranks without P processes (model.hpp): the pattern, the read ranges, the
// partitioners of a real run, and per rank the figures its halo plan would report.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

#include "apps/model/model.hpp"
#include "common/csr_matrix.hpp"
#include "io/generators.hpp"
#include "io/matrix_source.hpp"
#include "io/row_split.hpp"
#include "local_kernels/format_selector.hpp"
#include "local_kernels/panel/panel.hpp"
#include "local_kernels/sell/sell.hpp"
#include "partition/locality.hpp"
#include "partition/ordering.hpp"
#include "partition/partition.hpp"

namespace distspmv::model {

pattern read_pattern(const std::string& source, std::uint64_t seed) {
  io::source_options so;
  so.seed = seed;
  pattern a;
  a.source = source;
  a.generator = io::detect_format(source) == io::source_format::generator;
  const auto add = [&](const csr_matrix<double>& rows) {
    for (global_index_type i = 0; i < rows.rows; ++i) a.row_ptr.push_back(a.row_ptr.back() + rows.row_length(i));
    a.col.insert(a.col.end(), rows.col_idx.begin(), rows.col_idx.end());
  };
  if (io::detect_format(source) == io::source_format::matrix_market) {
    // No row index: read whole (as every rank of a real run does).
    const auto m = io::read_matrix(source, so);
    a.rows = m.rows;
    if (m.rows != m.cols) DSPMV_BAD_INPUT("model", source, "the matrix is not square");
    add(m);
    return a;
  }
  const auto info = io::describe_source(source, so);
  if (info.rows != info.cols) DSPMV_BAD_INPUT("model", source, "the matrix is not square");
  a.rows = info.rows;
  a.row_ptr.reserve(static_cast<std::size_t>(a.rows) + 1);
  a.col.reserve(static_cast<std::size_t>(std::max<offset_type>(0, info.nnz)));
  // Chunks of about 2^25 nonzeros (0.5 GB of columns and values at a time): R-MAT generates every
  // edge for each chunk and keeps the chunk's, so 2^22 cost gen:rmat:22:24 24 passes (44 s), this 3.
  const double per_row = info.rows > 0 ? std::max(1.0, static_cast<double>(info.nnz) / static_cast<double>(info.rows)) : 1;
  const auto chunk = std::max<global_index_type>(1, static_cast<global_index_type>((1 << 25) / per_row));
  for (global_index_type r = 0; r < a.rows; r += chunk)
    add(io::read_matrix_rows(source, row_range{r, std::min(a.rows, r + chunk)}, so));
  return a;
}

std::vector<global_index_type> read_ranges(const pattern& a, int ranks) {
  const auto split = a.generator ? io::split_rows_evenly(a.rows, ranks) : io::split_rows_by_nnz(a.row_ptr, ranks);
  std::vector<global_index_type> b{0};
  for (const auto& r : split) b.push_back(r.end);
  return b;
}

order_rule sample_order_rule(const pattern& a, int ranks) {
  // Each rank's sample as the setup takes it (the first sample_rows rows of its read range, global
  // columns), summed as choose_order sums them, judged by the same rule.
  const auto ranges = read_ranges(a, ranks);
  std::vector<partition::locality_sample> samples(static_cast<std::size_t>(ranks));
#pragma omp parallel for schedule(dynamic, 1)
  for (int q = 0; q < ranks; ++q) {
    const global_index_type first = ranges[q];
    const global_index_type end = std::min(ranges[q + 1], first + partition::locality_sample::sample_rows);
    csr_matrix<double> slice;
    slice.rows = end - first;
    slice.cols = a.rows;
    slice.row_ptr.assign(a.row_ptr.begin() + first, a.row_ptr.begin() + end + 1);
    for (auto& k : slice.row_ptr) k -= a.row_ptr[first];
    slice.col_idx.assign(a.col.begin() + a.row_ptr[first], a.col.begin() + a.row_ptr[end]);
    samples[static_cast<std::size_t>(q)] = partition::sample_locality(slice, first, a.rows);
  }
  partition::locality_sample sum;
  for (const auto& one : samples) sum += one;
  const auto verdict = partition::judge_locality(sum);
  return {sum.entries,
          sum.near_diagonal,
          sum.on_top_diagonals,
          sum.tile_sectors,
          sum.random_sectors_x1000,
          verdict.local,
          verdict.reason + (verdict.local ? ": local, none" : ": not local, trial")};
}

struct partitioner::graph_holder {
  partition::graph g;
};

partitioner::partitioner(const pattern& a, std::string method, int seed) : a_(a), method_(std::move(method)), seed_(seed) {
  if (method_ != "block" && method_ != "lp" && method_ != "metis" && method_ != "ptscotch")
    DSPMV_BAD_INPUT("model", "--partition", "'" + method_ + "' is not block, lp, metis or ptscotch");
  if (method_ == "lp" || method_ == "metis") {
    // symmetrised_graph reads row_ptr and col_idx only: a view of the pattern without values.
    csr_matrix<double> view;
    view.rows = view.cols = a.rows;
    view.row_ptr = a.row_ptr;
    view.col_idx = a.col;
    graph_ = std::make_shared<graph_holder>();
    graph_->g = partition::symmetrised_graph(view);
  }
}

std::vector<int> partitioner::parts(int ranks) const {
  std::vector<int> part(static_cast<std::size_t>(a_.rows), 0);
  if (ranks == 1) return part;
  const auto ranges = read_ranges(a_, ranks);
  if (method_ == "block") {
    for (int q = 0; q < ranks; ++q) std::fill(part.begin() + ranges[q], part.begin() + ranges[q + 1], q);
    return part;
  }
  if (method_ == "lp") return partition::partition_label_propagation_in_process(graph_->g, ranges, ranks, seed_);
  if (method_ == "metis") return partition::partition_metis(graph_->g, ranks, seed_);
  csr_matrix<double> whole;  // ptscotch: one process, P parts
  whole.rows = whole.cols = a_.rows;
  whole.row_ptr = a_.row_ptr;
  whole.col_idx = a_.col;
  whole.values.assign(a_.col.size(), 1.0);
  return partition::partition_ptscotch(MPI_COMM_SELF, 0, whole, a_.rows, ranks, seed_);
}

namespace {
/// x_lines: lines of x_line doubles (64 bytes), distinct per x_group consecutive rows (a warp's).
constexpr global_index_type x_line = 8;
constexpr offset_type x_group = 32;
}  // namespace

namespace {

/// The lines of `line_doubles` doubles that entries [begin, end) read and `group` has not yet
/// counted (stamp: the last group that counted each line).
offset_type new_lines(const std::vector<index_type>& col, offset_type begin, offset_type end,
                      global_index_type line_doubles, std::vector<std::int64_t>& stamp, std::int64_t group) {
  offset_type lines = 0;
  for (offset_type e = begin; e < end; ++e) {
    const auto line = static_cast<std::size_t>(col[e] / line_doubles);
    if (stamp[line] != group) {
      stamp[line] = group;
      ++lines;
    }
  }
  return lines;
}

/// x_lines of a local block (local columns): distinct x lines per x_group consecutive rows.
offset_type block_x_lines(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& col,
                          std::vector<std::int64_t>& stamp, std::int64_t& group) {
  offset_type lines = 0;
  const auto rows = static_cast<global_index_type>(row_ptr.size()) - 1;
  for (global_index_type i = 0; i < rows; ++i) {
    if (i % x_group == 0) ++group;
    lines += new_lines(col, row_ptr[i], row_ptr[i + 1], x_line, stamp, group);
  }
  return lines;
}

/// panel_lines of a local block: the panels plan_panels cuts, the distinct 128-byte lines of x each
/// reads (stamp: one entry a line at least).
offset_type block_panel_lines(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& col,
                              std::vector<std::int64_t>& stamp, std::int64_t& group) {
  const auto plan = panel::plan_panels(row_ptr, panel::panel_params{});
  const std::vector<offset_type>& rp = plan.panel_row_ptr(row_ptr);  // panel rows: long rows in parts
  offset_type lines = 0;
  for (std::size_t p = 0; p + 1 < plan.panel_row.size(); ++p)
    lines += new_lines(col, rp[plan.panel_row[p]], rp[plan.panel_row[p + 1]], panel_line_doubles, stamp, ++group);
  return lines;
}

/// A local block (owned columns only, local ids) with its rows and columns renamed by `order` (new
/// -> old), the columns sorted in each row, into `o_ptr` and `o_col`.
void renumbered_block(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& col,
                      const std::vector<global_index_type>& order, std::vector<offset_type>& o_ptr,
                      std::vector<index_type>& o_col) {
  const std::size_t n = order.size();
  std::vector<index_type> new_of(n);
  for (std::size_t k = 0; k < n; ++k) new_of[static_cast<std::size_t>(order[k])] = static_cast<index_type>(k);
  o_ptr.assign(n + 1, 0);
  o_col.resize(col.size());
  for (std::size_t k = 0; k < n; ++k) {
    const auto old = static_cast<std::size_t>(order[k]);
    auto at = o_ptr[k];
    for (offset_type e = row_ptr[old]; e < row_ptr[old + 1]; ++e) o_col[static_cast<std::size_t>(at++)] = new_of[col[e]];
    std::sort(o_col.begin() + o_ptr[k], o_col.begin() + at);
    o_ptr[k + 1] = at;
  }
}

/// partition::rcm_order of a local block (owned columns only, local ids): what the GPU's rcm gives
/// the same block (dist/setup/gpu_order.hpp).
std::vector<global_index_type> block_rcm_order(const std::vector<offset_type>& row_ptr,
                                               const std::vector<index_type>& col) {
  csr_matrix<double> b;  // (rcm reads the pattern only)
  b.rows = b.cols = static_cast<global_index_type>(row_ptr.size() - 1);
  b.row_ptr = row_ptr;
  b.col_idx.assign(col.begin(), col.end());
  return partition::rcm_order(b, 0);
}

/// The row statistics of a local block as the selector computes them (values 0.5: not a pattern;
/// the runs' matrices have values).
row_statistics block_statistics(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& col) {
  csr_matrix<double, index_type> b;
  b.rows = b.cols = static_cast<global_index_type>(row_ptr.size()) - 1;
  b.row_ptr = row_ptr;
  b.col_idx = col;
  b.values.assign(col.size(), 0.5);
  return compute_row_statistics(b);
}

/// trial_formats of a local block at `ranks` ranks from its statistics.
std::vector<std::string> block_trial_formats(const row_statistics& s, int ranks) {
  std::vector<std::string> out;
  for (const auto& c : trial_formats(s, backend::cuda, ranks == 1)) out.push_back(c.format);
  return out;
}

/// x's windows sell-w stages (sell.hpp's x windows): each block of window_rows rows whose columns
/// span at most a window of window_max_bytes, 8 bytes a column of its span (the builder's window
/// also covers padding, whose sentinel is the row's last column; empty rows are not counted).
offset_type block_window_bytes(const std::vector<offset_type>& row_ptr, const std::vector<index_type>& col) {
  const auto rows = static_cast<global_index_type>(row_ptr.size()) - 1;
  const auto fit = static_cast<global_index_type>(sell::window_max_bytes / sizeof(double));
  offset_type bytes = 0;
  for (global_index_type first = 0; first < rows; first += sell::window_rows) {
    const global_index_type last = std::min<global_index_type>(rows, first + sell::window_rows);
    if (row_ptr[first] == row_ptr[last]) continue;
    const auto [lo, hi] = std::minmax_element(col.begin() + row_ptr[first], col.begin() + row_ptr[last]);
    const global_index_type span = static_cast<global_index_type>(*hi) - *lo + 1;
    if (span <= fit) bytes += 8 * span;
  }
  return bytes;
}

/// The halo block's trial figures (dist/setup/halo_plan.cpp's order_halo_block, then
/// dist/matrix_order.cpp's halo_trial on the CUDA backend) of the rank whose rows are rows_of[k],
/// k in [first, end): its boundary rows in the rank's order, its ghosts in the plan's slots
/// (sorted by global id: by owner, then the owner's numbering), ordered by use within each owner's
/// group where the block is large and has a row longer than plain_halo_row.
/// `last_rank` and `slot` (a.rows each, the calling thread's; no entry of last_rank is r before the
/// call): each global column's last rank and its ghost's number there, as first seen.
void halo_block_figures(const pattern& a, const std::vector<global_index_type>& rows_of, offset_type first,
                        offset_type end, int r, const std::vector<std::uint64_t>& where, rank_figures& f,
                        std::vector<int>& last_rank, std::vector<index_type>& slot) {
  // Each entry's ghost, numbered as first seen (its column's last_rank and slot), then the ghosts
  // sorted by (owner, owner's local id) and the entries renumbered: the same slots as sorting every
  // entry's key and searching it, without a binary search per entry.
  std::vector<offset_type> row_ptr{0};
  std::vector<index_type> col;
  col.reserve(static_cast<std::size_t>(f.halo_nnz));
  std::vector<std::uint64_t> seen;  // the ghosts' keys, as first seen
  offset_type longest = 0;
  for (offset_type k = first; k < end; ++k) {
    const global_index_type i = rows_of[k];
    const auto before = static_cast<offset_type>(col.size());
    for (offset_type e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) {
      const global_index_type c = a.col[e];
      const std::uint64_t w = where[c];
      if (static_cast<int>(w >> 32) == r) continue;
      if (last_rank[c] != r) {
        last_rank[c] = r;
        slot[c] = static_cast<index_type>(seen.size());
        seen.push_back(w);
      }
      col.push_back(slot[c]);
    }
    const auto n = static_cast<offset_type>(col.size()) - before;
    if (n == 0) continue;
    row_ptr.push_back(static_cast<offset_type>(col.size()));
    longest = std::max(longest, n);
  }
  std::vector<index_type> by_key(seen.size());  // first-seen numbers in key order
  std::iota(by_key.begin(), by_key.end(), index_type{0});
  std::sort(by_key.begin(), by_key.end(), [&seen](index_type s, index_type t) { return seen[s] < seen[t]; });
  std::vector<std::uint64_t> ghosts(seen.size());
  std::vector<index_type> sorted_slot(seen.size());
  for (std::size_t k = 0; k < by_key.size(); ++k) {
    ghosts[k] = seen[static_cast<std::size_t>(by_key[k])];
    sorted_slot[static_cast<std::size_t>(by_key[k])] = static_cast<index_type>(k);
  }
  for (auto& c : col) c = sorted_slot[static_cast<std::size_t>(c)];
  seen = {};
  const std::size_t n_ghosts = ghosts.size(), rows = row_ptr.size() - 1;
  if (longest > plain_halo_row && static_cast<offset_type>(col.size()) >= halo_panel_trial_nnz) {
    // order_halo_block: within each owner's group, the most used ghosts first (stable); each row's
    // entries sorted by the new slots.
    std::vector<offset_type> uses(n_ghosts, 0);
    for (const index_type c : col) ++uses[static_cast<std::size_t>(c)];
    std::vector<std::size_t> group_starts;
    for (std::size_t k = 0; k < n_ghosts; ++k)
      if (k == 0 || (ghosts[k] >> 32) != (ghosts[k - 1] >> 32)) group_starts.push_back(k);
    const auto old_col = partition::most_used_first(uses, group_starts);
    std::vector<index_type> new_col(n_ghosts);
    for (std::size_t k = 0; k < n_ghosts; ++k) new_col[static_cast<std::size_t>(old_col[k])] = static_cast<index_type>(k);
    for (auto& c : col) c = new_col[static_cast<std::size_t>(c)];
    for (std::size_t i = 0; i < rows; ++i) std::sort(col.begin() + row_ptr[i], col.begin() + row_ptr[i + 1]);
  }
  csr_matrix<double, index_type> b;  // (values 0.5: not a pattern, as block_trial_formats)
  b.rows = static_cast<global_index_type>(rows);
  b.cols = static_cast<global_index_type>(n_ghosts);
  b.row_ptr = row_ptr;
  b.col_idx = col;
  b.values.assign(col.size(), 0.5);
  const auto stats = compute_row_statistics(b);
  const auto pick = select_format(stats, backend::cuda);
  b = {};
  f.halo_pick = pick.format;
  f.halo_trial = halo_trial_times_panel(stats, pick);
  if (!f.halo_trial) return;
  std::vector<std::int64_t> stamp(n_ghosts / 8 + 1, -1);  // (x_lines' 64-byte lines; panels' 128 fit too)
  std::int64_t group = -1;
  f.halo_x_lines = block_x_lines(row_ptr, col, stamp, group);
  f.halo_panel_lines = block_panel_lines(row_ptr, col, stamp, group);
}

}  // namespace

std::vector<rank_figures> halo_figures(const pattern& a, const std::vector<int>& part, int ranks, int gpus_per_host,
                                       bool order_trial, bool rcm_everywhere) {
  std::vector<rank_figures> f(ranks);
  // Rows grouped by rank (a stable counting sort).
  std::vector<offset_type> first(static_cast<std::size_t>(ranks) + 1, 0);
  for (int q : part) ++first[q + 1];
  std::partial_sum(first.begin(), first.end(), first.begin());
  std::vector<global_index_type> rows_of(static_cast<std::size_t>(a.rows));
  {
    std::vector<offset_type> at(first.begin(), first.end() - 1);
    for (global_index_type i = 0; i < a.rows; ++i) rows_of[at[part[i]]++] = i;
  }
  // Each row's rank (high 32 bits) and place in that rank's numbering, its local column of x (low
  // 32 bits): one load per nonzero instead of two (the loop below is bound by these random loads).
  std::vector<std::uint64_t> where(static_cast<std::size_t>(a.rows));
  for (int r = 0; r < ranks; ++r) {
    if (first[r + 1] - first[r] > (offset_type{1} << 32))
      DSPMV_BAD_INPUT("model", "--ranks", "a rank would hold 2^32 rows or more");
    for (offset_type k = first[r]; k < first[r + 1]; ++k)
      where[rows_of[k]] = (static_cast<std::uint64_t>(r) << 32) | static_cast<std::uint64_t>(k - first[r]);
  }
  const auto host = [&](int q) { return q / std::max(1, gpus_per_host); };
  // Per rank, the ranks it receives from and how many ghosts from each; the ranks side by side
  // (OpenMP), each thread with its own stamps (no clearing between ranks).
  std::vector<std::vector<std::pair<int, offset_type>>> sources(ranks);
#pragma omp parallel
  {
    std::vector<int> seen_col(static_cast<std::size_t>(a.rows), -1), seen_rank(ranks, -1);
    std::vector<std::int64_t> seen_line(static_cast<std::size_t>(a.rows / x_line + 1), -1);
    std::int64_t group = -1;  // this thread's groups of rows so far: the stamp of seen_line
    std::vector<offset_type> from(ranks, 0);
    std::vector<int> list;
#pragma omp for schedule(dynamic, 1)
    for (int r = 0; r < ranks; ++r) {
      rank_figures me;  // counted here, stored once: neighbouring ranks' entries share cache lines
      list.clear();
      for (offset_type k = first[r]; k < first[r + 1]; ++k) {
        const global_index_type i = rows_of[k];
        if ((k - first[r]) % x_group == 0) ++group;
        ++me.rows;
        me.nnz += a.row_ptr[i + 1] - a.row_ptr[i];
        me.max_row = std::max(me.max_row, a.row_ptr[i + 1] - a.row_ptr[i]);
        bool boundary = false;
        for (offset_type e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) {
          const global_index_type c = a.col[e];
          const std::uint64_t w = where[c];
          const int q = static_cast<int>(w >> 32);
          if (q == r) {
            const auto line = static_cast<global_index_type>(w & 0xffffffffu) / x_line;
            if (seen_line[line] != group) {
              seen_line[line] = group;
              ++me.x_lines;
            }
            continue;
          }
          boundary = true;
          ++me.halo_nnz;
          if (seen_col[c] == r) continue;
          seen_col[c] = r;
          ++me.ghosts;
          if (seen_rank[q] != r) {
            seen_rank[q] = r;
            list.push_back(q);
            from[q] = 0;
          }
          ++from[q];
        }
        me.boundary_rows += boundary;
      }
      for (int q : list) sources[r].emplace_back(q, from[q]);
      f[r] = me;
    }
  }
  // The local block of each rank whose figures need it (panel lines; the order's trial): its
  // rows in the rank's numbering, owned columns only, in local ids; the ranks side by side (each
  // writes its own figures), one block per thread.
#pragma omp parallel for schedule(dynamic, 1)
  for (int r = 0; r < ranks; ++r) {
    // Also where CSR's bytes of the block (values, columns, a row offset a row: format_bytes_per_
    // nonzero's csr in double) pass l2_resident_bytes, without which rule 2a does not pick sell-w.
    const double csr_bytes = 12.0 * static_cast<double>(f[r].local_nnz()) + 8.0 * static_cast<double>(f[r].rows);
    if (f[r].local_nnz() < panel_figures_nnz && !order_trial && csr_bytes <= static_cast<double>(l2_resident_bytes))
      continue;
    const auto n = static_cast<std::size_t>(first[r + 1] - first[r]);
    std::vector<offset_type> row_ptr(n + 1, 0), whole(n + 1, 0);
    std::vector<index_type> col;
    col.reserve(static_cast<std::size_t>(f[r].local_nnz()));
    for (std::size_t k = 0; k < n; ++k) {
      const global_index_type i = rows_of[first[r] + static_cast<offset_type>(k)];
      for (offset_type e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) {
        const std::uint64_t w = where[a.col[e]];
        if (static_cast<int>(w >> 32) == r) col.push_back(static_cast<index_type>(w & 0xffffffffu));
      }
      row_ptr[k + 1] = static_cast<offset_type>(col.size());
      whole[k + 1] = whole[k] + (a.row_ptr[i + 1] - a.row_ptr[i]);
    }
    std::vector<std::int64_t> stamp(n / 8 + 1, -1);  // (x_lines' 64-byte lines; panels' 128 fit too)
    std::int64_t group = -1;
    if (f[r].local_nnz() >= panel_figures_nnz) f[r].panel_lines = block_panel_lines(row_ptr, col, stamp, group);
    // The selector's pick on the block (the rule itself, on the block's statistics); sell-w's figures.
    const auto stats = block_statistics(row_ptr, col);
    f[r].pick = select_format(stats, backend::cuda).format;
    if (f[r].pick == "sell-w") {
      f[r].sell_w_bytes = format_bytes_per_nonzero(stats).sell_windows * static_cast<double>(stats.nnz);
      f[r].window_bytes = block_window_bytes(row_ptr, col);
    }
    if (!order_trial) continue;
    f[r].trial = true;
    const bool large = f[r].local_nnz() >= trial_panel_nnz;  // (trial_formats adds no panel below)
    if (large) f[r].none_formats = block_trial_formats(stats, ranks);
    // The block in each of the trial's orders: its x_lines, panel_lines and trial formats.
    const auto figures_in = [&](const std::vector<global_index_type>& order, offset_type& x_lines,
                                offset_type& panel_lines, std::vector<std::string>& formats) {
      std::vector<offset_type> o_ptr;
      std::vector<index_type> o_col;
      renumbered_block(row_ptr, col, order, o_ptr, o_col);
      x_lines = block_x_lines(o_ptr, o_col, stamp, group);
      if (f[r].local_nnz() >= panel_figures_nnz) panel_lines = block_panel_lines(o_ptr, o_col, stamp, group);
      if (large) formats = block_trial_formats(block_statistics(o_ptr, o_col), ranks);
    };
    // Degree order of the whole rows (the GPU's order counts the halo entries too).
    figures_in(partition::degree_order(whole), f[r].degree_x_lines, f[r].degree_panel_lines, f[r].degree_formats);
    f[r].rcm_trial = large || rcm_everywhere;
    if (f[r].rcm_trial)
      figures_in(block_rcm_order(row_ptr, col), f[r].rcm_x_lines, f[r].rcm_panel_lines, f[r].rcm_formats);
  }
  // The halo block's trial (the CUDA backend's halo_trial), where the block is large enough.
#pragma omp parallel
  {
    std::vector<int> last_rank;
    std::vector<index_type> slot;
#pragma omp for schedule(dynamic, 1)
    for (int r = 0; r < ranks; ++r) {
      if (f[r].halo_nnz < halo_panel_trial_nnz) continue;
      if (last_rank.empty()) {  // (a thread's first such rank: most ranks of a large P have none)
        last_rank.assign(static_cast<std::size_t>(a.rows), -1);
        slot.resize(static_cast<std::size_t>(a.rows));
      }
      halo_block_figures(a, rows_of, first[r], first[r + 1], r, where, f[r], last_rank, slot);
    }
  }
  std::vector<std::vector<int>> peers(ranks);  // receive-from, then send-to ranks
  for (int r = 0; r < ranks; ++r)
    for (const auto& [q, n] : sources[r]) {
      peers[r].push_back(q);
      peers[q].push_back(r);
      f[q].sends += n;
      if (host(q) != host(r)) {
        f[r].ghosts_off_host += n;
        f[q].sends_off_host += n;
      }
    }
  for (int r = 0; r < ranks; ++r) {
    auto& p = peers[r];
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    f[r].neighbours = static_cast<int>(p.size());
    f[r].neighbours_off_host =
        static_cast<int>(std::count_if(p.begin(), p.end(), [&](int q) { return host(q) != host(r); }));
  }
  return f;
}

std::string guess_class(const pattern& a) {
  // A sample of up to 4096 rows spread over the matrix: the distinct offsets c - r and their entries.
  std::vector<global_index_type> offsets;
  const global_index_type step = std::max<global_index_type>(1, a.rows / 4096);
  for (global_index_type i = 0; i < a.rows; i += step)
    for (offset_type e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) offsets.push_back(a.col[e] - i);
  if (offsets.empty()) return "general";
  const auto n = static_cast<double>(offsets.size());
  const offset_type top = partition::entries_on_top_diagonals(std::move(offsets), 32);
  return static_cast<double>(top) >= 0.95 * n ? "diagonal" : "general";
}

}  // namespace distspmv::model
