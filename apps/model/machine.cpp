// The machine description and the time model (model.hpp; docs/performance.md, "Past four GPUs").
//
// One rank of P (double precision; B = its CSR-equivalent bytes, nnz * 12 + rows * 24; G = 64 *
// x_lines, the lines of x its rows gather):
//   S = (rows * row_ns[class] + max_row * max_row_ns[class]) / 1000 + B / rate[class] + G / gather[class]
//       (gather[class] is the machine's gather unless the class has its own; panels instead of G:
//       128 * panel_lines / line[class], the distinct 128-byte lines of x each panel reads)
//   P = 1:  apply = floor[class] + S
//   P > 1:  local = multi_rank_floor + S                         (local and halo blocks)
//           X     = max(X_on_host, X_across_hosts), each (where the rank has such neighbours)
//                   latency + (neighbours - 1) * per_neighbour + 8 * max(ghosts, sends) / bandwidth
//           apply = max(local + (1 - overlap) * X, multi_rank_floor + X + S * halo_nnz / nnz)
//                   (the halo block's product, the rank's nonzeros in ghost columns, follows X)
//   Where the GPU's halo trial times panel on the halo block (rank_figures::halo_trial), the halo
//   block is predicted on its own, in the pick's class and in panel's (each: halo_nnz * 12 bytes at
//   the class's rate + 64 * halo_x_lines at its gather rate, the machine's unless the class has its
//   own, or for panels 128 * halo_panel_lines at the line rate), the faster by the trial's margin
//   kept: S = S(local block) + H, and H takes the place of S * halo_nnz / nnz.
//   (h200_ib.json's panel class since 2026-12-03: a floor, the bytes at about the copy bandwidth and
//   the panels' lines: jobs/results/2026-12-03_h200_csr_blocks_panel_lines.)
// and the apply of the matrix is the slowest rank's. Its bound: the largest of S, the multi-rank
// floor and the exposed exchange (apply - local; latency or volume, whichever is more). With
// `--order auto` (predict_rank), a rank whose numbering the sample rule finds not local gets the
// figures of its block in rcm and degree order beside the read order's, and keeps the order and
// format of the trial's fastest candidate: an order with panel only where its panels also read
// fewer lines than the read order's by the margin; where the trial times the selector's pick alone
// in each order (small CSR blocks), an order predicted as the read order + 64 * (its x_lines -
// x_lines) / order_gather[class] (h200_ib.json's csr since 2026-12-02:
// jobs/results/2026-12-02_model_check9; rcm since 2026-12-03).
// A block the selector gives sell-w (rank_figures::pick, select_format on the block's statistics)
// is predicted in the sell-w class where the description has one: B = the selector's bytes of the
// block (format_bytes_per_nonzero's sell_windows x nnz) + x's staged windows (+ 12 a halo nonzero),
// at format_bytes_gbps, no x_lines term (jobs/results/2026-12-02_model_check10).
// jobs/model_check.py computes the same and fits the description to measured runs.
#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "apps/model/model.hpp"
#include "common/errors.hpp"

namespace distspmv::model {
namespace {

template <typename T>
const T& find_named(const std::vector<std::pair<std::string, T>>& list, const std::string& name, const char* what,
                    const std::string& file) {
  for (const auto& [n, v] : list)
    if (n == name) return v;
  DSPMV_BAD_INPUT("machine description " + file, what, "has no entry '" + name + "'");
}

}  // namespace

const spmv_class& machine::spmv(const std::string& cls) const { return find_named(classes, cls, "spmv", file); }
const exchange_figures& machine::transport(const std::string& name) const {
  return find_named(transports, name, "exchange", file);
}

machine read_machine(const std::string& path) {
  std::ifstream in(path);
  if (!in) DSPMV_BAD_INPUT("model", "--machine", "cannot open '" + path + "'");
  nlohmann::json j;
  try {
    in >> j;
    machine m;
    m.file = path;
    m.description = j.value("description", "");
    m.multi_rank_floor_us = j.at("multi_rank_floor_us").get<double>();
    m.gather_gbps = j.value("gather_gbps", 0.0);
    for (const auto& [name, c] : j.at("spmv").items())
      m.classes.emplace_back(name, spmv_class{c.at("floor_us").get<double>(), c.value("row_ns", 0.0),
                                              c.value("max_row_ns", 0.0), c.at("rate_gbps").get<double>(),
                                              c.value("gather_gbps", 0.0), c.value("line_gbps", 0.0),
                                              c.value("order_gather_gbps", 0.0), c.value("format_bytes_gbps", 0.0)});
    for (const auto& [name, x] : j.at("exchange").items())
      m.transports.emplace_back(name, exchange_figures{x.at("latency_us").get<double>(), x.at("per_neighbour_us").get<double>(),
                                                       x.at("bandwidth_gbps").get<double>(), x.at("overlap").get<double>()});
    m.single_host = j.value("single_host", m.single_host);
    m.on_host = j.value("on_host", m.on_host);
    m.across_hosts = j.value("across_hosts", m.across_hosts);
    m.transport(m.single_host);
    m.transport(m.on_host);
    m.transport(m.across_hosts);
    return m;
  } catch (const nlohmann::json::exception& e) {
    DSPMV_BAD_INPUT("model", "--machine " + path, e.what());
  }
}

prediction predict(const machine& m, const rank_figures& r, int ranks, int gpus_per_host, const std::string& cls,
                   const std::string& transport_on_host, const std::string& halo_cls, double order_us) {
  const spmv_class& c = m.spmv(cls);
  // The halo block on its own (halo_cls): its nonzeros' bytes leave the rank's class.
  const bool own_halo = ranks > 1 && !halo_cls.empty();
  // A class priced by its own bytes (sell-w): the selector's bytes of the local block and x's staged
  // windows, the halo block's nonzeros as CSR's, no x_lines term (its gathers read shared memory).
  const bool own_bytes = c.format_bytes_gbps > 0 && r.sell_w_bytes > 0;
  const double bytes =
      own_bytes ? r.sell_w_bytes + static_cast<double>(r.window_bytes) + (own_halo ? 0.0 : 12.0 * static_cast<double>(r.halo_nnz))
                : static_cast<double>(own_halo ? r.local_nnz() : r.nnz) * 12.0 + static_cast<double>(r.rows) * 24.0;
  // GB/s = 1e3 bytes per µs
  double compute_us = (static_cast<double>(r.rows) * c.row_ns + static_cast<double>(r.max_row) * c.max_row_ns) / 1e3 +
                      bytes / ((own_bytes ? c.format_bytes_gbps : c.rate_gbps) * 1e3);
  // x's gathers: the panels' lines where the class has a line rate, else x_lines.
  constexpr double line_bytes = 8.0 * panel_line_doubles;
  const double gather = c.gather_gbps > 0 ? c.gather_gbps : m.gather_gbps;
  if (c.line_gbps > 0)
    compute_us += line_bytes * static_cast<double>(r.panel_lines) / (c.line_gbps * 1e3);
  else if (gather > 0 && !own_bytes)
    compute_us += 64.0 * static_cast<double>(r.x_lines) / (gather * 1e3);
  compute_us += order_us;
  double halo_us = 0;
  if (own_halo) {
    // Its rows' y go to a buffer scattered after it: nonzeros only, and its gathers as the rank's:
    // panels the lines of the ghost vector each of its panels reads, else halo_x_lines.
    const spmv_class& h = m.spmv(halo_cls);
    halo_us = static_cast<double>(r.halo_nnz) * 12.0 / (h.rate_gbps * 1e3);
    const double halo_gather = h.gather_gbps > 0 ? h.gather_gbps : m.gather_gbps;
    if (h.line_gbps > 0)
      halo_us += line_bytes * static_cast<double>(r.halo_panel_lines) / (h.line_gbps * 1e3);
    else if (halo_gather > 0)
      halo_us += 64.0 * static_cast<double>(r.halo_x_lines) / (halo_gather * 1e3);
    compute_us += halo_us;
  }
  prediction p;
  p.halo_format = halo_cls;
  if (ranks == 1) {
    p.local_us = p.apply_us = c.floor_us + compute_us;
    p.bound = "local SpMV";
    return p;
  }
  p.local_us = m.multi_rank_floor_us + compute_us;
  const auto part = [](const exchange_figures& x, int neighbours, double entries, double& latency) {
    if (neighbours == 0) return 0.0;
    latency = x.latency_us + (neighbours - 1) * x.per_neighbour_us;
    return latency + 8.0 * entries / (x.bandwidth_gbps * 1e3);
  };
  const auto& on = m.transport(!transport_on_host.empty() ? transport_on_host
                                : ranks <= gpus_per_host ? m.single_host
                                                         : m.on_host);
  const auto& off = m.transport(m.across_hosts);
  double latency_on = 0, latency_off = 0;
  const double x_on = part(on, r.neighbours - r.neighbours_off_host,
                           static_cast<double>(std::max(r.ghosts - r.ghosts_off_host, r.sends - r.sends_off_host)),
                           latency_on);
  const double x_off = part(off, r.neighbours_off_host,
                            static_cast<double>(std::max(r.ghosts_off_host, r.sends_off_host)), latency_off);
  p.exchange_us = std::max(x_on, x_off);
  const double overlap = x_off > x_on ? off.overlap : on.overlap;
  const double latency = x_off > x_on ? latency_off : latency_on;
  // The halo block's product waits for the exchange: its share of the SpMV follows it.
  const double after = own_halo ? halo_us
                       : r.nnz > 0 ? compute_us * static_cast<double>(r.halo_nnz) / static_cast<double>(r.nnz)
                                   : 0.0;
  p.halo_us = after;
  p.apply_us =
      std::max(p.local_us + (1 - overlap) * p.exchange_us, m.multi_rank_floor_us + p.exchange_us + after);
  // The largest of the three parts of the apply: the SpMV's bytes, the fixed floor, the exchange
  // left exposed (its latency or its volume, whichever is more of it).
  const double exposed = p.apply_us - p.local_us;
  if (compute_us >= m.multi_rank_floor_us && compute_us >= exposed)
    p.bound = "local SpMV";
  else if (m.multi_rank_floor_us >= exposed)
    p.bound = "apply floor";
  else
    p.bound = latency >= 0.5 * p.exchange_us ? "exchange latency" : "halo volume";
  return p;
}

prediction predict_rank(const machine& m, const rank_figures& r, int ranks, int gpus_per_host, const std::string& cls,
                        const std::string& order, const std::string& transport_on_host, bool follow_pick) {
  const auto has = [&](const std::string& name) {
    return std::any_of(m.classes.begin(), m.classes.end(), [&](const auto& c) { return c.first == name; });
  };
  // The selector's pick of the block where it is sell-w (x windows): predicted in that class.
  if (follow_pick && r.pick == "sell-w" && has("sell-w") && cls != "sell-w")
    return predict_rank(m, r, ranks, gpus_per_host, "sell-w", order, transport_on_host, false);
  const auto class_of = [&](const std::string& format) { return has(format) ? format : cls; };
  // The block in the trial's other orders (their figures), and the formats the trial times there.
  rank_figures degree = r, rcm = r;
  degree.x_lines = r.degree_x_lines;
  degree.panel_lines = r.degree_panel_lines;
  rcm.x_lines = r.rcm_x_lines;
  rcm.panel_lines = r.rcm_panel_lines;
  struct candidate_order {
    const char* name;
    bool known;  // the figures have this order's
    const rank_figures& figures;
    const std::vector<std::string>& formats;
  };
  const candidate_order orders[] = {{"rcm", r.rcm_trial, rcm, r.rcm_formats},
                                    {"degree", true, degree, r.degree_formats}};
  // The halo block's trial (halo_trial): where it times panel, the pick and panel each on its own,
  // panel kept where its product is faster by the margin.
  const bool halo_trial = ranks > 1 && r.halo_trial && has("panel");
  const auto one = [&](const rank_figures& f, const std::string& o, const std::string& format, double order_us = 0) {
    prediction p = predict(m, f, ranks, gpus_per_host, class_of(format), transport_on_host, "", order_us);
    if (halo_trial) {
      p = predict(m, f, ranks, gpus_per_host, class_of(format), transport_on_host, class_of(r.halo_pick), order_us);
      const auto panel = predict(m, f, ranks, gpus_per_host, class_of(format), transport_on_host, "panel", order_us);
      if (panel.halo_us < p.halo_us * (1.0 - order_trial_margin)) p = panel;
    }
    p.order = o;
    p.format = format;
    return p;
  };
  for (const auto& c : orders)  // an order requested: its figures, in its first trial format
    if (order == c.name && r.trial && c.known) return one(c.figures, c.name, c.formats.empty() ? cls : c.formats.front());
  if (order != "auto" || !r.trial) return one(r, "none", cls);
  // The trial (dist/matrix_order.cpp): none, rcm and degree, each in its formats (trial_formats
  // where the block is large, else the selector's pick: the class), the fastest kept; an order
  // must beat the read order's best by the margin.
  prediction best;
  bool any = false;
  for (const auto& format : r.none_formats.empty() ? std::vector<std::string>{cls} : r.none_formats) {
    const auto p = one(r, "none", format);
    if (!any || p.apply_us < best.apply_us) best = p;
    any = true;
  }
  const spmv_class& c = m.spmv(class_of(cls));
  // (as the trial: a candidate beats the best so far, by the margin while that is the read order's)
  const auto need = [&] { return best.order == "none" ? 1.0 - order_trial_margin : 1.0; };
  for (const auto& o : orders) {
    if (!o.known) continue;
    for (const auto& format : o.formats) {
      if (format != "panel") continue;  // the order's gain the model knows: the panels' shared lines
      const auto p = one(o.figures, o.name, format);
      // An order's gain on panels shows in their lines: kept only where its panels also read
      // fewer distinct lines than the read order's by the margin. (The committed one-rank trial
      // products, 2026-12-02: R-MAT 7 of 7 pairs faster in degree order with 25-30% fewer
      // sectors; lognormal 5 of 5 slower, its sectors level or up, while x_lines fell in both:
      // jobs/results/2026-12-02_model_check9.)
      const bool fewer_lines = static_cast<double>(o.figures.panel_lines) <
                               static_cast<double>(r.panel_lines) * (1.0 - order_trial_margin);
      if (p.apply_us < best.apply_us * need() && fewer_lines) best = p;
    }
    // The trial of the selector's pick alone in each order (no trial formats): the order's change
    // of x_lines at the class's order_gather_gbps (fitted on those trials' timings; where the
    // description has none, the read order is kept).
    if (o.formats.empty() && c.order_gather_gbps > 0) {
      const double order_us = 64.0 * (static_cast<double>(o.figures.x_lines) - static_cast<double>(r.x_lines)) /
                              (c.order_gather_gbps * 1e3);
      const auto p = one(r, o.name, cls, order_us);
      if (p.apply_us < best.apply_us * need()) best = p;
    }
  }
  return best;
}

}  // namespace distspmv::model
