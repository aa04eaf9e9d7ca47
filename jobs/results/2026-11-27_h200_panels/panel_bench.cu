// Prototype (issue 16, R-MAT): row panels whose entries are sorted by column.
//
// A panel is up to R consecutive rows holding up to E entries. Its entries are stored sorted by
// column (then row), each with its row as a 16-bit offset in the panel. One thread block per
// panel: y's panel rows live in shared memory, consecutive threads take consecutive entries, so
// that a warp's 32 gathers of x fall on few sectors wherever a column repeats in the panel (hubs)
// or columns lie close, and add their products to the row with a shared-memory atomicAdd (the
// order of the sum is not fixed). Compared in one process with cuSPARSE CSR on the caller's and
// on the ordered rows. Host code from the engine's libraries (generator, orderings).
#include <cuda_runtime.h>
#include <cusparse.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "io/generators.hpp"
#include "partition/ordering.hpp"

using namespace distspmv;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); std::exit(1);} } while (0)
#define CS(x) do { cusparseStatus_t s_ = (x); if (s_ != CUSPARSE_STATUS_SUCCESS) { std::printf("%s: %d (line %d)\n", #x, (int)s_, __LINE__); std::exit(1);} } while (0)

template <int U, int STREAM>
__global__ void __launch_bounds__(512) panel_kernel(const double* __restrict__ val, const unsigned* __restrict__ col,
                             const unsigned short* __restrict__ row, const unsigned long long* __restrict__ pbeg,
                             const unsigned* __restrict__ prow0, const unsigned* __restrict__ pnrows,
                             const double* __restrict__ x, double* __restrict__ y, double alpha, double beta) {
  extern __shared__ double ys[];
  const unsigned p = blockIdx.x, nr = pnrows[p], bd = blockDim.x;
  for (unsigned i = threadIdx.x; i < nr; i += bd) ys[i] = 0.0;
  __syncthreads();
  const unsigned long long e1 = pbeg[p + 1];
  for (unsigned long long e = pbeg[p] + threadIdx.x; e < e1; e += (unsigned long long)bd * U) {
    double v[U]; unsigned c[U]; unsigned r[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const unsigned long long k = e + (unsigned long long)u * bd;
      const bool ok = k < e1;
      v[u] = ok ? (STREAM == 1 ? __ldcs(val + k) : val[k]) : 0.0;
      c[u] = ok ? (STREAM == 1 ? __ldcs(col + k) : col[k]) : 0u;
      r[u] = ok ? (STREAM == 1 ? __ldcs(row + k) : row[k]) : 0u;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] *= __ldg(x + c[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (e + (unsigned long long)u * bd < e1) {
        if (STREAM == 2) ys[r[u]] += v[u];  // racy: timing bound only
        else atomicAdd(&ys[r[u]], v[u]);
      }
  }
  __syncthreads();
  const unsigned r0 = prow0[p];
  for (unsigned i = threadIdx.x; i < nr; i += bd)
    y[r0 + i] = alpha * ys[i] + (beta == 0.0 ? 0.0 : beta * y[r0 + i]);
}


// Deterministic variant: each warp owns rows (pieces of rows) of the panel, so that no two warps
// add to one accumulator. A warp's entries are sorted by column and cut into chunks of 32; each
// chunk is stored sorted by accumulator slot, so that a shuffle scan sums a slot's run and one
// lane adds it. Rows longer than Lmax are cut into pieces with slots of their own past the
// panel's rows, folded into the row in piece order at the end.
constexpr unsigned kWarps = 16;
template <int U>
__global__ void __launch_bounds__(512) wpanel_kernel(const double* __restrict__ val, const unsigned* __restrict__ col,
    const unsigned short* __restrict__ slot, const unsigned long long* __restrict__ wbeg,
    const unsigned* __restrict__ prow0, const unsigned* __restrict__ pnrows, const unsigned* __restrict__ pnslots,
    const unsigned* __restrict__ vbeg, const unsigned short* __restrict__ vreal,
    const double* __restrict__ x, double* __restrict__ y, double alpha, double beta) {
  extern __shared__ double ys[];
  const unsigned p = blockIdx.x, nr = pnrows[p], ns = pnslots[p];
  const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (unsigned i = threadIdx.x; i < ns; i += blockDim.x) ys[i] = 0.0;
  __syncthreads();
  const unsigned long long e1 = wbeg[p * kWarps + w + 1];
  for (unsigned long long k = wbeg[p * kWarps + w] + lane; k < e1; k += 32ull * U) {
    double v[U]; unsigned c[U], s[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const unsigned long long q = k + 32ull * u;
      const bool ok = q < e1;  // uniform over the warp: lists are whole chunks
      v[u] = ok ? __ldcs(val + q) : 0.0;
      c[u] = ok ? __ldcs(col + q) : 0u;
      s[u] = ok ? __ldcs(slot + q) : 0xffffu;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] *= __ldg(x + c[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (k + 32ull * u >= e1) break;
#pragma unroll
      for (unsigned d = 1; d < 32; d <<= 1) {
        const double o = __shfl_down_sync(0xffffffffu, v[u], d);
        const unsigned os = __shfl_down_sync(0xffffffffu, s[u], d);
        if (lane + d < 32 && os == s[u]) v[u] += o;
      }
      const unsigned prev = __shfl_up_sync(0xffffffffu, s[u], 1);
      if ((lane == 0 || prev != s[u]) && s[u] != 0xffffu) ys[s[u]] += v[u];
      __syncwarp();
    }
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (unsigned j = vbeg[p]; j < vbeg[p + 1]; ++j) ys[vreal[j]] += ys[nr + (j - vbeg[p])];
  __syncthreads();
  const unsigned r0 = prow0[p];
  for (unsigned i = threadIdx.x; i < nr; i += blockDim.x)
    y[r0 + i] = alpha * ys[i] + (beta == 0.0 ? 0.0 : beta * y[r0 + i]);
}

// Deterministic variant 2: the panel's column-sorted entries are cut into chunks of 32 (each
// stored sorted by row), chunk k goes to warp k mod W, and every warp adds into its own copy of
// the panel's rows in shared memory; the W copies are summed in warp order at the end.
template <int U>
__global__ void __launch_bounds__(512) ppanel_kernel(const double* __restrict__ val, const unsigned* __restrict__ col,
    const unsigned short* __restrict__ row, const unsigned long long* __restrict__ pbeg,
    const unsigned* __restrict__ prow0, const unsigned* __restrict__ pnrows, unsigned R,
    const double* __restrict__ x, double* __restrict__ y, double alpha, double beta) {
  extern __shared__ double ys[];
  const unsigned p = blockIdx.x, nr = pnrows[p], W = blockDim.x >> 5;
  const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (unsigned i = threadIdx.x; i < W * R; i += blockDim.x) ys[i] = 0.0;
  __syncthreads();
  double* mine = ys + w * R;
  const unsigned long long e1 = pbeg[p + 1];
  for (unsigned long long k = pbeg[p] + 32ull * w + lane; k < e1; k += 32ull * W * U) {
    double v[U]; unsigned c[U], s[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const unsigned long long q = k + 32ull * W * u;
      const bool ok = q < e1;  // uniform: panels are whole chunks
      v[u] = ok ? __ldcs(val + q) : 0.0;
      c[u] = ok ? __ldcs(col + q) : 0u;
      s[u] = ok ? __ldcs(row + q) : 0xffffu;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] *= __ldg(x + c[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (k + 32ull * W * u >= e1) break;
      const unsigned prev = __shfl_up_sync(0xffffffffu, s[u], 1);
      const unsigned next = __shfl_down_sync(0xffffffffu, s[u], 1);
      if (__any_sync(0xffffffffu, lane > 0 && prev == s[u])) {  // a row twice in the chunk
#pragma unroll
        for (unsigned d = 1; d < 32; d <<= 1) {
          const double o = __shfl_down_sync(0xffffffffu, v[u], d);
          const unsigned os = __shfl_down_sync(0xffffffffu, s[u], d);
          if (lane + d < 32 && os == s[u]) v[u] += o;
        }
      }
      (void)next;
      if ((lane == 0 || prev != s[u]) && s[u] != 0xffffu) mine[s[u]] += v[u];
      __syncwarp();
    }
  }
  __syncthreads();
  const unsigned r0 = prow0[p];
  for (unsigned i = threadIdx.x; i < nr; i += blockDim.x) {
    double t = 0.0;
    for (unsigned q = 0; q < W; ++q) t += ys[q * R + i];
    y[r0 + i] = alpha * t + (beta == 0.0 ? 0.0 : beta * y[r0 + i]);
  }
}

// Deterministic variant 3 (rounds): rows are dealt round-robin into pieces of at most P entries,
// each piece an accumulator slot (a row's slots consecutive). The panel's entries, sorted by column, are laid
// out in rounds of 512 U entries in which no slot appears twice; a barrier ends each round. So
// the threads add into their slots without atomics and each slot's sum has a fixed order; the
// slots of a row are summed in order at the end.
template <int U>
__global__ void __launch_bounds__(512) rpanel_kernel(const double* __restrict__ val, const unsigned* __restrict__ col,
    const unsigned short* __restrict__ slot, const unsigned long long* __restrict__ pbeg,
    const unsigned* __restrict__ prow0, const unsigned* __restrict__ pnrows, const unsigned short* __restrict__ sbeg,
    const unsigned* __restrict__ pnslots, const double* __restrict__ x, double* __restrict__ y, double alpha, double beta) {
  extern __shared__ double ys[];
  const unsigned p = blockIdx.x, nr = pnrows[p], ns = pnslots[p], bd = blockDim.x;
  for (unsigned i = threadIdx.x; i < ns; i += bd) ys[i] = 0.0;
  __syncthreads();
  const unsigned long long e1 = pbeg[p + 1];
  for (unsigned long long e = pbeg[p] + threadIdx.x; e < e1; e += (unsigned long long)bd * U) {  // one round
    double v[U]; unsigned c[U], s[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const unsigned long long k = e + (unsigned long long)u * bd;
      v[u] = __ldcs(val + k); c[u] = __ldcs(col + k); s[u] = __ldcs(slot + k);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] *= __ldg(x + c[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (s[u] != 0xffffu) ys[s[u]] += v[u];
    __syncthreads();
  }
  const unsigned r0 = prow0[p];
  const unsigned short* sb = sbeg + r0 + p;  // nr + 1 slot offsets of this panel
  for (unsigned i = threadIdx.x; i < nr; i += bd) {
    double t = 0.0;
    for (unsigned q = sb[i]; q < sb[i + 1]; ++q) t += ys[q];
    y[r0 + i] = alpha * t + (beta == 0.0 ? 0.0 : beta * y[r0 + i]);
  }
}

struct panels {
  std::vector<double> val; std::vector<unsigned> col; std::vector<unsigned short> row;
  std::vector<unsigned long long> beg; std::vector<unsigned> row0, nrows;
};

static panels make_panels(const csr_matrix<double>& a, unsigned R, unsigned long long E) {
  panels p;
  std::size_t r = 0, n = a.rows;
  while (r < n) {  // cut: at most R rows and E entries (a longer row is a panel alone)
    std::size_t q = r; unsigned long long ents = 0;
    while (q < n && q - r < R && (q == r || ents + a.row_length(q) <= E)) { ents += a.row_length(q); ++q; }
    p.row0.push_back(r); p.nrows.push_back(q - r); r = q;
  }
  const std::size_t np = p.row0.size();
  p.beg.resize(np + 1);
  for (std::size_t i = 0; i < np; ++i) p.beg[i] = a.row_ptr[p.row0[i]];
  p.beg[np] = a.nnz();
  p.val.resize(a.nnz()); p.col.resize(a.nnz()); p.row.resize(a.nnz());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t i = 0; i < np; ++i) {
    const auto b = p.beg[i], e = p.beg[i + 1];
    std::vector<unsigned long long> idx(e - b);
    std::iota(idx.begin(), idx.end(), b);
    std::stable_sort(idx.begin(), idx.end(), [&](auto s, auto t) { return a.col_idx[s] < a.col_idx[t]; });
    // row of entry k: found by walking the panel's rows once
    std::vector<unsigned short> rowof(e - b);
    for (unsigned rr = 0; rr < p.nrows[i]; ++rr)
      for (auto k = a.row_ptr[p.row0[i] + rr]; k < a.row_ptr[p.row0[i] + rr + 1]; ++k) rowof[k - b] = rr;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      p.val[b + k] = a.values[idx[k]]; p.col[b + k] = a.col_idx[idx[k]]; p.row[b + k] = rowof[idx[k] - b];
    }
  }
  return p;
}


struct wpanels {
  std::vector<double> val; std::vector<unsigned> col; std::vector<unsigned short> slot;
  std::vector<unsigned long long> wbeg; std::vector<unsigned> row0, nrows, nslots, vbeg; std::vector<unsigned short> vreal;
  unsigned max_slots = 0; unsigned long long stored = 0;
};

static wpanels make_wpanels(const csr_matrix<double>& a, unsigned R, unsigned long long E, unsigned Lmax) {
  wpanels p;
  std::size_t r = 0, n = a.rows;
  while (r < n) {
    std::size_t q = r; unsigned long long ents = 0;
    while (q < n && q - r < R && (q == r || ents + a.row_length(q) <= E)) { ents += a.row_length(q); ++q; }
    p.row0.push_back(r); p.nrows.push_back(q - r); r = q;
  }
  const std::size_t np = p.row0.size();
  struct piece { unsigned slot; unsigned short real; unsigned long long b, e; };
  std::vector<std::vector<std::vector<std::array<unsigned long long, 2>>>> lists(np);  // per panel, per warp: (entry, slot)
  std::vector<std::vector<unsigned short>> vre(np);
  std::vector<unsigned> nsl(np);
#pragma omp parallel for schedule(dynamic, 8)
  for (std::size_t i = 0; i < np; ++i) {
    std::vector<piece> pcs;
    unsigned nv = 0;
    for (unsigned rr = 0; rr < p.nrows[i]; ++rr) {
      const auto b = a.row_ptr[p.row0[i] + rr], e = a.row_ptr[p.row0[i] + rr + 1];
      for (unsigned long long s = b; s < (unsigned long long)e; s += Lmax) {
        const bool first = s == (unsigned long long)b;
        pcs.push_back(piece{first ? rr : p.nrows[i] + nv, (unsigned short)rr, s, std::min<unsigned long long>(e, s + Lmax)});
        if (!first) { vre[i].push_back(rr); ++nv; }
      }
    }
    nsl[i] = p.nrows[i] + nv;
    std::stable_sort(pcs.begin(), pcs.end(), [](const piece& s, const piece& t) { return s.e - s.b > t.e - t.b; });
    std::vector<unsigned long long> load(kWarps, 0);
    lists[i].assign(kWarps, {});
    for (const auto& pc : pcs) {
      const unsigned w = std::min_element(load.begin(), load.end()) - load.begin();
      load[w] += pc.e - pc.b;
      for (auto k = pc.b; k < pc.e; ++k) lists[i][w].push_back({k, pc.slot});
    }
    for (auto& l : lists[i]) {
      std::stable_sort(l.begin(), l.end(), [&](const auto& s, const auto& t) { return a.col_idx[s[0]] < a.col_idx[t[0]]; });
      for (std::size_t c0 = 0; c0 < l.size(); c0 += 32)
        std::stable_sort(l.begin() + c0, l.begin() + std::min(l.size(), c0 + 32), [](const auto& s, const auto& t) { return s[1] < t[1]; });
    }
  }
  p.wbeg.assign(np * kWarps + 1, 0);
  p.vbeg.assign(np + 1, 0);
  for (std::size_t i = 0; i < np; ++i) {
    for (unsigned w = 0; w < kWarps; ++w) p.wbeg[i * kWarps + w + 1] = p.wbeg[i * kWarps + w] + (lists[i][w].size() + 31) / 32 * 32;
    p.vbeg[i + 1] = p.vbeg[i] + vre[i].size();
    p.vreal.insert(p.vreal.end(), vre[i].begin(), vre[i].end());
    p.nslots.push_back(nsl[i]); p.max_slots = std::max(p.max_slots, nsl[i]);
    if (nsl[i] >= 0xffffu) { std::printf("panel %zu: %u slots\n", i, nsl[i]); std::exit(1); }
  }
  p.stored = p.wbeg.back();
  p.val.assign(p.stored, 0.0); p.col.assign(p.stored, 0u); p.slot.assign(p.stored, 0xffffu);
#pragma omp parallel for schedule(dynamic, 8)
  for (std::size_t i = 0; i < np; ++i)
    for (unsigned w = 0; w < kWarps; ++w) {
      auto o = p.wbeg[i * kWarps + w];
      const auto& l = lists[i][w];
      for (std::size_t k = 0; k < l.size(); ++k) { p.val[o + k] = a.values[l[k][0]]; p.col[o + k] = a.col_idx[l[k][0]]; p.slot[o + k] = (unsigned short)l[k][1]; }
      for (std::size_t k = l.size(); k < (l.size() + 31) / 32 * 32; ++k) p.col[o + k] = l.empty() ? 0u : a.col_idx[l.back()[0]];
    }
  return p;
}

static panels make_cpanels(const csr_matrix<double>& a, unsigned R, unsigned long long E) {
  panels q = make_panels(a, R, E);
  panels p; p.row0 = q.row0; p.nrows = q.nrows;
  const std::size_t np = q.row0.size();
  p.beg.assign(np + 1, 0);
  for (std::size_t i = 0; i < np; ++i) p.beg[i + 1] = p.beg[i] + (q.beg[i + 1] - q.beg[i] + 31) / 32 * 32;
  p.val.assign(p.beg[np], 0.0); p.col.assign(p.beg[np], 0u); p.row.assign(p.beg[np], 0xffffu);
#pragma omp parallel for schedule(dynamic, 8)
  for (std::size_t i = 0; i < np; ++i) {
    const auto b = q.beg[i], m = q.beg[i + 1] - b, o = p.beg[i];
    for (unsigned long long c0 = 0; c0 < m; c0 += 32) {
      const unsigned cn = std::min<unsigned long long>(32, m - c0);
      std::array<unsigned, 32> id; std::iota(id.begin(), id.begin() + cn, 0u);
      std::stable_sort(id.begin(), id.begin() + cn, [&](unsigned s, unsigned t) { return q.row[b + c0 + s] < q.row[b + c0 + t]; });
      for (unsigned j = 0; j < 32; ++j) {
        const auto src = b + c0 + (j < cn ? id[j] : id[cn - 1]);
        p.val[o + c0 + j] = j < cn ? q.val[src] : 0.0; p.col[o + c0 + j] = q.col[src]; p.row[o + c0 + j] = j < cn ? q.row[src] : 0xffffu;
      }
    }
  }
  return p;
}

struct rpanels {
  std::vector<double> val; std::vector<unsigned> col; std::vector<unsigned short> slot, sbeg;
  std::vector<unsigned long long> beg; std::vector<unsigned> row0, nrows, nslots; unsigned max_slots = 0;
};

static rpanels make_rpanels(const csr_matrix<double>& a, unsigned R, unsigned long long E, unsigned U, unsigned P, unsigned Smax) {
  rpanels p;
  std::size_t r = 0, n = a.rows;
  auto plen = [&](std::size_t row) { return std::max<unsigned long long>(P, (a.row_length(row) + Smax - 1) / Smax); };
  auto pieces = [&](std::size_t row) { return (a.row_length(row) + plen(row) - 1) / plen(row); };
  while (r < n) {  // at most R rows, E entries and Smax slots (one row alone may exceed E)
    std::size_t q = r; unsigned long long ents = 0, sl = 0;
    while (q < n && q - r < R && (q == r || (ents + a.row_length(q) <= E && sl + pieces(q) <= Smax))) { ents += a.row_length(q); sl += pieces(q); ++q; }
    if (sl > Smax) { std::printf("row %zu needs %llu slots\n", r, sl); std::exit(1); }
    p.row0.push_back(r); p.nrows.push_back(q - r); p.nslots.push_back(sl); p.max_slots = std::max<unsigned>(p.max_slots, sl); r = q;
  }
  const std::size_t np = p.row0.size();
  const unsigned C = 512 * U;
  std::vector<std::vector<std::array<unsigned long long, 2>>> lay(np);  // (entry, slot), rounds of C
  p.sbeg.resize(n + np);
#pragma omp parallel for schedule(dynamic, 8)
  for (std::size_t i = 0; i < np; ++i) {
    std::vector<std::array<unsigned long long, 2>> ents;
    unsigned sl = 0;
    for (unsigned rr = 0; rr < p.nrows[i]; ++rr) {
      const std::size_t row = p.row0[i] + rr;
      p.sbeg[p.row0[i] + i + rr] = sl;
      for (auto k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) ents.push_back(std::array<unsigned long long, 2>{(unsigned long long)k, (unsigned long long)(sl + (k - a.row_ptr[row]) % pieces(row))});
      sl += pieces(row);
    }
    p.sbeg[p.row0[i] + i + p.nrows[i]] = sl;
    std::stable_sort(ents.begin(), ents.end(), [&](const auto& s, const auto& t) { return a.col_idx[s[0]] < a.col_idx[t[0]]; });
    // greedy rounds: each entry goes to the first round, from the first unfilled one on, that is
    // past its slot's previous round and has room
    std::vector<unsigned> fill; std::vector<int> last(sl, -1); std::vector<unsigned> roundof(ents.size());
    unsigned first_open = 0;
    for (std::size_t k = 0; k < ents.size(); ++k) {
      unsigned rd = std::max<int>(first_open, last[ents[k][1]] + 1);
      while (true) { if (rd >= fill.size()) fill.resize(rd + 1, 0); if (fill[rd] < C) break; ++rd; }
      ++fill[rd]; roundof[k] = rd; last[ents[k][1]] = rd;
      while (first_open < fill.size() && fill[first_open] == C) ++first_open;
    }
    lay[i].assign(fill.size() * C, {~0ull, 0xffffull});
    std::vector<unsigned> pos(fill.size(), 0);
    for (std::size_t k = 0; k < ents.size(); ++k) lay[i][roundof[k] * C + pos[roundof[k]]++] = ents[k];
  }
  p.beg.assign(np + 1, 0);
  for (std::size_t i = 0; i < np; ++i) p.beg[i + 1] = p.beg[i] + lay[i].size();
  p.val.assign(p.beg[np], 0.0); p.col.assign(p.beg[np], 0u); p.slot.assign(p.beg[np], 0xffffu);
#pragma omp parallel for schedule(dynamic, 8)
  for (std::size_t i = 0; i < np; ++i) {
    unsigned lastc = 0;
    for (std::size_t k = 0; k < lay[i].size(); ++k) {
      const auto& t = lay[i][k];
      if (t[0] == ~0ull) { p.col[p.beg[i] + k] = lastc; continue; }
      p.val[p.beg[i] + k] = a.values[t[0]]; p.col[p.beg[i] + k] = lastc = a.col_idx[t[0]]; p.slot[p.beg[i] + k] = (unsigned short)t[1];
    }
  }
  return p;
}

static csr_matrix<double> permute(const csr_matrix<double>& a, const std::vector<global_index_type>& order) {
  if (order.empty()) return a;
  const auto inv = partition::inverse_permutation(order);
  csr_matrix<double> b; b.rows = a.rows; b.cols = a.cols;
  b.row_ptr.assign(a.rows + 1, 0);
  for (std::size_t k = 0; k < (std::size_t)a.rows; ++k) b.row_ptr[k + 1] = b.row_ptr[k] + a.row_length(order[k]);
  b.col_idx.resize(a.nnz()); b.values.resize(a.nnz());
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::size_t k = 0; k < (std::size_t)a.rows; ++k) {
    std::vector<std::pair<unsigned, double>> t;
    for (auto e = a.row_ptr[order[k]]; e < a.row_ptr[order[k] + 1]; ++e) t.push_back({(unsigned)inv[a.col_idx[e]], a.values[e]});
    std::sort(t.begin(), t.end());
    for (std::size_t j = 0; j < t.size(); ++j) { b.col_idx[b.row_ptr[k] + j] = t[j].first; b.values[b.row_ptr[k] + j] = t[j].second; }
  }
  return b;
}

template <class T> static T* up(const std::vector<T>& v) {
  T* d; CK(cudaMalloc(&d, std::max<std::size_t>(1, v.size()) * sizeof(T)));
  CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice)); return d;
}

template <class F> static double median_us(F&& f, int warm = 5, int reps = 31) {
  cudaEvent_t s, t; CK(cudaEventCreate(&s)); CK(cudaEventCreate(&t));
  for (int i = 0; i < warm; ++i) f();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) { CK(cudaEventRecord(s)); f(); CK(cudaEventRecord(t)); CK(cudaEventSynchronize(t)); float m; CK(cudaEventElapsedTime(&m, s, t)); ms.push_back(m); }
  CK(cudaGetLastError());
  std::sort(ms.begin(), ms.end()); return 1000.0 * ms[ms.size() / 2];
}

// cuSPARSE CSR SpMV (default algorithm), y = A x, timed.
static double cusparse_us(const csr_matrix<double>& a, const double* dx, double* dy) {
  std::vector<int> rp(a.row_ptr.begin(), a.row_ptr.end()), ci(a.col_idx.begin(), a.col_idx.end());
  int* drp = up(rp); int* dci = up(ci); double* dv = up(a.values);
  cusparseHandle_t h; CS(cusparseCreate(&h));
  cusparseSpMatDescr_t A; cusparseDnVecDescr_t X, Y;
  CS(cusparseCreateCsr(&A, a.rows, a.cols, a.nnz(), drp, dci, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CS(cusparseCreateDnVec(&X, a.cols, (void*)dx, CUDA_R_64F)); CS(cusparseCreateDnVec(&Y, a.rows, dy, CUDA_R_64F));
  double one = 1, zero = 0; std::size_t bs = 0;
  CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bs));
  void* buf; CK(cudaMalloc(&buf, std::max<std::size_t>(bs, 1)));
  CS(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
  const double us = median_us([&] { CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf)); });
  cusparseDestroySpMat(A); cusparseDestroyDnVec(X); cusparseDestroyDnVec(Y); cusparseDestroy(h);
  cudaFree(buf); cudaFree(drp); cudaFree(dci); cudaFree(dv);
  return us;
}

int main(int argc, char** argv) {
  if (argc < 4) { std::printf("usage: %s SPEC none|degree|rcm R:E[:U[:S]] ...\n", argv[0]); return 2; }
  const std::string spec = argv[1], ord = argv[2];
  double t0 = omp_get_wtime();
  const auto a = io::generate(spec);
  std::printf("%s: %lld rows, %lld nonzeros, generated in %.1f s\n", spec.c_str(), (long long)a.rows, (long long)a.nnz(), omp_get_wtime() - t0);
  t0 = omp_get_wtime();
  std::vector<global_index_type> order;
  if (ord == "degree") order = partition::degree_order(a.row_ptr);
  else if (ord == "rcm") order = partition::rcm_order(a, 0);
  const auto b = permute(a, order);
  std::printf("order %s in %.1f s\n", ord.c_str(), omp_get_wtime() - t0);
  const std::size_t n = a.rows;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = 0.25 + std::fmod(0.6180339887 * (i + 1), 1.0);
  std::vector<double> xb(n);
  for (std::size_t k = 0; k < n; ++k) xb[k] = order.empty() ? x[k] : x[order[k]];
  std::vector<double> ref(n, 0.0), mag(n, 0.0);
#pragma omp parallel for
  for (std::size_t r = 0; r < n; ++r)
    for (auto e = b.row_ptr[r]; e < b.row_ptr[r + 1]; ++e) { ref[r] += b.values[e] * xb[b.col_idx[e]]; mag[r] += std::fabs(b.values[e] * xb[b.col_idx[e]]); }
  double* dxa = up(x); double* dxb = up(xb); double* dy; CK(cudaMalloc(&dy, n * sizeof(double)));
  const double bytes = 12.0 * a.nnz() + 8.0 * (n + 1) + 16.0 * n;
  const double cu_caller = cusparse_us(a, dxa, dy), cu_same = cusparse_us(b, dxb, dy);
  std::printf("cusparse caller order %.1f us, %s order %.1f us (CSR bytes %.0f MB)\n", cu_caller, ord.c_str(), cu_same, bytes / 1e6);
  auto check = [&](const char* what, double us, double extra) {
    std::vector<double> got(n); CK(cudaMemcpy(got.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost));
    double err = 0; bool ok = true;
    for (std::size_t r = 0; r < n; ++r) {
      const double d = std::fabs(got[r] - ref[r]), bound = 1e-13 * (mag[r] + 1e-300) * 64;
      if (!(d <= bound)) ok = false;
      if (mag[r] > 0) err = std::max(err, d / mag[r]);
    }
    std::printf("%s: %.1f us = %.2fx caller-order cuSPARSE, %.2fx same-order, %.0f GB/s, stored/nnz %.3f, check %s (max rel err %.1e)\n",
                what, us, cu_caller / us, cu_same / us, bytes / us / 1e3, extra, ok ? "passed" : "FAILED", err);
    std::fflush(stdout);
  };
  for (int i = 3; i < argc; ++i) {
    if (argv[i][0] == 'r') {
      unsigned R = 2048, U = 4, P = 8, Smax = 6144; unsigned long long E = 32768;
      std::sscanf(argv[i] + 1, "%u:%llu:%u:%u:%u", &R, &E, &U, &P, &Smax);
      t0 = omp_get_wtime();
      const rpanels p = make_rpanels(b, R, E, U, P, Smax);
      const double tb = omp_get_wtime() - t0;
      double* dv = up(p.val); unsigned* dc = up(p.col); unsigned short* ds = up(p.slot); unsigned short* dsb = up(p.sbeg);
      unsigned long long* dbg = up(p.beg); unsigned* dr0 = up(p.row0); unsigned* dnr = up(p.nrows); unsigned* dns = up(p.nslots);
      const unsigned np = p.row0.size(), smem = p.max_slots * sizeof(double);
      auto launch = [&] {
#define L(UU) if (U == UU) { CK(cudaFuncSetAttribute(rpanel_kernel<UU>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); rpanel_kernel<UU><<<np, 512, smem>>>(dv, dc, ds, dbg, dr0, dnr, dsb, dns, dxb, dy, 1.0, 0.0); }
        L(2) L(4) L(8)
#undef L
      };
      CK(cudaMemset(dy, 0xff, n * sizeof(double)));
      launch(); CK(cudaDeviceSynchronize());
      const double us = median_us(launch);
      char what[200]; std::snprintf(what, sizeof what, "rpanels R=%u E=%llu U=%u P=%u Smax=%u: %u panels, %u max slots, built in %.1f s", R, E, U, P, Smax, np, p.max_slots, tb);
      check(what, us, double(p.beg.back()) / b.nnz());
      cudaFree(dv); cudaFree(dc); cudaFree(ds); cudaFree(dsb); cudaFree(dbg); cudaFree(dr0); cudaFree(dnr); cudaFree(dns);
      continue;
    }
    if (argv[i][0] == 'p') {
      unsigned R = 1024, U = 4, W = 4; unsigned long long E = 16384;
      std::sscanf(argv[i] + 1, "%u:%llu:%u:%u", &R, &E, &U, &W);
      t0 = omp_get_wtime();
      const panels p = make_cpanels(b, R, E);
      const double tb = omp_get_wtime() - t0;
      double* dv = up(p.val); unsigned* dc = up(p.col); unsigned short* dr = up(p.row);
      unsigned long long* dbg = up(p.beg); unsigned* dr0 = up(p.row0); unsigned* dnr = up(p.nrows);
      const unsigned np = p.row0.size(), smem = W * R * sizeof(double);
      auto launch = [&] {
#define L(UU) if (U == UU) { CK(cudaFuncSetAttribute(ppanel_kernel<UU>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); ppanel_kernel<UU><<<np, 32 * W, smem>>>(dv, dc, dr, dbg, dr0, dnr, R, dxb, dy, 1.0, 0.0); }
        L(2) L(4) L(8)
#undef L
      };
      CK(cudaMemset(dy, 0xff, n * sizeof(double)));
      launch(); CK(cudaDeviceSynchronize());
      const double us = median_us(launch);
      char what[200]; std::snprintf(what, sizeof what, "ppanels R=%u E=%llu U=%u W=%u: %u panels, built in %.1f s", R, E, U, W, np, tb);
      check(what, us, double(p.beg.back()) / b.nnz());
      cudaFree(dv); cudaFree(dc); cudaFree(dr); cudaFree(dbg); cudaFree(dr0); cudaFree(dnr);
      continue;
    }
    if (argv[i][0] == 'w') {
      unsigned R = 2048, U = 4, L = 256; unsigned long long E = 32768;
      std::sscanf(argv[i] + 1, "%u:%llu:%u:%u", &R, &E, &U, &L);
      t0 = omp_get_wtime();
      const wpanels p = make_wpanels(b, R, E, L);
      const double tb = omp_get_wtime() - t0;
      double* dv = up(p.val); unsigned* dc = up(p.col); unsigned short* ds = up(p.slot);
      unsigned long long* dwb = up(p.wbeg); unsigned* dr0 = up(p.row0); unsigned* dnr = up(p.nrows); unsigned* dns = up(p.nslots);
      unsigned* dvb = up(p.vbeg); unsigned short* dvr = up(p.vreal);
      const unsigned np = p.row0.size(), smem = p.max_slots * sizeof(double);
      auto launch = [&] {
#define L(UU) if (U == UU) { CK(cudaFuncSetAttribute(wpanel_kernel<UU>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); wpanel_kernel<UU><<<np, 32 * kWarps, smem>>>(dv, dc, ds, dwb, dr0, dnr, dns, dvb, dvr, dxb, dy, 1.0, 0.0); }
        L(2) L(4) L(8)
#undef L
      };
      CK(cudaMemset(dy, 0xff, n * sizeof(double)));
      launch(); CK(cudaDeviceSynchronize());
      const double us = median_us(launch);
      char what[200]; std::snprintf(what, sizeof what, "wpanels R=%u E=%llu U=%u Lmax=%u: %u panels, %u max slots, built in %.1f s", R, E, U, L, np, p.max_slots, tb);
      check(what, us, double(p.stored) / b.nnz());
      cudaFree(dv); cudaFree(dc); cudaFree(ds); cudaFree(dwb); cudaFree(dr0); cudaFree(dnr); cudaFree(dns); cudaFree(dvb); cudaFree(dvr);
      continue;
    }
    unsigned R = 2048, U = 4, S = 1; unsigned long long E = 65536;
    std::sscanf(argv[i], "%u:%llu:%u:%u", &R, &E, &U, &S);
    t0 = omp_get_wtime();
    const panels p = make_panels(b, R, E);
    const double tb = omp_get_wtime() - t0;
    double* dv = up(p.val); unsigned* dc = up(p.col); unsigned short* dr = up(p.row);
    unsigned long long* dbg = up(p.beg); unsigned* dr0 = up(p.row0); unsigned* dnr = up(p.nrows);
    const unsigned np = p.row0.size(), smem = R * sizeof(double);
    auto launch = [&] {
#define L(UU, SS) if (U == UU && S == SS) { CK(cudaFuncSetAttribute(panel_kernel<UU, SS>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); panel_kernel<UU, SS><<<np, 512, smem>>>(dv, dc, dr, dbg, dr0, dnr, dxb, dy, 1.0, 0.0); }
      L(2, 0) L(2, 1) L(4, 0) L(4, 1) L(8, 0) L(8, 1) L(4, 2) L(8, 2)
#undef L
    };
    CK(cudaMemset(dy, 0xff, n * sizeof(double)));
    launch(); CK(cudaDeviceSynchronize());
    std::vector<double> got(n); CK(cudaMemcpy(got.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost));
    double err = 0; bool ok = true;
    for (std::size_t r = 0; r < n; ++r) {
      const double d = std::fabs(got[r] - ref[r]), bound = 1e-13 * (mag[r] + 1e-300) * 64;
      if (!(d <= bound)) ok = false;
      if (mag[r] > 0) err = std::max(err, d / mag[r]);
    }
    const double us = median_us(launch);
    std::printf("panels R=%u E=%llu U=%u stream=%u: %u panels, built in %.1f s, %.1f us = %.2fx caller-order cuSPARSE, %.2fx same-order, %.0f GB/s, check %s (max rel err %.1e)\n",
                R, E, U, S, np, tb, us, cu_caller / us, cu_same / us, bytes / us / 1e3, ok ? "passed" : "FAILED", err);
    std::fflush(stdout);
    cudaFree(dv); cudaFree(dc); cudaFree(dr); cudaFree(dbg); cudaFree(dr0); cudaFree(dnr);
  }
  return 0;
}
