// `distspmv model MATRIX --ranks 8,16,...` (model.hpp): per P, the partition's figures and the
// predicted apply, as a table on stdout and with --json as JSON.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/model/model.hpp"
#include "common/errors.hpp"
#include "distspmv/config.hpp"

namespace distspmv::model {
namespace {

std::vector<int> parse_ranks(const std::string& list) {
  std::vector<int> out;
  std::stringstream s(list);
  for (std::string item; std::getline(s, item, ',');) {
    std::size_t used = 0;
    int p = 0;
    try {
      p = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || p < 1) DSPMV_BAD_INPUT("model", "--ranks", "'" + item + "' is not a rank count >= 1");
    out.push_back(p);
  }
  if (out.empty()) DSPMV_BAD_INPUT("model", "--ranks", "no rank count given");
  return out;
}

template <typename T>
T median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

std::string fmt_count(int n, int of) { return std::to_string(n) + " of " + std::to_string(of); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int run_model(const options& o) {
  const auto ranks = parse_ranks(o.ranks);
  if (o.gpus_per_host < 1) DSPMV_BAD_INPUT("model", "--gpus-per-host", "must be >= 1");
  std::string machine_file = o.machine;
  // The committed description (apps/CMakeLists.txt passes its path), where the source tree is here.
  if (machine_file.empty() && std::ifstream(DISTSPMV_MODEL_MACHINE)) machine_file = DISTSPMV_MODEL_MACHINE;
  std::unique_ptr<machine> m;
  if (!machine_file.empty()) m = std::make_unique<machine>(read_machine(machine_file));

  auto t0 = std::chrono::steady_clock::now();
  const pattern a = read_pattern(o.source, o.seed);
  const double read_s = seconds_since(t0);
  const std::string cls = o.format_class == "auto" ? guess_class(a) : o.format_class;
  if (m) m->spmv(cls);  // an unknown class fails before the work
  t0 = std::chrono::steady_clock::now();
  const partitioner parts(a, o.partition, o.partition_seed);
  const double graph_s = seconds_since(t0);

  std::printf("distspmv model: %s, %lld rows, %lld nonzeros, partition %s, %d GPUs per host, format class %s\n",
              o.source.c_str(), static_cast<long long>(a.rows), static_cast<long long>(a.nnz()), o.partition.c_str(),
              o.gpus_per_host, cls.c_str());
  if (m)
    std::printf("machine: %s\n  %s\n  exchange: %s within one host, %s within a host of several, %s across hosts\n",
                m->file.c_str(), m->description.c_str(), (o.transport.empty() ? m->single_host : o.transport).c_str(),
                (o.transport.empty() ? m->on_host : o.transport).c_str(), m->across_hosts.c_str());
  else
    std::printf("machine: none given (--machine FILE.json): halo figures only\n");
  if (o.order != "auto" && o.order != "none" && o.order != "rcm" && o.order != "degree")
    DSPMV_BAD_INPUT("model", "--order", "'" + o.order + "' is not auto, none, rcm or degree");
  // `--order auto`: the sample rule at P ranks, and where it says not local, each rank's trial.
  const auto trial_at = [&](int p, order_rule* rule) {
    if (o.order == "none") return false;
    if (o.order == "degree" || o.order == "rcm") return true;
    *rule = sample_order_rule(a, p);
    return !rule->local;
  };
  double one_gpu_us = 0;
  prediction one_gpu;
  if (m) {
    order_rule rule;
    const bool trial = trial_at(1, &rule);
    const rank_figures whole = halo_figures(a, std::vector<int>(static_cast<std::size_t>(a.rows), 0), 1,
                                            o.gpus_per_host, trial, o.order == "rcm")[0];
    one_gpu = predict_rank(*m, whole, 1, o.gpus_per_host, cls, o.order, "", o.format_class == "auto");
    one_gpu_us = one_gpu.apply_us;
    std::printf("predicted apply on 1 GPU: %.1f us (order %s, %s)%s%s\n", one_gpu_us, one_gpu.order.c_str(),
                one_gpu.format.c_str(), o.order == "auto" ? "; order rule: " : "", rule.reason.c_str());
  }
  std::printf("%6s %10s %10s %11s %11s %6s %9s %9s %5s %5s %11s %9s %9s %9s %7s  %s\n", "ranks", "rows max", "rows med",
              "nnz max", "nnz med", "imbal", "halo max", "halo med", "nb mx", "nb md", "off-host MB", "local us",
              "exch us", "apply us", "speedup", "bound (slowest rank); order");

  nlohmann::json out;
  out["tool"] = "distspmv model";
  out["git_revision"] = DISTSPMV_GIT_REVISION;
  out["matrix"] = {{"source", a.source}, {"rows", a.rows}, {"nnz", a.nnz()}};
  out["partition"] = o.partition;
  out["gpus_per_host"] = o.gpus_per_host;
  out["format_class"] = cls;
  out["order"] = o.order;
  out["seconds"] = {{"read", read_s}, {"graph", graph_s}};
  if (m) {
    out["machine"] = {{"file", m->file}, {"description", m->description},
                      {"single_host", o.transport.empty() ? m->single_host : o.transport},
                      {"on_host", o.transport.empty() ? m->on_host : o.transport}, {"across_hosts", m->across_hosts}};
    out["predicted_one_gpu_us"] = one_gpu_us;
    out["predicted_one_gpu"] = {{"order", one_gpu.order}, {"format", one_gpu.format}};
  }
  for (int p : ranks) {
    t0 = std::chrono::steady_clock::now();
    const auto part = parts.parts(p);
    const double partition_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    order_rule rule;
    const bool trial = trial_at(p, &rule);
    const auto f = halo_figures(a, part, p, o.gpus_per_host, trial, o.order == "rcm");
    const double figures_s = seconds_since(t0);
    std::vector<global_index_type> rows;
    std::vector<offset_type> nnz, ghosts;
    std::vector<int> nb;
    offset_type off_host = 0, ghosts_total = 0, halo_nnz = 0;
    for (const auto& r : f) {
      rows.push_back(r.rows);
      nnz.push_back(r.nnz);
      ghosts.push_back(r.ghosts);
      nb.push_back(r.neighbours);
      off_host += r.ghosts_off_host;
      ghosts_total += r.ghosts;
      halo_nnz += r.halo_nnz;
    }
    const double mean_nnz = static_cast<double>(a.nnz()) / p;
    const double imbalance = mean_nnz > 0 ? static_cast<double>(*std::max_element(nnz.begin(), nnz.end())) / mean_nnz : 1;
    prediction slowest;
    int slowest_rank = 0, ordered_ranks = 0, rcm_ranks = 0;
    if (m)
      for (int r = 0; r < p; ++r) {
        const auto pr = predict_rank(*m, f[r], p, o.gpus_per_host, cls, o.order, o.transport, o.format_class == "auto");
        ordered_ranks += pr.order != "none";
        rcm_ranks += pr.order == "rcm";
        if (pr.apply_us > slowest.apply_us) {
          slowest = pr;
          slowest_rank = r;
        }
      }
    std::string bound = m ? slowest.bound : "";
    if (m && imbalance > 1.1 && slowest.bound == "local SpMV") bound += " (imbalance)";
    // The order: what the rule said, and how many ranks' trials keep rcm and degree.
    const auto kept = [&](int n, const char* name) {
      return n == 0 ? std::string() : fmt_count(n, p) + " ranks " + name;
    };
    const std::string both = rcm_ranks > 0 && ordered_ranks > rcm_ranks ? ", " : "";
    const std::string order = o.order != "auto" ? o.order
                              : !trial          ? "none (rule: local)"
                              : ordered_ranks == 0
                                  ? "none (trial)"
                                  : kept(rcm_ranks, "rcm") + both + kept(ordered_ranks - rcm_ranks, "degree") + " (trial)";
    std::printf("%6d %10lld %10lld %11lld %11lld %6.3f %9lld %9lld %5d %5d %11.2f", p,
                static_cast<long long>(*std::max_element(rows.begin(), rows.end())),
                static_cast<long long>(median(rows)), static_cast<long long>(*std::max_element(nnz.begin(), nnz.end())),
                static_cast<long long>(median(nnz)), imbalance,
                static_cast<long long>(*std::max_element(ghosts.begin(), ghosts.end())),
                static_cast<long long>(median(ghosts)), *std::max_element(nb.begin(), nb.end()), median(nb),
                8.0 * static_cast<double>(off_host) / 1e6);
    if (m)
      std::printf(" %9.1f %9.1f %9.1f %7.1f  %s; %s\n", slowest.local_us, slowest.exchange_us, slowest.apply_us,
                  one_gpu_us / slowest.apply_us, bound.c_str(), order.c_str());
    else
      std::printf("\n");
    std::fflush(stdout);

    nlohmann::json j = {{"ranks", p},
                        {"rows_max", *std::max_element(rows.begin(), rows.end())},
                        {"rows_median", median(rows)},
                        {"nnz_max", *std::max_element(nnz.begin(), nnz.end())},
                        {"nnz_median", median(nnz)},
                        {"nnz_imbalance", imbalance},
                        {"ghosts_max", *std::max_element(ghosts.begin(), ghosts.end())},
                        {"ghosts_median", median(ghosts)},
                        {"halo_entries_total", ghosts_total},
                        {"halo_nnz_total", halo_nnz},
                        {"halo_bytes_max", 8 * *std::max_element(ghosts.begin(), ghosts.end())},
                        {"neighbours_max", *std::max_element(nb.begin(), nb.end())},
                        {"neighbours_median", median(nb)},
                        {"off_host_bytes_total", 8 * off_host},
                        {"seconds", {{"partition", partition_s}, {"figures", figures_s}}}};
    if (o.order == "auto")
      j["order_rule"] = {{"local", rule.local}, {"reason", rule.reason}, {"entries", rule.entries},
                         {"near_diagonal", rule.near_diagonal}, {"on_top_diagonals", rule.on_top_diagonals},
                         {"tile_sectors", rule.tile_sectors}, {"random_sectors_x1000", rule.random_sectors_x1000}};
    if (m) {
      j["predicted"] = {{"slowest_rank", slowest_rank}, {"local_us", slowest.local_us},
                        {"exchange_us", slowest.exchange_us}, {"apply_us", slowest.apply_us},
                        {"speedup", one_gpu_us / slowest.apply_us}, {"bound", bound},
                        {"order", order}, {"ordered_ranks", ordered_ranks},
                        {"slowest_order", slowest.order}, {"slowest_format", slowest.format}};
    }
    if (o.per_rank) {
      auto& list = j["per_rank"] = nlohmann::json::array();
      for (const auto& r : f)
        list.push_back({{"rows", r.rows}, {"nnz", r.nnz}, {"ghosts", r.ghosts}, {"sends", r.sends},
                        {"halo_nnz", r.halo_nnz}, {"boundary_rows", r.boundary_rows}, {"neighbours", r.neighbours},
                        {"neighbours_off_host", r.neighbours_off_host}, {"ghosts_off_host", r.ghosts_off_host},
                        {"sends_off_host", r.sends_off_host}, {"x_lines", r.x_lines},
                        {"max_row", r.max_row}, {"panel_lines", r.panel_lines}});
      if (trial)
        for (std::size_t q = 0; q < f.size(); ++q) {
          auto& t = list[q]["trial"] = {{"degree_x_lines", f[q].degree_x_lines},
                                        {"degree_panel_lines", f[q].degree_panel_lines},
                                        {"none_formats", f[q].none_formats},
                                        {"degree_formats", f[q].degree_formats}};
          if (f[q].rcm_trial) {
            t["rcm_x_lines"] = f[q].rcm_x_lines;
            t["rcm_panel_lines"] = f[q].rcm_panel_lines;
            t["rcm_formats"] = f[q].rcm_formats;
          }
        }
      for (std::size_t q = 0; q < f.size(); ++q) {
        if (!f[q].pick.empty()) list[q]["pick"] = f[q].pick;
        if (f[q].pick == "sell-w")
          list[q]["sell_w"] = {{"bytes", f[q].sell_w_bytes}, {"window_bytes", f[q].window_bytes}};
      }
      for (std::size_t q = 0; q < f.size(); ++q)
        if (f[q].halo_trial)
          list[q]["halo_trial"] = {{"pick", f[q].halo_pick},
                                   {"x_lines", f[q].halo_x_lines},
                                   {"panel_lines", f[q].halo_panel_lines}};
    }
    out["per_ranks"].push_back(j);
  }
  if (!o.json.empty()) {
    std::ofstream file(o.json);
    file << out.dump(2) << "\n";
    if (!file) DSPMV_BAD_INPUT("model", "--json", "cannot write '" + o.json + "'");
  }
  return 0;
}

}  // namespace distspmv::model
