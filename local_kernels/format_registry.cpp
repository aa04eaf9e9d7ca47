#include "local_kernels/format_registry.hpp"

#include <functional>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/cusparse/cusparse.hpp"
#include "local_kernels/format_operator.hpp"
// one include per format folder:
// (ellr) (pellr) (hll) (hdia) (ipcsr) (sell) (panel)
#include "local_kernels/ellr/ellr.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "local_kernels/hll/hll.hpp"
#include "local_kernels/ipcsr/ipcsr.hpp"
#include "local_kernels/panel/panel.hpp"
#include "local_kernels/pellr/pellr.hpp"
#include "local_kernels/sell/sell.hpp"

namespace distspmv {
namespace {

template <typename V>
using factory =
    std::function<std::unique_ptr<local_operator<V>>(const csr_matrix<V, index_type>&, backend, const build_options&)>;
template <typename V>
using device_factory = std::function<std::unique_ptr<local_operator<V>>(device_csr<V>&&, const build_options&)>;

/// A registry line's host builder as a factory: lines that honour build_options take them as
/// their last argument, the others never see them.
template <typename F>
auto host_factory(F f) {
  return [f](const auto& a, backend b, const build_options& o) {
    if constexpr (std::is_invocable_v<F, decltype(a), backend, const build_options&>)
      return f(a, b, o);
    else
      return f(a, b);
  };
}
/// The same for a GPU builder.
template <typename F>
auto gpu_factory(F f) {
  return [f](auto&& a, const build_options& o) {
    if constexpr (std::is_invocable_v<F, decltype(a), const build_options&>)
      return f(std::move(a), o);
    else
      return f(std::move(a));
  };
}

/// A format_operator over `Traits` built with `params` (the common case of a registry line).
template <typename Traits, typename V, typename Build>
std::unique_ptr<local_operator<V>> make_format(const std::string& name, Build&& build, backend where) {
  return std::make_unique<format_operator<Traits, V>>(name, build(), where);
}

/// A device_format_operator over `Traits` from the format's GPU builder.
template <typename Traits, typename V, typename Build>
std::unique_ptr<local_operator<V>> make_device_format(const std::string& name, device_csr<V>&& a, Build&& build) {
  const global_index_type rows = a.rows, cols = a.cols;
  const offset_type nnz = a.nnz;
  return std::make_unique<device_format_operator<Traits, V>>(name, rows, cols, nnz, build(std::move(a)));
}

struct entry {
  format_info info;
  factory<float> make_float;
  factory<double> make_double;
  device_factory<float> make_device_float;    ///< empty: no GPU builder
  device_factory<double> make_device_double;
};

// One generic lambda serves both value types: one registry line per variant.
template <typename F>
entry make_entry(format_info info, F f) {
  return entry{std::move(info), factory<float>(host_factory(f)), factory<double>(host_factory(f)), {}, {}};
}

// The same with a GPU builder (a generic lambda taking device_csr<V>&&).
template <typename F, typename D>
entry make_entry(format_info info, F f, D d) {
  info.gpu_build = true;
  return entry{std::move(info), factory<float>(host_factory(f)), factory<double>(host_factory(f)),
               device_factory<float>(gpu_factory(d)), device_factory<double>(gpu_factory(d))};
}

/// The CSR kernels' registry names (also the formats make_operator(name, csr&&) builds without a
/// copy on the host).
struct csr_kernel_name {
  const char* name;
  csr::kernel kernel;
  const char* description;
};
const csr_kernel_name csr_kernels[] = {
    {"csr", csr::kernel::adaptive, "CSR, adaptive row blocks (irregular rows)"},
    {"csr-scalar", csr::kernel::scalar, "CSR, one thread per row"},
    {"csr-vector", csr::kernel::vector, "CSR, sub-warp per row, T from mean row length"},
    {"csr-merge", csr::kernel::merge, "CSR, merge path: rows + nnz split evenly over threads"},
    {"csr-split", csr::kernel::split, "CSR, nonzeros split into even tiles (cuSPARSE's split)"},
};

csr::csr_params csr_params_for(csr::kernel k, const build_options& o) {
  csr::csr_params p;
  p.algorithm = k;
  p.float_values = o.float_values;
  return p;
}

hdia::hdia_params hdia_params_for(const build_options& o) {
  hdia::hdia_params p;
  p.float_values = o.float_values;
  return p;
}

const std::vector<entry>& table() {
  static const std::vector<entry> entries = [] {
    std::vector<entry> t;
    auto csr_variant = [](const char* name, csr::kernel k) {
      return [name, k](const auto& a, backend b, const build_options& o) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        return make_format<csr::traits, V>(name, [&] { return csr::build(a, csr_params_for(k, o)); }, b);
      };
    };
    auto csr_device = [](const char* name, csr::kernel k) {
      return [name, k](auto&& a, const build_options& o) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        return make_device_format<csr::traits, V>(
            name, std::move(a), [&](device_csr<V>&& d) { return csr::build_cuda(std::move(d), csr_params_for(k, o)); });
      };
    };
    for (const auto& [name, k, description] : csr_kernels)
      t.push_back(make_entry({name, "csr", true, true, description}, csr_variant(name, k), csr_device(name, k)));
    // ---- ELLR-T / PELLR (seeds 001, 000) ----
    auto ellr_params_for = [](int threads_per_row, bool column_offsets) {
      ellr::ellr_params p;
      p.threads_per_row = threads_per_row;
      p.column_offsets = column_offsets;
      return p;
    };
    auto ellr_variant = [ellr_params_for](const char* name, int threads_per_row, bool column_offsets = true) {
      return [=](const auto& a, backend b) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        const ellr::ellr_params p = ellr_params_for(threads_per_row, column_offsets);
        return make_format<ellr::traits, V>(name, [&] { return ellr::build(a, p); }, b);
      };
    };
    auto ellr_device = [ellr_params_for](const char* name, int threads_per_row, bool column_offsets = true) {
      return [=](auto&& a) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        const ellr::ellr_params p = ellr_params_for(threads_per_row, column_offsets);
        return make_device_format<ellr::traits, V>(name, std::move(a),
                                                   [&](device_csr<V>&& d) { return ellr::build_cuda(std::move(d), p); });
      };
    };
    t.push_back(make_entry({"ellr", "ell", true, true,
                            "ELLPACK-R, T threads per row from the mean row length, 16-bit column offsets where they fit"},
                           ellr_variant("ellr", 0), ellr_device("ellr", 0)));
    t.push_back(make_entry({"ellr-i32", "ell", true, true, "ELLPACK-R as `ellr`, always 32-bit columns"},
                           ellr_variant("ellr-i32", 0, false), ellr_device("ellr-i32", 0, false)));
    t.push_back(make_entry({"ellr-t1", "ell", true, true, "ELLR-T, 1 thread per row"},
                           ellr_variant("ellr-t1", 1), ellr_device("ellr-t1", 1)));
    t.push_back(make_entry({"ellr-t2", "ell", true, true, "ELLR-T, 2 threads per row"},
                           ellr_variant("ellr-t2", 2), ellr_device("ellr-t2", 2)));
    t.push_back(make_entry({"ellr-t4", "ell", true, true, "ELLR-T, 4 threads per row"},
                           ellr_variant("ellr-t4", 4), ellr_device("ellr-t4", 4)));
    t.push_back(make_entry({"ellr-t8", "ell", true, true, "ELLR-T, 8 threads per row"},
                           ellr_variant("ellr-t8", 8), ellr_device("ellr-t8", 8)));
    t.push_back(make_entry({"pellr", "ell", true, true, "PELLR: rows sorted by length, ELLR per warp, perm on write"},
                           [](const auto& a, backend b) {
                             using V = typename std::decay_t<decltype(a)>::value_type;
                             return make_format<pellr::traits, V>("pellr", [&] { return pellr::build(a, pellr::pellr_params{}); }, b);
                           },
                           [](auto&& a) {
                             using V = typename std::decay_t<decltype(a)>::value_type;
                             return make_device_format<pellr::traits, V>("pellr", std::move(a), [](device_csr<V>&& d) {
                               return pellr::build_cuda(std::move(d), pellr::pellr_params{});
                             });
                           }));
    // ---- HLL / ELL-G / HDIA (seed 003) ----
    auto hll_variant = [](const char* name, int hack_size, global_index_type sort_window) {
      return [name, hack_size, sort_window](const auto& a, backend b) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        hll::hll_params p;
        p.hack_size = hack_size;
        p.sort_window = sort_window;
        return make_format<hll::traits, V>(name, [&] { return hll::build(a, p); }, b);
      };
    };
    auto hll_device = [](const char* name, int hack_size, global_index_type sort_window) {
      return [name, hack_size, sort_window](auto&& a) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        hll::hll_params p;
        p.hack_size = hack_size;
        p.sort_window = sort_window;
        return make_device_format<hll::traits, V>(name, std::move(a),
                                                  [&](device_csr<V>&& d) { return hll::build_cuda(std::move(d), p); });
      };
    };
    t.push_back(make_entry({"hll", "hll", true, true, "hacked ELL: hacks of 32 rows, each padded to its longest row"},
                           hll_variant("hll", 32, 0), hll_device("hll", 32, 0)));
    t.push_back(make_entry({"hll-sorted", "hll", true, true, "HLL, rows sorted by length within 1024-row windows"},
                           hll_variant("hll-sorted", 32, 1024), hll_device("hll-sorted", 32, 1024)));
    t.push_back(make_entry({"ell-g", "hll", true, true, "ELLPACK + row lengths (one hack); refuses > 32x padding"},
                           hll_variant("ell-g", 0, 0), hll_device("ell-g", 0, 0)));
    t.push_back(make_entry({"hdia", "dia", true, true, "hacked DIA, 32-row hacks; refuses matrices without few diagonals"},
                           [](const auto& a, backend b, const build_options& o) {
                             using V = typename std::decay_t<decltype(a)>::value_type;
                             return make_format<hdia::traits, V>("hdia", [&] { return hdia::build(a, hdia_params_for(o)); }, b);
                           },
                           [](auto&& a, const build_options& o) {
                             using V = typename std::decay_t<decltype(a)>::value_type;
                             return make_device_format<hdia::traits, V>("hdia", std::move(a), [&](device_csr<V>&& d) {
                               return hdia::build_cuda(std::move(d), hdia_params_for(o));
                             });
                           }));
    // ---- IPCSR (seed 004) ----
    t.push_back(make_entry({"ipcsr", "csr", true, true, "CSR, row blocks sized to shared memory, adaptive threads per row"},
                           [](const auto& a, backend b) {
                             using V = typename std::decay_t<decltype(a)>::value_type;
                             return make_format<ipcsr::traits, V>("ipcsr", [&] { return ipcsr::build(a, ipcsr::params_for(b)); }, b);
                           },
                           [](auto&& a) {
                             using V = typename std::decay_t<decltype(a)>::value_type;
                             return make_device_format<ipcsr::traits, V>("ipcsr", std::move(a), [](device_csr<V>&& d) {
                               return ipcsr::build_cuda(std::move(d), ipcsr::params_for(backend::cuda));
                             });
                           }));
    // ---- SELL-C-sigma (seed 002) ----
    // 16-bit column offsets in double only: on one H200 SELL ran 1.01-1.13x as fast with them in
    // double and took 1.05-1.10x as long in float (jobs/results/2026-11-26_h200_ell_bytes, runs 71-80).
    auto sell_variant = [](const char* name, int slice_size, int sigma, int rows_per_thread, bool offsets = true,
                           bool windows = false) {
      return [=](const auto& a, backend b) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        const sell::sell_params p{slice_size, sigma, rows_per_thread, offsets && sizeof(V) == sizeof(double), windows,
                                  windows};
        return make_format<sell::traits, V>(name, [&] { return sell::build(a, p); }, b);
      };
    };
    auto sell_device = [](const char* name, int slice_size, int sigma, int rows_per_thread, bool offsets = true,
                           bool windows = false) {
      return [=](auto&& a) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        const sell::sell_params p{slice_size, sigma, rows_per_thread, offsets && sizeof(V) == sizeof(double), windows,
                                  windows};
        return make_device_format<sell::traits, V>(name, std::move(a),
                                                   [&](device_csr<V>&& d) { return sell::build_cuda(std::move(d), p); });
      };
    };
    t.push_back(make_entry({"sell", "sell", true, true,
                            "SELL-32-sigma, sigma 256 when sorting pays, else 1; 16-bit column offsets where they fit (double)"},
                           sell_variant("sell", 32, 0, 1), sell_device("sell", 32, 0, 1)));
    t.push_back(make_entry({"sell-w", "sell", true, true,
                            "SELL-32-2048 with x windows: each 2048-row block's x in shared memory, long slices cut, top slice's excess spilled"},
                           sell_variant("sell-w", 32, 0, 1, true, true), sell_device("sell-w", 32, 0, 1, true, true)));
    t.push_back(make_entry({"sell-i32", "sell", true, true, "SELL-32-sigma as `sell`, always 32-bit columns"},
                           sell_variant("sell-i32", 32, 0, 1, false), sell_device("sell-i32", 32, 0, 1, false)));
    t.push_back(make_entry({"sell-c32-s1", "sell", true, true, "SELL-32-1: slices of 32 rows, no sorting, no perm"},
                           sell_variant("sell-c32-s1", 32, 1, 1), sell_device("sell-c32-s1", 32, 1, 1)));
    t.push_back(make_entry({"sell-c64-r2", "sell", true, true, "SELL-64-sigma, 2 rows per thread (vector loads)"},
                           sell_variant("sell-c64-r2", 64, 0, 2), sell_device("sell-c64-r2", 64, 0, 2)));
    // ---- column-sorted row panels (issue 16) ----
    t.push_back(make_entry({"panel", "panel", true, true,
                            "row panels with entries sorted by column: x gathers shared by a panel's rows, sums in shared memory"},
                           [](const auto& a, backend b) {
                             using V = typename std::decay_t<decltype(a)>::value_type;
                             return make_format<panel::traits, V>("panel", [&] { return panel::build(a, panel::panel_params{}); }, b);
                           },
                           [](auto&& a) {
                             using V = typename std::decay_t<decltype(a)>::value_type;
                             return make_device_format<panel::traits, V>("panel", std::move(a), [](device_csr<V>&& d) {
                               return panel::build_cuda(std::move(d), panel::panel_params{});
                             });
                           }));
    // ---- cuSPARSE baselines (CUDA only) ----
    auto cusparse_variant = [](const char* name, cusparse::algorithm alg) {
      return [name, alg](const auto& a, backend b) { return cusparse::make_operator(name, a, alg, b); };
    };
    auto cusparse_device = [](const char* name, cusparse::algorithm alg) {
      return [name, alg](auto&& a) { return cusparse::make_operator(name, std::move(a), alg); };
    };
    t.push_back(make_entry({"cusparse", "cusparse", false, true, "cuSPARSE CSR, default algorithm"},
                           cusparse_variant("cusparse", cusparse::algorithm::csr_default),
                           cusparse_device("cusparse", cusparse::algorithm::csr_default)));
    t.push_back(make_entry({"cusparse-alg1", "cusparse", false, true, "cuSPARSE CSR ALG1"},
                           cusparse_variant("cusparse-alg1", cusparse::algorithm::csr_alg1),
                           cusparse_device("cusparse-alg1", cusparse::algorithm::csr_alg1)));
    t.push_back(make_entry({"cusparse-alg2", "cusparse", false, true, "cuSPARSE CSR ALG2 (merge-based)"},
                           cusparse_variant("cusparse-alg2", cusparse::algorithm::csr_alg2),
                           cusparse_device("cusparse-alg2", cusparse::algorithm::csr_alg2)));
    t.push_back(make_entry({"cusparse-sell", "cusparse", false, true, "cuSPARSE sliced ELL, slice 32"},
                           cusparse_variant("cusparse-sell", cusparse::algorithm::sell)));
    return t;
  }();
  return entries;
}

const entry& find_entry(const std::string& name) {
  for (const auto& e : table())
    if (e.info.name == name) return e;
  std::string valid;
  for (const auto& e : table()) valid += (valid.empty() ? "" : ", ") + e.info.name;
  DSPMV_BAD_INPUT("--format", name, "unknown format; valid: auto, all, " + valid);
}

}  // namespace

std::size_t estimate_build_bytes(const std::string& name, const row_statistics& s) {
  const format_info& f = find_format(name);
  const double entry = s.value_bytes + sizeof(index_type), nnz = static_cast<double>(s.nnz),
               rows = static_cast<double>(s.rows);
  double bytes = nnz * entry;  // a new copy of the entries (host-built formats, IPCSR)
  if (f.family == "csr" && f.gpu_build)
    bytes = rows * 2 * sizeof(index_type);  // row blocks or tiles, a few per row at most
  else if (f.family == "cusparse" && name != "cusparse-sell")
    bytes = nnz > 2147483647.0 ? nnz * sizeof(offset_type) : rows * sizeof(index_type);  // 64-bit columns or 32-bit offsets
  else if (f.family == "dia")
    bytes = s.hdia_padding > 0 ? s.hdia_padding * nnz * s.value_bytes
                               : std::min<double>(static_cast<double>(s.diagonals), 64) * rows * s.value_bytes;
  else if (f.family == "ell")  // ELLR cuts its width at 8x padding (the rest goes to its overflow); its
                                // 16-bit column offsets are made beside the 32-bit columns
    bytes = std::min(name == "pellr" ? s.sell32_sorted_padding : s.ell_padding, 9.0) * nnz *
                (entry + (name == "pellr" ? 0.0 : 2.0)) +
            rows * 2 * sizeof(index_type);
  else if (f.family == "hll" || f.family == "sell" || name == "cusparse-sell")  // SELL: + its 16-bit offsets
    bytes = (name == "ell-g" ? s.ell_padding : s.sell32_padding) * nnz * (entry + (f.family == "sell" ? 2.0 : 0.0)) +
            rows * 2 * sizeof(index_type);
  else if (f.family == "panel")  // the stored entries (+ a 16-bit slot, rounds padded 1.01-1.13) and the
                                  // GPU build's scratch: slots, sort keys and indices, places, rounds
    bytes = 1.15 * nnz * (entry + 2.0) + nnz * (2.0 + 4.0 + 8.0 + 8.0 + 4.0 + 4.0) + rows * 2.0;
  return static_cast<std::size_t>(bytes * 1.05) + (std::size_t{64} << 20);  // 5% and 64 MiB of scratch
}

const std::vector<format_info>& registered_formats() {
  static const std::vector<format_info> infos = [] {
    std::vector<format_info> v;
    for (const auto& e : table()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

const format_info& find_format(const std::string& name) { return find_entry(name).info; }

template <typename V>
std::unique_ptr<local_operator<V>> make_operator(const std::string& name, const csr_matrix<V, index_type>& a,
                                                 backend where, const build_options& options) {
  const entry& e = find_entry(name);
  if (where == backend::host && !e.info.host)
    DSPMV_BAD_INPUT("--format", name, "runs on the CUDA backend only (use --backend cuda)");
  if (where == backend::cuda && !e.info.cuda)
    DSPMV_BAD_INPUT("--format", name, "has no CUDA kernel (use --backend host)");
  if constexpr (std::is_same_v<V, float>)
    return e.make_float(a, where, options);
  else
    return e.make_double(a, where, options);
}

template <typename V>
std::unique_ptr<local_operator<V>> make_operator(const std::string& name, device_csr<V>&& a,
                                                 const build_options& options) {
  const entry& e = find_entry(name);
  if (!e.info.cuda) DSPMV_BAD_INPUT("--format", name, "has no CUDA kernel (use --backend host)");
  const device_factory<V>& gpu = [&]() -> const device_factory<V>& {
    if constexpr (std::is_same_v<V, float>)
      return e.make_device_float;
    else
      return e.make_device_double;
  }();
  if (gpu) return gpu(std::move(a), options);
  // No GPU builder yet: the host builder on a downloaded copy (costs host memory for the block).
  csr_matrix<V, index_type> host = download_csr(a.view());
  a = {};
  auto op = make_operator(name, host, backend::cuda, options);
  return op;
}

template <typename V>
std::unique_ptr<local_operator<V>> make_operator(const std::string& name, csr_matrix<V, index_type>&& a,
                                                 backend where, const build_options& options) {
  if (where == backend::cuda) {
    find_entry(name);  // an unknown name fails before the upload
    device_csr<V> d = upload_csr(a);
    a = {};
    return make_operator(name, std::move(d), options);
  }
  for (const auto& c : csr_kernels)
    if (name == c.name)
      return make_format<csr::traits, V>(name, [&] { return csr::build(std::move(a), csr_params_for(c.kernel, options)); },
                                         where);
  return make_operator(name, static_cast<const csr_matrix<V, index_type>&>(a), where, options);
}

template std::unique_ptr<local_operator<float>> make_operator(const std::string&, const csr_matrix<float, index_type>&,
                                                              backend, const build_options&);
template std::unique_ptr<local_operator<float>> make_operator(const std::string&, csr_matrix<float, index_type>&&,
                                                              backend, const build_options&);
template std::unique_ptr<local_operator<double>> make_operator(const std::string&, csr_matrix<double, index_type>&&,
                                                               backend, const build_options&);
template std::unique_ptr<local_operator<float>> make_operator(const std::string&, device_csr<float>&&,
                                                              const build_options&);
template std::unique_ptr<local_operator<double>> make_operator(const std::string&, device_csr<double>&&,
                                                               const build_options&);
template std::unique_ptr<local_operator<double>> make_operator(const std::string&,
                                                               const csr_matrix<double, index_type>&, backend,
                                                               const build_options&);

}  // namespace distspmv
