#include "local_kernels/format_registry.hpp"

#include <functional>

#include "local_kernels/csr/csr.hpp"
#include "local_kernels/cusparse/cusparse.hpp"
#include "local_kernels/format_operator.hpp"
// one include per format folder:
// (ellr) (pellr) (hll) (hdia) (ipcsr) (sell)

namespace distspmv {
namespace {

template <typename V>
using factory = std::function<std::unique_ptr<local_operator<V>>(const csr_matrix<V, index_type>&, backend)>;

/// A format_operator over `Traits` built with `params` (the common case of a registry line).
template <typename Traits, typename V, typename Build>
std::unique_ptr<local_operator<V>> make_format(const std::string& name, Build&& build, backend where) {
  return std::make_unique<format_operator<Traits, V>>(name, build(), where);
}

struct entry {
  format_info info;
  factory<float> make_float;
  factory<double> make_double;
};

// One generic lambda serves both value types: one registry line per variant.
template <typename F>
entry make_entry(format_info info, F f) {
  return entry{std::move(info), factory<float>(f), factory<double>(f)};
}

const std::vector<entry>& table() {
  static const std::vector<entry> entries = [] {
    std::vector<entry> t;
    auto csr_variant = [](const char* name, csr::kernel k) {
      return [name, k](const auto& a, backend b) {
        using V = typename std::decay_t<decltype(a)>::value_type;
        return make_format<csr::traits, V>(name, [&] { return csr::build(a, csr::csr_params{k, 0}); }, b);
      };
    };
    t.push_back(make_entry({"csr", "csr", true, true, "CSR, adaptive row blocks (irregular rows)"},
                           csr_variant("csr", csr::kernel::adaptive)));
    t.push_back(make_entry({"csr-scalar", "csr", true, true, "CSR, one thread per row"},
                           csr_variant("csr-scalar", csr::kernel::scalar)));
    t.push_back(make_entry({"csr-vector", "csr", true, true, "CSR, sub-warp per row, T from mean row length"},
                           csr_variant("csr-vector", csr::kernel::vector)));
    // ---- ELLR-T / PELLR (seeds 001, 000) ----
    // ---- HLL / ELL-G / HDIA (seed 003) ----
    // ---- IPCSR (seed 004) ----
    // ---- SELL-C-sigma (seed 002) ----
    // ---- cuSPARSE baselines (CUDA only) ----
    auto cusparse_variant = [](const char* name, cusparse::algorithm alg) {
      return [name, alg](const auto& a, backend b) { return cusparse::make_operator(name, a, alg, b); };
    };
    t.push_back(make_entry({"cusparse", "cusparse", false, true, "cuSPARSE CSR, default algorithm"},
                           cusparse_variant("cusparse", cusparse::algorithm::csr_default)));
    t.push_back(make_entry({"cusparse-alg1", "cusparse", false, true, "cuSPARSE CSR ALG1"},
                           cusparse_variant("cusparse-alg1", cusparse::algorithm::csr_alg1)));
    t.push_back(make_entry({"cusparse-alg2", "cusparse", false, true, "cuSPARSE CSR ALG2 (merge-based)"},
                           cusparse_variant("cusparse-alg2", cusparse::algorithm::csr_alg2)));
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
                                                 backend where) {
  const entry& e = find_entry(name);
  if (where == backend::host && !e.info.host)
    DSPMV_BAD_INPUT("--format", name, "runs on the CUDA backend only (use --backend cuda)");
  if (where == backend::cuda && !e.info.cuda)
    DSPMV_BAD_INPUT("--format", name, "has no CUDA kernel (use --backend host)");
  if constexpr (std::is_same_v<V, float>)
    return e.make_float(a, where);
  else
    return e.make_double(a, where);
}

template std::unique_ptr<local_operator<float>> make_operator(const std::string&, const csr_matrix<float, index_type>&,
                                                              backend);
template std::unique_ptr<local_operator<double>> make_operator(const std::string&,
                                                               const csr_matrix<double, index_type>&, backend);

}  // namespace distspmv
