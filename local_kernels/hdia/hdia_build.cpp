// Builds HDIA from CSR on the host: the diagonals of each hack, the refusal checks, then the fill.
// Deterministic; the input is only read.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "local_kernels/float_values.hpp"
#include "local_kernels/hdia/hdia.hpp"

namespace distspmv::hdia {
namespace {

constexpr const char* source = "hdia::build";

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

/// The distinct col - row offsets of hack h's rows, ascending, into `out`.
template <typename V, typename I, typename Key>
void hack_diagonals(const csr_matrix<V, I>& a, global_index_type h, global_index_type H, std::vector<Key>& out) {
  out.clear();
  const global_index_type end = std::min(a.rows, (h + 1) * H);
  for (global_index_type r = h * H; r < end; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      out.push_back(static_cast<Key>(static_cast<global_index_type>(a.col_idx[k]) - r));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace

namespace detail {

// Shared with build_cuda (hdia_build_cuda.cu declares them): the checks and statistics both
// builders must agree on, so that they refuse the same inputs with the same words.

void check_params(global_index_type rows, const hdia_params& params, const char* source) {
  if (params.hack_size <= 0 || params.hack_size % 32 != 0)
    DSPMV_BAD_INPUT(source, "hack_size", std::to_string(params.hack_size) + " is not a positive multiple of 32");
  if (params.max_diagonals_per_hack <= 0)
    DSPMV_BAD_INPUT(source, "max_diagonals_per_hack",
                    std::to_string(params.max_diagonals_per_hack) + " is not positive");
  if (params.max_padding_ratio < 1.0)
    DSPMV_BAD_INPUT(source, "max_padding_ratio", ratio_text(params.max_padding_ratio) + " is below 1");
  if (rows > std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT(source, "rows", std::to_string(rows) + " rows exceed the 32-bit local row range");
}

void check_hack(global_index_type h, offset_type diagonals, global_index_type rows, offset_type nnz,
                const hdia_params& params, offset_type& slots_in_rows,
                const std::function<std::size_t()>& distinct_so_far, const char* source) {
  const global_index_type H = params.hack_size;
  const global_index_type end = std::min(rows, (h + 1) * H);
  if (diagonals < 0 || diagonals > params.max_diagonals_per_hack) {
    // A GPU count stops at the limit + 1: it knows only "at least" then.
    const std::string count = diagonals < 0 ? "at least " + std::to_string(params.max_diagonals_per_hack + 1)
                                            : std::to_string(diagonals);
    DSPMV_BAD_INPUT(source, "diagonals",
                    "hack " + std::to_string(h) + " (rows " + std::to_string(h * H) + ".." + std::to_string(end - 1) +
                        ") has " + count + " diagonals, more than the limit of " +
                        std::to_string(params.max_diagonals_per_hack) +
                        " per hack; HDIA suits matrices with few diagonals");
  }
  // The slots only grow, so the check can stop at the first hack that crosses the limit. Rows
  // past the end of the matrix do not count, so that a small matrix is not refused for the
  // tail of its only hack.
  slots_in_rows += diagonals * (end - h * H);
  if (static_cast<double>(slots_in_rows) > params.max_padding_ratio * static_cast<double>(nnz))
    DSPMV_BAD_INPUT(source, "padding",
                    "would store at least " + std::to_string(slots_in_rows) + " slots for " + std::to_string(nnz) +
                        " nonzeros (" + ratio_text(static_cast<double>(slots_in_rows) / static_cast<double>(nnz)) +
                        "x, limit " + ratio_text(params.max_padding_ratio) + "x) on " +
                        std::to_string(distinct_so_far()) + " distinct diagonals in rows 0.." +
                        std::to_string(end - 1) + "; HDIA suits matrices with few diagonals");
}

format_stats hdia_stats(const std::vector<offset_type>& hack_offsets, global_index_type rows, offset_type nnz,
                        global_index_type H, std::size_t value_bytes, bool float_values) {
  format_stats stats;
  const offset_type diagonals = hack_offsets.back();
  const offset_type slots = diagonals * H;
  stats.stored_bytes = hack_offsets.size() * sizeof(offset_type) +
                       static_cast<std::size_t>(diagonals) * sizeof(index_type) +
                       static_cast<std::size_t>(slots) * value_bytes;
  stats.padding_ratio = nnz > 0 ? static_cast<double>(slots) / static_cast<double>(nnz) : 1.0;
  // N_iter (seed 000 eq. 1): a warp of 32 rows of hack h runs over that hack's diagonals.
  for (global_index_type w = 0; w < rows; w += 32) {
    const global_index_type h = w / H;
    stats.n_iter += hack_offsets[h + 1] - hack_offsets[h];
  }
  stats.n_p = stats.n_iter * 32 - nnz;
  offset_type most = 0;
  for (std::size_t h = 0; h + 1 < hack_offsets.size(); ++h)
    most = std::max(most, hack_offsets[h + 1] - hack_offsets[h]);
  stats.params = "H=" + std::to_string(H) + " max_diagonals_in_a_hack=" + std::to_string(most) +
                 (float_values ? " float-values" : "");
  return stats;
}

}  // namespace detail

template <typename V>
hdia_matrix<V> build(const csr_matrix<V, index_type>& a, const hdia_params& params) {
  validate_csr(a, source, /*allow_nonfinite=*/true);
  detail::check_params(a.rows, params, source);
  if (stores_float_values<V>(params)) check_fits_float(a, source);

  hdia_matrix<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.nnz = a.nnz();
  m.params = params;
  m.hack_size = params.hack_size;
  const global_index_type H = params.hack_size;
  const global_index_type hacks = (a.rows + H - 1) / H;

  // Diagonals of each hack, refusing as soon as one hack has too many or the slots so far
  // exceed the padding limit.
  m.hack_offsets.assign(static_cast<std::size_t>(hacks) + 1, 0);
  std::vector<index_type> hack_diags;
  offset_type slots_in_rows = 0;  // slots of rows inside the matrix (the last hack's tail aside)
  const auto distinct_so_far = [&m] {
    std::vector<index_type> all(m.diag_offsets);
    std::sort(all.begin(), all.end());
    return static_cast<std::size_t>(std::unique(all.begin(), all.end()) - all.begin());
  };
  for (global_index_type h = 0; h < hacks; ++h) {
    hack_diagonals(a, h, H, hack_diags);  // |col - row| < 2^31: rows < 2^31 (check_params)
    m.hack_offsets[h + 1] = m.hack_offsets[h] + static_cast<offset_type>(hack_diags.size());
    m.diag_offsets.insert(m.diag_offsets.end(), hack_diags.begin(), hack_diags.end());
    detail::check_hack(h, static_cast<offset_type>(hack_diags.size()), a.rows, m.nnz, params, slots_in_rows,
                       distinct_so_far, source);
  }

  const offset_type slots = m.hack_offsets.back() * H;
  m.values.assign(static_cast<std::size_t>(slots), V(0));
  for (global_index_type r = 0; r < a.rows; ++r) {
    const global_index_type h = r / H;
    const auto first = m.diag_offsets.begin() + m.hack_offsets[h];
    const auto last = m.diag_offsets.begin() + m.hack_offsets[h + 1];
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const auto d = static_cast<index_type>(a.col_idx[k] - r);
      const offset_type diag = std::lower_bound(first, last, d) - m.diag_offsets.begin();
      m.values[diag * H + (r - h * H)] = a.values[k];
    }
  }

  const bool f32 = stores_float_values<V>(params);
  if (f32) {
    m.values_f32.assign(m.values.begin(), m.values.end());
    m.values = {};
  }
  m.stats = detail::hdia_stats(m.hack_offsets, m.rows, m.nnz, H, f32 ? sizeof(float) : sizeof(V), f32);
  return m;
}

template <typename V, typename I>
offset_type hack_slots(const csr_matrix<V, I>& a, const hdia_params& params) {
  detail::check_params(0, params, "hdia::hack_slots");
  if (a.rows > std::numeric_limits<index_type>::max()) return -1;  // build() refuses it
  const global_index_type H = params.hack_size;
  const global_index_type hacks = (a.rows + H - 1) / H;
  offset_type slots = 0;
  bool refused = false;
#pragma omp parallel reduction(+ : slots) reduction(|| : refused)
  {
    std::vector<global_index_type> diags;
#pragma omp for schedule(static, 1024)
    for (global_index_type h = 0; h < hacks; ++h) {
      if (refused) continue;
      hack_diagonals(a, h, H, diags);
      refused = diags.size() > static_cast<std::size_t>(params.max_diagonals_per_hack);
      slots += static_cast<offset_type>(diags.size()) * (std::min(a.rows, (h + 1) * H) - h * H);
    }
  }
  return refused ? -1 : slots;
}

template <typename V>
csr_matrix<V, index_type> to_csr(const hdia_matrix<V>& m) {
  csr_matrix<V, index_type> a;
  a.rows = m.rows;
  a.cols = m.cols;
  const global_index_type H = m.hack_size;
  a.row_ptr.assign(1, 0);
  for (global_index_type r = 0; r < m.rows; ++r) {
    const global_index_type h = r / H;
    for (offset_type d = m.hack_offsets[h]; d < m.hack_offsets[h + 1]; ++d) {
      const global_index_type c = r + m.diag_offsets[d];
      const offset_type slot = d * H + (r - h * H);
      const V v = m.values_f32.empty() ? m.values[slot] : static_cast<V>(m.values_f32[slot]);
      if (c >= 0 && c < m.cols && v != V(0)) {
        a.col_idx.push_back(static_cast<index_type>(c));
        a.values.push_back(v);
      }
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

template hdia_matrix<float> build(const csr_matrix<float, index_type>&, const hdia_params&);
template hdia_matrix<double> build(const csr_matrix<double, index_type>&, const hdia_params&);
template offset_type hack_slots(const csr_matrix<float, index_type>&, const hdia_params&);
template offset_type hack_slots(const csr_matrix<double, index_type>&, const hdia_params&);
template offset_type hack_slots(const csr_matrix<double, global_index_type>&, const hdia_params&);
template csr_matrix<float, index_type> to_csr(const hdia_matrix<float>&);
template csr_matrix<double, index_type> to_csr(const hdia_matrix<double>&);

}  // namespace distspmv::hdia
