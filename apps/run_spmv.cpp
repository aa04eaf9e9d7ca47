// The format benchmark on one rank (--format all, --tune): load the whole matrix, build every
// format (or the tuned pick), time y = alpha*A*x + beta*y against cuSPARSE, check, report.
// Runs with more than one rank use run_distributed.cpp.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>

#include "apps/commands.hpp"
#include "dist/setup/order.hpp"
#include "distspmv/config.hpp"
#include "io/generators.hpp"
#include "io/matrix_source.hpp"
#include "local_kernels/csr/csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/device_timing.hpp"
#include "local_kernels/format_registry.hpp"
#include "local_kernels/format_selector.hpp"

namespace distspmv::app {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// Deterministic values in [-1, 1): never all zeros or ones (METHOD.md).
template <typename V>
std::vector<V> random_values(std::size_t n, std::uint64_t seed) {
  std::vector<V> v(n);
  std::uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (auto& x : v) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x = static_cast<V>(static_cast<double>(s >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  }
  return v;
}

struct format_result {
  std::string format;
  std::string reason;
  double setup_ms = 0;
  format_stats stats;
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  double gbps = 0;
  double max_rel_error = std::numeric_limits<double>::quiet_NaN();
  std::string failure;  ///< non-empty when the format could not be built (e.g. HDIA refusing)
};

/// Runs the operator once with random alpha/beta on the given x/y0 (host vectors) and returns y.
template <typename V>
std::vector<V> apply_once(const local_operator<V>& op, V alpha, const std::vector<V>& x, V beta,
                          const std::vector<V>& y0) {
  std::vector<V> y = y0;
  if (op.where() == backend::host) {
    op.apply(alpha, x.data(), beta, y.data());
  } else {
    device_storage mem;
    const V* dx = mem.upload(x);
    V* dy = const_cast<V*>(mem.upload(y));
    op.apply(alpha, dx, beta, dy, nullptr);
    device_synchronize();
    copy_to_host(y.data(), dy, y.size() * sizeof(V));
  }
  return y;
}

template <typename V>
std::vector<double> time_operator(const local_operator<V>& op, int warmup, int iters, std::uint64_t seed) {
  const auto x = random_values<V>(op.cols(), seed);
  std::vector<V> y(op.rows());
  if (op.where() == backend::host) {
    std::vector<double> us;
    for (int i = 0; i < warmup; ++i) op.apply(V(1), x.data(), V(0), y.data());
    for (int i = 0; i < iters; ++i) {
      const auto t0 = clock_type::now();
      op.apply(V(1), x.data(), V(0), y.data());
      us.push_back(1e6 * seconds_since(t0));
    }
    return us;
  }
  device_storage mem;
  const V* dx = mem.upload(x);
  V* dy = static_cast<V*>(mem.allocate_bytes(y.size() * sizeof(V)));
  return time_on_device([&](cuda_stream_t s) { op.apply(V(1), dx, V(0), dy, s); }, warmup, iters);
}

/// --tune: time every candidate briefly (5 warm-up, 20 timed) and keep the fastest.
template <typename V>
std::pair<std::string, std::string> tune_format(const csr_matrix<V, index_type>& a, backend where, std::uint64_t seed,
                                                const build_options& options) {
  std::string best;
  double best_us = std::numeric_limits<double>::infinity();
  int tried = 0;
  for (const auto& f : registered_formats()) {
    if (!(where == backend::host ? f.host : f.cuda)) continue;
    try {
      const auto op = make_operator<V>(f.name, a, where, options);
      const double us = median(time_operator(*op, 5, 20, seed));
      ++tried;
      if (us < best_us) {
        best_us = us;
        best = f.name;
      }
    } catch (const bad_input&) {
      // a format refusing this matrix is not a candidate
    }
  }
  return {best, fmt::format("tuned: fastest of {} candidates ({:.1f} us)", tried, best_us)};
}

/// --order in the format benchmark: its one rank owns every row, so the rows and columns are
/// renumbered alike, by the distributed setup's code (dist/setup/order.cpp), and every format is
/// built and checked on the renumbered matrix. `note` gets the order, its time and auto's reason.
csr_matrix<double> in_order(csr_matrix<double> a, const std::string& name, row_order& order, std::string& note) {
  order = parse_row_order(name);
  if (order == row_order::none) return a;
  if (a.rows != a.cols)
    DSPMV_BAD_INPUT("--order", name,
                    fmt::format("renumbers rows and columns alike and needs a square matrix, not {} x {}", a.rows,
                                a.cols));
  const auto t0 = clock_type::now();
  std::string reason;
  if (order == row_order::automatic)
    order = dist::choose_order(MPI_COMM_WORLD, dist::sample_locality(a, 0, a.rows), reason);
  if (order != row_order::none) {
    dist::owned_rows rows;
    rows.row_offsets = {0, a.rows};
    rows.caller_ids.resize(static_cast<std::size_t>(a.rows));
    std::iota(rows.caller_ids.begin(), rows.caller_ids.end(), global_index_type{0});
    rows.a = std::move(a);
    dist::layout_map map;
    dist::reorder_owned_rows(MPI_COMM_WORLD, rows, map, order);
    a = std::move(rows.a);
  }
  const std::string why = reason.empty() ? "" : "; " + reason;  // auto's reason begins "auto: "
  note = order == row_order::none
             ? fmt::format("order none ({}): the read order is kept", reason)
             : fmt::format("order {} ({:.2f} s{}): rows and columns renumbered, every format below runs in it",
                           to_string(order), seconds_since(t0), why);
  return a;
}

std::string now_iso() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

template <typename V>
int run_typed(const run_options& o) {
  // ---- backend ----
  backend where = backend::host;
  if (o.backend == "cuda" || (o.backend == "auto" && cuda_device_count() > 0)) where = backend::cuda;
  if (where == backend::cuda && cuda_device_count() == 0)
    DSPMV_BAD_INPUT("--backend", "cuda", "no CUDA device is visible (or distspmv was built without CUDA)");
  const int iters = o.iters > 0 ? o.iters : (where == backend::cuda ? 100 : 10);
  const int warmup = o.warmup >= 0 ? o.warmup : (where == backend::cuda ? 10 : 2);
  const build_options options{o.precision == "mixed"};

  // ---- load ----
  io::source_options so;
  so.allow_nonfinite = o.allow_nonfinite;
  so.seed = o.seed;
  auto t0 = clock_type::now();
  csr_matrix<double> global = io::read_matrix(o.source, so);
  const double read_s = seconds_since(t0);
  row_order order = row_order::none;
  std::string order_note;
  global = in_order(std::move(global), o.order, order, order_note);
  if (global.cols > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(o.source, "shape", fmt::format("{} columns exceed the 32-bit local index of one rank", global.cols));
  const auto a = convert_csr<V, index_type>(global);
  const row_statistics rs = compute_row_statistics(a);

  fmt::print("distspmv {} ({})  backend {}  precision {}{}\n", DISTSPMV_VERSION, DISTSPMV_GIT_REVISION,
             to_string(where), o.precision, where == backend::cuda ? "  device " + device_name() : "");
  fmt::print("matrix {}: {} x {}, {} nonzeros, rows {}..{} (mean {:.2f}, sigma {:.2f}), read in {:.2f} s\n", o.source,
             a.rows, a.cols, a.nnz(), rs.min_length, rs.max_length, rs.mean_length, rs.stddev_length, read_s);
  if (!order_note.empty()) fmt::print("{}\n", order_note);

  // ---- formats to run ----
  std::vector<std::pair<std::string, std::string>> formats;  // name, reason
  std::string auto_pick;  // with --format all, what auto would have chosen (for the benchmark summary)
  if (o.format == "all") {
    auto_pick = select_format(rs, where).format;
    for (const auto& f : registered_formats())
      if (where == backend::host ? f.host : f.cuda) formats.push_back({f.name, "--format all"});
  } else if (is_format_list(o.format)) {
    auto_pick = select_format(rs, where).format;
    for (const auto& name : split_format_list(o.format)) {
      find_format(name);  // unknown names fail here, before any work
      formats.push_back({name, "--format " + o.format});
    }
  } else if (o.format == "auto" && o.tune) {
    formats.push_back(tune_format(a, where, o.seed, options));
  } else if (o.format == "auto") {
    const format_choice c = select_format(rs, where);
    formats.push_back({c.format, c.reason});
  } else {
    find_format(o.format);  // unknown names fail here, before any work
    formats.push_back({o.format, "--format " + o.format});
  }
  const bool baseline_in_run = std::any_of(formats.begin(), formats.end(), [](auto& f) { return f.first == "cusparse"; });
  if (where == backend::cuda && !baseline_in_run) formats.push_back({"cusparse", "baseline"});

  double copy_gbps = 0;
  if (where == backend::cuda) copy_gbps = measure_copy_bandwidth_gbps(std::size_t(512) << 20, 20);
  const double model_bytes = csr_model_bytes<V>(a.rows, a.cols, a.nnz(), /*beta_nonzero=*/false);

  // ---- run ----
  std::vector<format_result> results;
  bool check_failed = false;
  const double tolerance = check_tolerance<V>(o.precision);
  for (const auto& [name, reason] : formats) {
    format_result r;
    r.format = name;
    r.reason = reason;
    std::unique_ptr<local_operator<V>> op;
    try {
      t0 = clock_type::now();
      op = make_operator<V>(name, a, where, options);
      if (where == backend::cuda) device_synchronize();
      r.setup_ms = 1e3 * seconds_since(t0);
    } catch (const bad_input& e) {
      if (o.format == "auto" && name != "csr") {  // the pick declined this matrix: CSR always builds
        r.format = "csr";
        r.reason = reason + "; but " + name + " declined (" + e.problem() + "), so csr";
        op = make_operator<V>("csr", a, where, options);
      } else if (o.format != "all" && !is_format_list(o.format)) {
        throw;
      } else {
        r.failure = e.problem();  // e.g. HDIA with many diagonals, under --format all
      }
    }
    if (!op) {
      results.push_back(r);
      continue;
    }
    r.stats = op->stats();
    const auto us = time_operator(*op, warmup, iters, o.seed + 11);
    r.median_us = median(us);
    r.min_us = *std::min_element(us.begin(), us.end());
    r.max_us = *std::max_element(us.begin(), us.end());
    r.gbps = r.median_us > 0 ? model_bytes / (r.median_us * 1e3) : 0;
    if (o.check) {
      const auto x = random_values<V>(a.cols, o.seed + 21);
      const auto y0 = random_values<V>(a.rows, o.seed + 22);
      const V alpha = V(1.25), beta = V(-0.5);
      const auto y = apply_once(*op, alpha, x, beta, y0);
      // Serial double reference on the same (V-rounded) inputs.
      const auto ad = convert_csr<double, index_type>(a);
      std::vector<double> xd(x.begin(), x.end()), ref(y0.begin(), y0.end());
      csr::spmv_host(ad, 1.25, xd.data(), -0.5, ref.data());
      double diff = 0, norm = 0;
      for (std::size_t i = 0; i < ref.size(); ++i) {
        const double d = std::abs(static_cast<double>(y[i]) - ref[i]);
        diff = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(diff, d);
        norm = std::max(norm, std::abs(ref[i]));
      }
      r.max_rel_error = norm > 0 ? diff / norm : diff;
      if (!(r.max_rel_error <= tolerance)) check_failed = true;
    }
    results.push_back(r);
  }

  // ---- report ----
  double baseline_us = 0;
  for (const auto& r : results)
    if (r.format == "cusparse" && r.failure.empty()) baseline_us = r.median_us;
  if (where == backend::cuda) fmt::print("device-to-device copy: {:.0f} GB/s\n", copy_gbps);
  fmt::print("{:<15} {:>9} {:>7} {:>10} {:>9} {:>7} {:>8} {:>10}  {}\n", "format", "MB", "pad", "median us", "GB/s",
             where == backend::cuda ? "copy%" : "", baseline_us > 0 ? "vs cusp" : "", o.check ? "rel.err" : "",
             "why / parameters");
  for (const auto& r : results) {
    if (!r.failure.empty()) {
      fmt::print("{:<15} skipped: {}\n", r.format, r.failure);
      continue;
    }
    fmt::print("{:<15} {:>9.1f} {:>7.2f} {:>10.1f} {:>9.1f} {:>7} {:>8} {:>10}  {}; {}\n", r.format,
               r.stats.stored_bytes / 1e6, r.stats.padding_ratio, r.median_us, r.gbps,
               copy_gbps > 0 ? fmt::format("{:.0f}%", 100 * r.gbps / copy_gbps) : "",
               baseline_us > 0 ? fmt::format("{:.2f}x", baseline_us / r.median_us) : "",
               o.check ? fmt::format("{:.1e}", r.max_rel_error) : "", r.reason, r.stats.params);
  }
  const format_result& main_result = results.front();
  const double gflops = main_result.median_us > 0 ? 2.0 * a.nnz() / (main_result.median_us * 1e3) : 0;
  double max_err = 0;
  for (const auto& r : results)
    if (r.failure.empty() && o.check) max_err = std::max(max_err, r.max_rel_error);
  if (o.check)
    fmt::print("check: max relative error {:.2e} (tolerance {:.0e}): {}\n", max_err, tolerance,
               check_failed ? "FAILED" : "passed");

  if (!o.json.empty()) {
    nlohmann::json j;
    j["tool"] = "distspmv";
    j["version"] = DISTSPMV_VERSION;
    j["git_revision"] = DISTSPMV_GIT_REVISION;
    j["date"] = now_iso();
    j["host"] = host_name();
    j["device"] = where == backend::cuda ? device_name() : "host";
    j["matrix"] = {{"source", o.source}, {"rows", a.rows}, {"cols", a.cols}, {"nnz", a.nnz()},
                   {"row_length_mean", rs.mean_length}, {"row_length_stddev", rs.stddev_length},
                   {"row_length_max", rs.max_length}};
    if (io::is_generator(o.source)) j["matrix"]["seed"] = o.seed;  // what recomputes it (run_distributed's)
    j["seed"] = o.seed;
    j["requested"] = {{"format", o.format}, {"order", o.order}, {"backend", o.backend}, {"tune", o.tune}};
    j["ranks"] = 1;
    j["backend"] = to_string(where);
    j["precision"] = o.precision;
    j["transport"] = "none";
    j["partition"] = "none";
    j["order"] = to_string(order);
    j["format_per_rank"] = {main_result.format};
    if (!auto_pick.empty()) j["auto_choice"] = auto_pick;
    j["iters"] = iters;
    j["warmup"] = warmup;
    j["copy_gbps"] = copy_gbps;
    j["model_bytes"] = model_bytes;
    j["apply_median_us"] = main_result.median_us;
    j["gflops"] = gflops;
    j["effective_gbps_per_gpu"] = main_result.gbps;
    if (o.check) j["max_rel_error"] = max_err;
    j["results"] = nlohmann::json::array();
    for (const auto& r : results) {
      nlohmann::json e = {{"format", r.format}, {"reason", r.reason}};
      if (!r.failure.empty()) {
        e["skipped"] = r.failure;
      } else {
        e.update({{"setup_ms", r.setup_ms},
                  {"stored_bytes", r.stats.stored_bytes},
                  {"padding_ratio", r.stats.padding_ratio},
                  {"n_iter", r.stats.n_iter},
                  {"n_p", r.stats.n_p},
                  {"params", r.stats.params},
                  {"median_us", r.median_us},
                  {"min_us", r.min_us},
                  {"max_us", r.max_us},
                  {"effective_gbps", r.gbps}});
        if (copy_gbps > 0) e["copy_fraction"] = r.gbps / copy_gbps;
        if (baseline_us > 0) e["ratio_to_cusparse"] = baseline_us / r.median_us;
        if (o.check) e["max_rel_error"] = r.max_rel_error;
      }
      j["results"].push_back(e);
    }
    std::ofstream out(o.json);
    out << j.dump(2) << "\n";
    if (!out) DSPMV_BAD_INPUT(o.json, "", "cannot write the JSON report");
  }
  return check_failed ? 1 : 0;
}

}  // namespace

int run_format_bench(const run_options& o) {
  return o.precision == "float" ? run_typed<float>(o) : run_typed<double>(o);
}

}  // namespace distspmv::app
