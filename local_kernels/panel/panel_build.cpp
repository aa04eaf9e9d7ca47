// Builds column-sorted row panels from CSR on the host: panel cuts and row pieces (slots) from
// the row pointer (plan_panels, shared with the GPU builder), then per panel the entries sorted by
// column and the rounds in which no slot repeats. Deterministic (every sort is stable, ties by
// position); the input is only read.
#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <utility>

#include "local_kernels/panel/panel.hpp"

namespace distspmv::panel {
namespace {

constexpr const char* source = "panel::build";

void check_params(const panel_params& p) {
  if (p.panel_rows < 1) DSPMV_BAD_INPUT(source, "panel_rows", std::to_string(p.panel_rows) + " is not positive");
  if (p.panel_entries < 0) DSPMV_BAD_INPUT(source, "panel_entries", std::to_string(p.panel_entries) + " is negative");
  if (p.piece_entries < 0) DSPMV_BAD_INPUT(source, "piece_entries", std::to_string(p.piece_entries) + " is negative");
  if (p.max_slots < 1 || p.max_slots >= padding_slot)
    DSPMV_BAD_INPUT(source, "max_slots", std::to_string(p.max_slots) + " is not in [1, 65534]");
  if (p.wave_panels < 0) DSPMV_BAD_INPUT(source, "wave_panels", std::to_string(p.wave_panels) + " is negative");
}

/// One panel's entries (CSR positions) and slots, in stored order with padding as (-1, padding_slot).
struct laid_out {
  std::vector<offset_type> entry;
  std::vector<std::uint16_t> slot;
};

/// Panel rows [first, last) of the panel rows' pointer `rp` (plan.panel_row_ptr), columns `col`.
laid_out lay_out_panel(const std::vector<offset_type>& rp, const std::vector<index_type>& col, global_index_type first,
                       global_index_type last, const std::uint16_t* slot_begin) {
  const offset_type b = rp[first], n = rp[last] - b;
  std::vector<std::uint16_t> slot_of(static_cast<std::size_t>(n));
  for (global_index_type r = first; r < last; ++r) {
    const offset_type len = rp[r + 1] - rp[r], k = slot_begin[r - first + 1] - slot_begin[r - first];
    for (offset_type j = 0; j < len; ++j)  // round-robin: a slot's entries spread over the row's columns
      slot_of[static_cast<std::size_t>(rp[r] - b + j)] = static_cast<std::uint16_t>(slot_begin[r - first] + j % k);
  }
  const offset_type slots = slot_begin[last - first];

  std::vector<offset_type> order(static_cast<std::size_t>(n));
  for (offset_type k = 0; k < n; ++k) order[static_cast<std::size_t>(k)] = b + k;
  std::stable_sort(order.begin(), order.end(), [&col](offset_type s, offset_type t) { return col[s] < col[t]; });

  // Rounds: each entry, in column order, goes to the first round from the first one not yet
  // full that lies past its slot's last round and has room; its place in the round is the
  // round's count so far (build_cuda's rounds_kernel is the same loop).
  std::vector<offset_type> fill;
  std::vector<offset_type> last_round(static_cast<std::size_t>(slots), -1);
  laid_out out;
  std::vector<std::pair<offset_type, offset_type>> placed(static_cast<std::size_t>(n));  // (position, entry)
  offset_type open = 0;
  for (offset_type k = 0; k < n; ++k) {
    const offset_type e = order[static_cast<std::size_t>(k)];
    const std::uint16_t s = slot_of[static_cast<std::size_t>(e - b)];
    offset_type r = std::max(open, last_round[s] + 1);
    for (;; ++r) {
      if (r >= static_cast<offset_type>(fill.size())) fill.resize(static_cast<std::size_t>(r) + 1, 0);
      if (fill[static_cast<std::size_t>(r)] < round_entries) break;
    }
    placed[static_cast<std::size_t>(k)] = {r * round_entries + fill[static_cast<std::size_t>(r)]++, e};
    last_round[s] = r;
    while (open < static_cast<offset_type>(fill.size()) && fill[static_cast<std::size_t>(open)] == round_entries) ++open;
  }
  out.entry.assign(fill.size() * static_cast<std::size_t>(round_entries), -1);
  out.slot.assign(out.entry.size(), padding_slot);
  for (const auto& [at, e] : placed) {
    out.entry[static_cast<std::size_t>(at)] = e;
    out.slot[static_cast<std::size_t>(at)] = slot_of[static_cast<std::size_t>(e - b)];
  }
  return out;
}

/// The parts a row of `len` entries is cut into where it is longer than `most` (ceil(len / most)
/// parts of consecutive entries, as even as they divide; else the whole row): f(end) for each
/// part, `end` its end within the row.
template <typename F>
void for_each_part(offset_type len, offset_type most, F&& f) {
  if (len <= most) {
    f(len);
    return;
  }
  const offset_type cuts = (len + most - 1) / most;
  for (offset_type k = 1; k <= cuts; ++k) f(len * k / cuts);
}

}  // namespace

offset_type piece_length(offset_type len, const panel_params& p) {
  return std::max<offset_type>(p.piece_entries, (len + p.max_slots - 1) / p.max_slots);
}

offset_type row_slots(offset_type len, const panel_params& p) {
  if (len <= p.piece_entries) return len > 0 ? 1 : 0;  // most rows: no division (plan_panels runs this often)
  const offset_type q = piece_length(len, p);
  return (len + q - 1) / q;
}

/// Cuts each row longer than panel_entries into ceil(len / panel_entries) parts of consecutive
/// entries, as even as they divide (plan.part_ptr, row_out, split_row, split_part); nothing where no
/// row is that long.
void split_long_rows(const std::vector<offset_type>& row_ptr, panel_plan& plan) {
  const offset_type most = plan.params.panel_entries;
  const global_index_type rows = static_cast<global_index_type>(row_ptr.size()) - 1;
  global_index_type r = 0;
  while (r < rows && row_ptr[r + 1] - row_ptr[r] <= most) ++r;
  if (r == rows) return;
  plan.part_ptr.assign(row_ptr.begin(), row_ptr.begin() + r + 1);
  plan.row_out.resize(static_cast<std::size_t>(r));
  for (index_type i = 0; i < static_cast<index_type>(r); ++i) plan.row_out[static_cast<std::size_t>(i)] = i;
  index_type parts = 0;
  plan.split_part.push_back(0);
  for (; r < rows; ++r) {
    const offset_type b = row_ptr[r], len = row_ptr[r + 1] - b;
    if (len <= most) {
      plan.part_ptr.push_back(row_ptr[r + 1]);
      plan.row_out.push_back(static_cast<index_type>(r));
      continue;
    }
    for_each_part(len, most, [&](offset_type end) {
      plan.part_ptr.push_back(b + end);
      plan.row_out.push_back(~parts++);
    });
    plan.split_row.push_back(static_cast<index_type>(r));
    plan.split_part.push_back(parts);
  }
  if (plan.part_ptr.size() - 1 > static_cast<std::size_t>(std::numeric_limits<index_type>::max()))
    DSPMV_BAD_INPUT(source, "rows", std::to_string(rows) + " rows and " + std::to_string(parts) +
                                        " parts of long rows exceed the 32-bit local row range");
}

namespace {

/// The greedy panel cut, a panel row at a time: a panel ends at panel_rows panel rows, or before a
/// panel row that would take it past panel_entries entries or max_slots slots (a panel row has at
/// most panel_entries entries, so none is left alone beyond them).
struct panel_cutter {
  const global_index_type max_rows;  // the limits, copied: plan_panels runs this loop a few times
  const offset_type max_entries, max_slots;
  global_index_type rows = 0;  ///< of the open panel
  offset_type entries = 0, slots = 0;
  explicit panel_cutter(const panel_params& p) : max_rows(p.panel_rows), max_entries(p.panel_entries), max_slots(p.max_slots) {}
  /// Adds a panel row of `len` entries in `k` slots; true where it opens a panel (the first row too).
  bool add(offset_type len, offset_type k) {
    const bool opens = (rows == 0) | (rows == max_rows) | (entries + len > max_entries) | (slots + k > max_slots);
    if (opens) rows = entries = slots = 0;
    ++rows;
    entries += len;
    slots += k;
    return opens;
  }
};

constexpr double panel_overhead_entries = 4.0 * round_entries;  // loading slots, writing y: about 4 rounds

/// The makespan of panels of `entries` taken in `order` by `wave` places, each panel by the first
/// free place and costing its entries and panel_overhead_entries: when the last place finishes.
double makespan(const std::vector<offset_type>& entries, const std::vector<index_type>& order, offset_type wave) {
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;  // at most `wave` places
  double last = 0;
  for (const index_type p : order) {
    double start = 0;
    if (static_cast<offset_type>(free_at.size()) == wave) {
      start = free_at.top();
      free_at.pop();
    }
    const double end = start + static_cast<double>(entries[static_cast<std::size_t>(p)]) + panel_overhead_entries;
    free_at.push(end);
    last = std::max(last, end);
  }
  return last;
}

/// Largest first pays where panels of different sizes come in runs (rows in rcm order): taken in
/// panel order, a run of large panels can start late and end the kernel alone. Where the panel
/// order is balanced already it stays, since neighbouring panels share x's sectors in the L2
/// cache: largest first shuffled the equal panels of a banded lognormal block and cost it 6%.
constexpr double dispatch_gain = 0.9;

/// The kernel's order for panels of `entries`: largest first where that shortens the makespan
/// over `wave` places by dispatch_gain, else panel order (also with no wave, or one wave's worth).
std::vector<index_type> dispatch_for(const std::vector<offset_type>& entries, offset_type wave) {
  std::vector<index_type> order(entries.size());
  for (std::size_t p = 0; p < order.size(); ++p) order[p] = static_cast<index_type>(p);
  if (wave == 0 || static_cast<offset_type>(entries.size()) <= wave) return order;
  std::vector<index_type> largest = order;
  std::stable_sort(largest.begin(), largest.end(), [&entries](index_type p, index_type q) {
    return entries[static_cast<std::size_t>(p)] > entries[static_cast<std::size_t>(q)];
  });
  return makespan(entries, largest, wave) < dispatch_gain * makespan(entries, order, wave) ? largest : order;
}

/// What the GPU would take for the panels plan_with(row_ptr, p) cuts (long rows split as
/// split_long_rows splits them), without storing the plan: the makespan of the panels' entries in
/// the kernel's order (dispatch_for) over `wave` places.
struct panel_schedule {
  offset_type panels = 0;
  double makespan = 0;
};

panel_schedule schedule_panels(const std::vector<offset_type>& row_ptr, const panel_params& p, offset_type wave) {
  panel_cutter cut(p);
  std::vector<offset_type> entries;  // of each panel
  bool opened = false;
  for (std::size_t r = 0; r + 1 < row_ptr.size(); ++r) {
    offset_type begin = 0;
    for_each_part(row_ptr[r + 1] - row_ptr[r], p.panel_entries, [&](offset_type end) {
      const offset_type len = end - begin, before = cut.entries;
      if (cut.add(len, row_slots(len, p)) && std::exchange(opened, true)) entries.push_back(before);
      begin = end;
    });
  }
  if (opened) entries.push_back(cut.entries);
  return {static_cast<offset_type>(entries.size()), makespan(entries, dispatch_for(entries, wave), wave)};
}

/// The plan for resolved parameters: long rows split, then the greedy cuts and slot offsets.
panel_plan plan_with(const std::vector<offset_type>& row_ptr, const panel_params& p) {
  panel_plan plan;
  plan.params = p;
  split_long_rows(row_ptr, plan);
  const std::vector<offset_type>& rp = plan.panel_row_ptr(row_ptr);
  const global_index_type rows = static_cast<global_index_type>(rp.size()) - 1;
  plan.panel_row.push_back(0);
  plan.slot_begin.reserve(static_cast<std::size_t>(rows) + 1);
  auto close = [&plan](offset_type slots, global_index_type end) {  // the open panel ends before panel row `end`
    plan.slot_begin.push_back(static_cast<std::uint16_t>(slots));
    plan.max_slots = std::max<int>(plan.max_slots, static_cast<int>(slots));
    plan.panel_row.push_back(static_cast<index_type>(end));
  };
  panel_cutter cut(p);
  for (global_index_type r = 0; r < rows; ++r) {
    const offset_type len = rp[r + 1] - rp[r], k = row_slots(len, p), before = cut.slots;
    if (cut.add(len, k) && r > 0) close(before, r);
    plan.slot_begin.push_back(static_cast<std::uint16_t>(cut.slots - k));
  }
  if (rows > 0) close(cut.slots, rows);
  return plan;
}

/// Automatic piece size: half the panel's rounds, at most 32.
int auto_piece_entries(offset_type panel_entries) {
  return static_cast<int>(std::clamp<offset_type>(panel_entries / round_entries / 2, 1, 32));
}

/// Where the automatic sizes cut more panels than a wave and not whole waves, the last wave may
/// run a few panels on an idle GPU (gen:rmat:22:16 in the read order: 592 panels of up to 125
/// rounds, the last 64 alone). The candidate: a small entry cap, in whole rounds, whose cuts
/// still fit the whole waves that many panels need (the waves full of panels of about equal
/// size), found in 1-3 schedules (host passes over the row pointer: 10-20 ms for 4 M rows). It is kept
/// only where it shortens schedule_panels' makespan by fill_gain: where the panels differ in size
/// (rows in degree or rcm order) the dispatch (dispatch_for) already balances them, and smaller
/// panels would only lose the x gathers they share (jobs/results/2026-12-03_h200_panel_waves).
constexpr double fill_gain = 0.9;
constexpr int fill_probes = 6;

panel_params fill_waves(const std::vector<offset_type>& row_ptr, panel_params p, bool auto_piece) {
  const offset_type wave = p.wave_panels;
  if (wave == 0) return p;
  const panel_schedule as_is = schedule_panels(row_ptr, p, wave);
  if (as_is.panels <= wave || as_is.panels % wave == 0) return p;
  const offset_type target = (as_is.panels + wave - 1) / wave * wave, nnz = row_ptr.back();
  // No cut does better than the whole cost spread evenly, and the smaller caps only add panels.
  const double floor = (static_cast<double>(nnz) + static_cast<double>(as_is.panels) * panel_overhead_entries) / wave;
  if (floor >= fill_gain * as_is.makespan) return p;
  auto sized = [&](offset_type rounds) {
    panel_params q = p;
    q.panel_entries = rounds * round_entries;
    if (auto_piece) q.piece_entries = auto_piece_entries(q.panel_entries);
    return q;
  };
  // Up from the even share of the entries (in rounds) until the cuts fit the target: the count
  // falls about as 1 / cap, so each step aims where it would meet the target, at least 1/32 up.
  // Rows that bind on panel_rows or max_slots barely move the count: at most fill_probes tries,
  // none after one longer than the automatic cut's. (R-MAT's rows in degree or rcm order, dispatched
  // largest first where that pays, are within a tenth of the floor above and try none.)
  const offset_type auto_rounds = p.panel_entries / round_entries;
  offset_type rounds = std::max<offset_type>(1, (nnz + target * round_entries - 1) / (target * round_entries));
  for (int probe = 0; probe < fill_probes && rounds < auto_rounds; ++probe) {
    const panel_schedule s = schedule_panels(row_ptr, sized(rounds), wave);
    if (s.panels <= target) return s.makespan < fill_gain * as_is.makespan ? sized(rounds) : p;
    if (s.makespan >= as_is.makespan) break;  // growing with the cap: larger ones will not do
    rounds = std::max({rounds + 1, rounds + rounds / 32, (rounds * s.panels + target - 1) / target});
  }
  return p;
}

}  // namespace

panel_plan plan_panels(const std::vector<offset_type>& row_ptr, const panel_params& params) {
  check_params(params);
  const offset_type nnz = row_ptr.back();
  panel_params p = params;
  const bool auto_entries = p.panel_entries == 0, auto_piece = p.piece_entries == 0;
  if (auto_entries)
    p.panel_entries = std::clamp((nnz / target_panels + round_entries - 1) / round_entries * round_entries,
                                 min_panel_entries, max_panel_entries);
  if (auto_piece) p.piece_entries = auto_piece_entries(p.panel_entries);
  if (auto_entries) p = fill_waves(row_ptr, p, auto_piece);
  return plan_with(row_ptr, p);
}

std::string params_text(const panel_plan& plan) {
  std::string text = "panels=" + std::to_string(plan.panel_row.size() - 1) + " rows<=" +
                     std::to_string(plan.params.panel_rows) + " entries<=" + std::to_string(plan.params.panel_entries) +
                     " piece=" + std::to_string(plan.params.piece_entries) + " slots<=" + std::to_string(plan.max_slots);
  if (!plan.split_row.empty())
    text += " split_rows=" + std::to_string(plan.split_row.size()) + " parts=" + std::to_string(plan.split_part.back());
  return text;
}

std::size_t stored_bytes(const panel_plan& plan, std::size_t panel_entries, offset_type stored, std::size_t value_bytes) {
  const std::size_t parts = plan.split_row.empty() ? 0 : static_cast<std::size_t>(plan.split_part.back());
  const std::size_t dispatch = plan.panel_row.size() - 1;  // one per panel
  return (plan.panel_row.size() + dispatch + plan.row_out.size() + plan.split_row.size() + plan.split_part.size()) * sizeof(index_type) +
         panel_entries * sizeof(offset_type) + plan.slot_begin.size() * sizeof(std::uint16_t) + parts * value_bytes +
         static_cast<std::size_t>(stored) * (sizeof(index_type) + value_bytes + sizeof(std::uint16_t));
}

std::vector<index_type> dispatch_order(const std::vector<offset_type>& panel_entry, offset_type wave) {
  std::vector<offset_type> stored(panel_entry.empty() ? 0 : panel_entry.size() - 1);
  for (std::size_t p = 0; p < stored.size(); ++p) stored[p] = panel_entry[p + 1] - panel_entry[p];
  return dispatch_for(stored, wave);
}

template <typename V>
panel_matrix<V> build(const csr_matrix<V, index_type>& a, const panel_params& params) {
  check_params(params);
  validate_csr(a, source, /*allow_nonfinite=*/true);
  if (a.rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(source, "rows", std::to_string(a.rows) + " rows exceed the 32-bit local row range");
  panel_plan plan = plan_panels(a.row_ptr, params);
  panel_matrix<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.nnz = a.nnz();
  m.params = plan.params;
  m.max_slots = plan.max_slots;
  const std::size_t panels = plan.panel_row.size() - 1;

  const std::vector<offset_type>& rp = plan.panel_row_ptr(a.row_ptr);
  std::vector<laid_out> lay(panels);
#pragma omp parallel for schedule(dynamic, 1) if (panels > 1)
  for (std::ptrdiff_t p = 0; p < static_cast<std::ptrdiff_t>(panels); ++p)
    lay[static_cast<std::size_t>(p)] = lay_out_panel(rp, a.col_idx, plan.panel_row[p], plan.panel_row[p + 1],
                                                     plan.slot_begin.data() + plan.panel_row[p] + p);

  m.panel_entry.assign(panels + 1, 0);
  for (std::size_t p = 0; p < panels; ++p)
    m.panel_entry[p + 1] = m.panel_entry[p] + static_cast<offset_type>(lay[p].entry.size());
  m.dispatch = dispatch_order(m.panel_entry, m.params.wave_panels);
  const std::size_t stored = static_cast<std::size_t>(m.panel_entry.back());
  m.col_idx.assign(stored, 0);
  m.values.assign(stored, V(0));
  m.slot.assign(stored, padding_slot);
#pragma omp parallel for schedule(dynamic, 1) if (panels > 1)
  for (std::ptrdiff_t p = 0; p < static_cast<std::ptrdiff_t>(panels); ++p) {
    const laid_out& l = lay[static_cast<std::size_t>(p)];
    const std::size_t o = static_cast<std::size_t>(m.panel_entry[p]);
    // Padding gathers the panel's smallest column (valid whenever the panel has entries).
    index_type smallest = std::numeric_limits<index_type>::max();
    for (std::size_t k = 0; k < l.entry.size(); ++k)
      if (l.entry[k] >= 0) smallest = std::min(smallest, a.col_idx[l.entry[k]]);
    for (std::size_t k = 0; k < l.entry.size(); ++k) {
      m.col_idx[o + k] = l.entry[k] >= 0 ? a.col_idx[l.entry[k]] : smallest;
      if (l.entry[k] >= 0) m.values[o + k] = a.values[l.entry[k]];
      m.slot[o + k] = l.slot[k];
    }
  }
  m.stats.params = params_text(plan);
  m.stats.stored_bytes = stored_bytes(plan, m.panel_entry.size(), stored, sizeof(V));
  m.stats.padding_ratio = m.nnz > 0 ? static_cast<double>(stored) / static_cast<double>(m.nnz) : 1.0;
  m.part_sums.assign(plan.split_row.empty() ? 0 : static_cast<std::size_t>(plan.split_part.back()), V(0));
  m.panel_row = std::move(plan.panel_row);
  m.slot_begin = std::move(plan.slot_begin);
  m.row_out = std::move(plan.row_out);
  m.split_row = std::move(plan.split_row);
  m.split_part = std::move(plan.split_part);
  return m;
}

/// The row panel row `i` belongs to.
template <typename V>
index_type row_of(const panel_matrix<V>& m, index_type i) {
  if (m.row_out.empty()) return i;
  const index_type t = m.row_out[static_cast<std::size_t>(i)];
  if (t >= 0) return t;
  const auto s = std::upper_bound(m.split_part.begin(), m.split_part.end(), ~t) - m.split_part.begin() - 1;
  return m.split_row[static_cast<std::size_t>(s)];
}

template <typename V>
csr_matrix<V, index_type> to_csr(const panel_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  a.row_ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
  std::vector<std::vector<std::pair<index_type, V>>> rows(static_cast<std::size_t>(m.rows));
  for (std::size_t p = 0; p + 1 < m.panel_row.size(); ++p) {
    const std::uint16_t* sb = m.slot_begin.data() + m.panel_row[p] + p;
    const index_type n = m.panel_row[p + 1] - m.panel_row[p];
    for (offset_type k = m.panel_entry[p]; k < m.panel_entry[p + 1]; ++k) {
      const std::uint16_t s = m.slot[static_cast<std::size_t>(k)];
      if (s == padding_slot) continue;
      const index_type i = static_cast<index_type>(std::upper_bound(sb, sb + n + 1, s) - sb - 1);
      rows[static_cast<std::size_t>(row_of(m, m.panel_row[p] + i))].push_back({m.col_idx[static_cast<std::size_t>(k)],
                                                                              m.values[static_cast<std::size_t>(k)]});
    }
  }
  for (global_index_type r = 0; r < m.rows; ++r) {
    auto& row = rows[static_cast<std::size_t>(r)];
    std::stable_sort(row.begin(), row.end(), [](const auto& s, const auto& t) { return s.first < t.first; });
    for (const auto& [c, v] : row) {
      a.col_idx.push_back(c);
      a.values.push_back(v);
    }
    a.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<offset_type>(a.col_idx.size());
  }
  return a;
}

template panel_matrix<float> build(const csr_matrix<float, index_type>&, const panel_params&);
template panel_matrix<double> build(const csr_matrix<double, index_type>&, const panel_params&);
template csr_matrix<float, index_type> to_csr(const panel_matrix<float>&);
template csr_matrix<double, index_type> to_csr(const panel_matrix<double>&);

}  // namespace distspmv::panel
