// The order of a local block's rows on the GPU (gpu_order.hpp): degree by one stable radix sort,
// reverse Cuthill-McKee by level-synchronous breadth-first search over every component at once.
//
// Host rcm (partition/ordering.cpp), step by step, and its twin here:
//   components in the order of their lowest (degree, id) vertex   hooking + pointer jumping, then
//                                                                  one sort of the roots by that key
//   pseudo-peripheral root: up to 4 sweeps, each a BFS in queue    the same sweeps, all components at
//   order (children by id), the far vertex the first of lowest     once: a vertex's queue position is
//   degree in the last level                                       its level's sort by (parent's
//                                                                  position, id)
//   Cuthill-McKee: children of each vertex by (degree, id)          the new level sorted by (parent's
//                                                                  position, rank of (degree, id))
//   reversed                                                       reversed on download
// A level's vertices all have their parent in the level before (none is adjacent to an earlier
// one), and the first vertex of the queue to reach a vertex is its lowest-position neighbour in
// that level: so sorting a level by (lowest parent position, key) is the queue's own order.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "dist/setup/gpu_order.hpp"
#include "dist/setup/setup_cuda.cuh"

namespace distspmv::dist {
namespace {

using namespace setup_cuda;
using u64 = unsigned long long;
constexpr int unreached = -1;
constexpr index_type no_parent = std::numeric_limits<index_type>::max();

__device__ offset_type upper_bound_of(const offset_type* a, offset_type n, offset_type x) {
  offset_type lo = 0, hi = n;  // first index in [0, n) with a[i] > x
  while (lo < hi) {
    const offset_type mid = (lo + hi) / 2;
    if (a[mid] <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Two keys per off-diagonal entry (row, col) and (col, row); the diagonal gets ~0 (sorted last).
template <typename V>
__global__ void edge_keys_kernel(global_index_type n, offset_type nnz, const offset_type* row_ptr, const index_type* col,
                                 u64* keys) {
  const offset_type e = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (e >= nnz) return;
  const auto r = static_cast<u64>(upper_bound_of(row_ptr + 1, n, e));
  const auto c = static_cast<u64>(col[e]);
  keys[2 * e] = r == c ? ~0ull : (r << 32 | c);
  keys[2 * e + 1] = r == c ? ~0ull : (c << 32 | r);
}

/// xadj[v] = first key of vertex v (binary search), adjacency = the keys' low halves.
__global__ void adjacency_kernel(global_index_type n, offset_type m, const u64* keys, offset_type* xadj) {
  const global_index_type v = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (v > n) return;
  const u64 want = static_cast<u64>(v) << 32;
  offset_type lo = 0, hi = m;
  while (lo < hi) {
    const offset_type mid = (lo + hi) / 2;
    if (keys[mid] < want)
      lo = mid + 1;
    else
      hi = mid;
  }
  xadj[v] = lo;
}

__global__ void low_half_kernel(offset_type m, const u64* keys, index_type* adj) {
  const offset_type i = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (i < m) adj[i] = static_cast<index_type>(keys[i] & 0xffffffffull);
}

__global__ void degree_kernel(global_index_type n, const offset_type* xadj, index_type* deg, index_type* parent,
                              u64* degree_id_key, int bits) {
  const global_index_type v = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (v >= n) return;
  deg[v] = static_cast<index_type>(xadj[v + 1] - xadj[v]);
  parent[v] = static_cast<index_type>(v);
  degree_id_key[v] = static_cast<u64>(deg[v]) << bits | static_cast<u64>(v);
}

/// Components: hook the root of the larger label under the smaller one (one thread per edge: a
/// hub's thousands of edges on one thread would serialise), then jump pointers.
__global__ void hook_kernel(global_index_type n, offset_type m, const offset_type* xadj, const index_type* adj,
                            index_type* parent, int* changed) {
  const offset_type e = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (e >= m) return;
  const auto u = static_cast<index_type>(upper_bound_of(xadj + 1, n, e));
  const index_type pu = parent[u], pv = parent[adj[e]];
  if (pu < pv && parent[pv] == pv) {
    atomicMin(&parent[pv], pu);
    *changed = 1;
  }
}

__global__ void jump_kernel(global_index_type n, index_type* parent) {
  const global_index_type v = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (v >= n) return;
  index_type p = parent[v];
  while (p != parent[p]) p = parent[p];
  parent[v] = p;
}

/// Per component root: size and start key (degree << 32 | id, the lowest).
__global__ void component_keys_kernel(global_index_type n, const index_type* parent, const index_type* deg,
                                      u64* start_key, index_type* size) {
  const global_index_type v = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (v >= n) return;
  atomicMin(&start_key[parent[v]], static_cast<u64>(deg[v]) << 32 | static_cast<u64>(v));
  atomicAdd(&size[parent[v]], 1);
}

__global__ void is_root_kernel(global_index_type n, const index_type* parent, std::uint8_t* flag, index_type* ids) {
  const global_index_type v = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (v >= n) return;
  flag[v] = parent[v] == v;
  ids[v] = static_cast<index_type>(v);
}

__global__ void gather_key_kernel(index_type k, const index_type* roots, const u64* key, u64* out) {
  const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < k) out[i] = key[roots[i]];
}

/// For components in start-key order: rank of each root, size, start vertex.
__global__ void component_table_kernel(index_type k, const index_type* roots, const u64* keys, const index_type* size,
                                       index_type* rank_of_root, offset_type* comp_size, index_type* start) {
  const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k) return;
  rank_of_root[roots[i]] = i;
  comp_size[i] = size[roots[i]];
  start[i] = static_cast<index_type>(keys[i] & 0xffffffffull);
}

__global__ void component_of_kernel(global_index_type n, const index_type* parent, const index_type* rank_of_root,
                                    index_type* comp) {
  const global_index_type v = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (v < n) comp[v] = rank_of_root[parent[v]];
}

__global__ void rank_kernel(global_index_type n, const index_type* sorted, index_type* rank) {
  const global_index_type i = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (i < n) rank[sorted[i]] = static_cast<index_type>(i);
}

template <typename T>
__global__ void fill_kernel(offset_type n, T value, T* out) {
  const offset_type i = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = value;
}

/// BFS level 0: each root at its component's first position.
__global__ void place_roots_kernel(index_type k, const index_type* roots, const index_type* comp, const offset_type* off,
                                   index_type* fill, index_type* pos, int* level, index_type* order_at) {
  const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k) return;
  const index_type v = roots[i], c = comp[v];
  pos[v] = static_cast<index_type>(off[c]);
  level[v] = 0;
  order_at[off[c]] = v;
  fill[c] = 1;
}

__global__ void frontier_degree_kernel(index_type k, const index_type* frontier, const index_type* deg,
                                       offset_type* out) {
  const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < k) out[i] = deg[frontier[i]];
}

/// One thread per edge out of the frontier: an unreached neighbour keeps its lowest parent
/// position, and the first thread to reach it lists it.
__global__ void expand_kernel(offset_type edges, index_type k, const offset_type* first_edge, const index_type* frontier,
                              const offset_type* xadj, const index_type* adj, const index_type* pos, const int* level,
                              index_type* parent_pos, index_type* next, int* count) {
  const offset_type e = blockIdx.x * static_cast<offset_type>(blockDim.x) + threadIdx.x;
  if (e >= edges) return;
  const offset_type i = upper_bound_of(first_edge, k, e) - 1;
  const index_type v = frontier[i];
  const index_type u = adj[xadj[v] + (e - first_edge[i])];
  if (level[u] != unreached) return;
  if (atomicMin(&parent_pos[u], pos[v]) == no_parent) next[atomicAdd(count, 1)] = u;
}

__global__ void level_keys_kernel(index_type k, const index_type* next, const index_type* parent_pos,
                                  const index_type* tie, int bits, u64* keys) {
  const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k) return;
  const index_type u = next[i];
  keys[i] = static_cast<u64>(parent_pos[u]) << bits | static_cast<u64>(tie == nullptr ? u : tie[u]);
}

/// The sorted new level is grouped by component (parents' positions are): each run's start.
__global__ void run_start_kernel(index_type k, const index_type* sorted, const index_type* comp, index_type* run_start) {
  const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k) return;
  const index_type c = comp[sorted[i]];
  if (i == 0 || comp[sorted[i - 1]] != c) run_start[c] = i;
}

__global__ void place_level_kernel(index_type k, const index_type* sorted, const index_type* comp,
                                   const index_type* run_start, const offset_type* off, const index_type* fill,
                                   int lev, index_type* pos, int* level, index_type* order_at) {
  const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k) return;
  const index_type v = sorted[i], c = comp[v];
  const offset_type p = off[c] + fill[c] + (i - run_start[c]);
  pos[v] = static_cast<index_type>(p);
  level[v] = lev;
  order_at[p] = v;
}

__global__ void advance_fill_kernel(index_type k, const index_type* sorted, const index_type* comp,
                                    const index_type* run_start, index_type* fill) {
  const index_type i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k) return;
  const index_type c = comp[sorted[i]];
  if (i == k - 1 || comp[sorted[i + 1]] != c) fill[c] += i - run_start[c] + 1;
}

/// After a sweep: depth of each component (levels), then its far vertex (lowest degree of the
/// last level, first in queue order).
__global__ void depth_kernel(global_index_type n, const int* level, const index_type* comp, int* depth) {
  const global_index_type v = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (v < n && level[v] != unreached) atomicMax(&depth[comp[v]], level[v] + 1);
}

__global__ void far_kernel(global_index_type n, const int* level, const index_type* comp, const int* depth,
                           const index_type* deg, const index_type* pos, u64* far_key) {
  const global_index_type v = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (v >= n || level[v] == unreached || level[v] != depth[comp[v]] - 1) return;
  atomicMin(&far_key[comp[v]], static_cast<u64>(deg[v]) << 32 | static_cast<u64>(pos[v]));
}

/// George-Liu's step per component (partition/ordering.cpp, pseudo_peripheral): sweep 0 from the
/// start vertex; a later sweep from `far` replaces the root while it deepens the structure.
__global__ void sweep_update_kernel(index_type k, int sweep, const index_type* start, const int* depth_now,
                                    const u64* far_key, const index_type* order_at, std::uint8_t* active,
                                    index_type* root, index_type* far, int* depth) {
  const index_type c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= k) return;
  if (sweep > 0 && !active[c]) return;
  const index_type far_now = order_at[far_key[c] & 0xffffffffull];
  if (sweep == 0) {
    root[c] = start[c];
    depth[c] = depth_now[c];
    far[c] = far_now;
  } else if (depth_now[c] <= depth[c]) {
    active[c] = 0;
    return;
  } else {
    root[c] = far[c];
    depth[c] = depth_now[c];
    far[c] = far_now;
  }
  active[c] = far[c] != root[c];
}

__global__ void reverse_kernel(global_index_type n, const index_type* order_at, index_type* out) {
  const global_index_type i = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (i < n) out[n - 1 - i] = order_at[i];
}

/// What the sweeps and the final search share.
struct bfs_state {
  global_index_type n = 0;
  index_type components = 0;
  int bits = 1;
  const offset_type* xadj = nullptr;
  const index_type* adj = nullptr;
  const index_type* deg = nullptr;
  const index_type* comp = nullptr;      // component rank of each vertex
  const offset_type* comp_off = nullptr; // first position of each component
  index_type *pos = nullptr, *order_at = nullptr, *parent_pos = nullptr, *fill = nullptr, *run_start = nullptr;
  int* level = nullptr;
  index_type *frontier = nullptr, *next = nullptr, *sorted = nullptr;
  u64 *keys = nullptr, *keys_sorted = nullptr;
  offset_type* first_edge = nullptr;
  int* d_count = nullptr;
  cub_temp* temp = nullptr;
};

/// A breadth-first search from `roots[0, k)` (one per component, in component order), each level
/// sorted by (parent position, tie[v]) (tie null: v). Fills pos, level and order_at.
void ordered_bfs(bfs_state& s, const index_type* roots, index_type k, const index_type* tie) {
  const global_index_type n = s.n;
  fill_kernel<int><<<grid_for(n), block>>>(n, unreached, s.level);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  fill_kernel<index_type><<<grid_for(n), block>>>(n, no_parent, s.parent_pos);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  if (k == 0) return;
  place_roots_kernel<<<grid_for(k), block>>>(k, roots, s.comp, s.comp_off, s.fill, s.pos, s.level, s.order_at);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  DSPMV_CUDA_CHECK(cudaMemcpy(s.frontier, roots, static_cast<std::size_t>(k) * sizeof(index_type), cudaMemcpyDeviceToDevice));
  index_type width = k;
  for (int lev = 1; width > 0; ++lev) {
    frontier_degree_kernel<<<grid_for(width), block>>>(width, s.frontier, s.deg, s.first_edge);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    s.temp->run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(t, bytes, s.first_edge, s.first_edge, width + 1);
    });
    const offset_type edges = read_one(s.first_edge + width);
    if (edges == 0) break;
    DSPMV_CUDA_CHECK(cudaMemset(s.d_count, 0, sizeof(int)));
    expand_kernel<<<grid_for(edges), block>>>(edges, width, s.first_edge, s.frontier, s.xadj, s.adj, s.pos, s.level,
                                              s.parent_pos, s.next, s.d_count);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    const index_type found = read_one(s.d_count);
    if (found == 0) break;
    level_keys_kernel<<<grid_for(found), block>>>(found, s.next, s.parent_pos, tie, s.bits, s.keys);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    s.temp->run([&](void* t, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(t, bytes, s.keys, s.keys_sorted, s.next, s.sorted, found, 0, 2 * s.bits);
    });
    run_start_kernel<<<grid_for(found), block>>>(found, s.sorted, s.comp, s.run_start);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    place_level_kernel<<<grid_for(found), block>>>(found, s.sorted, s.comp, s.run_start, s.comp_off, s.fill, lev,
                                                   s.pos, s.level, s.order_at);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    advance_fill_kernel<<<grid_for(found), block>>>(found, s.sorted, s.comp, s.run_start, s.fill);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    std::swap(s.frontier, s.sorted);
    width = found;
  }
}

template <typename V>
std::vector<index_type> rcm_on_gpu(const device_csr_view<V>& a) {
  const global_index_type n = a.rows;
  const offset_type nnz = a.nnz;
  require_below_int(2 * nnz, "edges (two per local entry)");
  device_storage mem;
  cub_temp temp;
  auto* d_count = scratch<int>(mem, 1);
  auto* d_count64 = scratch<offset_type>(mem, 1);
  const int bits = bits_for(n + 1);

  // The symmetrised pattern without the diagonal: sorted unique edge keys.
  offset_type m = 0;
  device_storage edge_mem;
  auto* keys = scratch<u64>(edge_mem, 2 * nnz);
  if (nnz > 0) {
    auto* sorted = scratch<u64>(edge_mem, 2 * nnz);
    edge_keys_kernel<V><<<grid_for(nnz), block>>>(n, nnz, a.row_ptr, a.col_idx, keys);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    const int items = static_cast<int>(2 * nnz);
    temp.run([&](void* t, std::size_t& bytes) { return cub::DeviceRadixSort::SortKeys(t, bytes, keys, sorted, items); });
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceSelect::Unique(t, bytes, sorted, keys, d_count64, items);
    });
    m = read_one(d_count64);
    if (m > 0 && read_one(keys + m - 1) == ~0ull) --m;  // the diagonal's key
    edge_mem.free_allocation(sorted);
  }
  auto* xadj = scratch<offset_type>(mem, n + 1);
  auto* adj = scratch<index_type>(mem, m);
  adjacency_kernel<<<grid_for(n + 1), block>>>(n, m, keys, xadj);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  if (m > 0) {
    low_half_kernel<<<grid_for(m), block>>>(m, keys, adj);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  }
  edge_mem.clear();

  // Degrees, and each vertex's rank in (degree, id) order (the Cuthill-McKee tie).
  auto* deg = scratch<index_type>(mem, n);
  auto* parent = scratch<index_type>(mem, n);
  auto* vkey = scratch<u64>(mem, n);
  auto* vkey_sorted = scratch<u64>(mem, n);
  auto* ids = scratch<index_type>(mem, n);
  auto* by_degree = scratch<index_type>(mem, n);
  auto* rank_dg = scratch<index_type>(mem, n);
  auto* flag = scratch<std::uint8_t>(mem, n);
  degree_kernel<<<grid_for(n), block>>>(n, xadj, deg, parent, vkey, bits);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  is_root_kernel<<<grid_for(n), block>>>(n, parent, flag, ids);  // (ids only, here)
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  temp.run([&](void* t, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(t, bytes, vkey, vkey_sorted, ids, by_degree, static_cast<int>(n), 0, 2 * bits);
  });
  rank_kernel<<<grid_for(n), block>>>(n, by_degree, rank_dg);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);

  // Components.
  for (;;) {
    DSPMV_CUDA_CHECK(cudaMemset(d_count, 0, sizeof(int)));
    if (m > 0) {
      hook_kernel<<<grid_for(m), block>>>(n, m, xadj, adj, parent, d_count);
      DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    }
    jump_kernel<<<grid_for(n), block>>>(n, parent);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    if (read_one(d_count) == 0) break;
  }
  auto* start_key = vkey;  // reused: per root, the lowest (degree << 32 | id)
  auto* size = scratch<index_type>(mem, n);
  fill_kernel<u64><<<grid_for(n), block>>>(n, ~0ull, start_key);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  DSPMV_CUDA_CHECK(cudaMemset(size, 0, static_cast<std::size_t>(n) * sizeof(index_type)));
  component_keys_kernel<<<grid_for(n), block>>>(n, parent, deg, start_key, size);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  is_root_kernel<<<grid_for(n), block>>>(n, parent, flag, ids);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  auto* roots = scratch<index_type>(mem, n);
  temp.run([&](void* t, std::size_t& bytes) {
    return cub::DeviceSelect::Flagged(t, bytes, ids, flag, roots, d_count, static_cast<int>(n));
  });
  const index_type k = read_one(d_count);
  auto* root_key = scratch<u64>(mem, k);
  auto* root_key_sorted = scratch<u64>(mem, k);
  auto* roots_sorted = scratch<index_type>(mem, k);
  gather_key_kernel<<<grid_for(k), block>>>(k, roots, start_key, root_key);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  temp.run([&](void* t, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(t, bytes, root_key, root_key_sorted, roots, roots_sorted, k);
  });
  auto* rank_of_root = ids;  // reused
  auto* comp_off = scratch<offset_type>(mem, k + 1);
  auto* start = scratch<index_type>(mem, k);
  auto* comp = scratch<index_type>(mem, n);
  component_table_kernel<<<grid_for(k), block>>>(k, roots_sorted, root_key_sorted, size, rank_of_root, comp_off, start);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  temp.run([&](void* t, std::size_t& bytes) { return cub::DeviceScan::ExclusiveSum(t, bytes, comp_off, comp_off, k + 1); });
  component_of_kernel<<<grid_for(n), block>>>(n, parent, rank_of_root, comp);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);

  bfs_state s;
  s.n = n;
  s.components = k;
  s.bits = bits;
  s.xadj = xadj;
  s.adj = adj;
  s.deg = deg;
  s.comp = comp;
  s.comp_off = comp_off;
  s.pos = scratch<index_type>(mem, n);
  s.order_at = scratch<index_type>(mem, n);
  s.parent_pos = scratch<index_type>(mem, n);
  s.fill = scratch<index_type>(mem, k);
  s.run_start = scratch<index_type>(mem, k);
  s.level = scratch<int>(mem, n);
  s.frontier = scratch<index_type>(mem, n);
  s.next = scratch<index_type>(mem, n);
  s.sorted = scratch<index_type>(mem, n);
  s.keys = vkey;  // n keys each
  s.keys_sorted = vkey_sorted;
  s.first_edge = scratch<offset_type>(mem, n + 1);
  s.d_count = d_count;
  s.temp = &temp;

  // Pseudo-peripheral roots: sweep 0 from every start, then from the far vertex of the
  // components still deepening.
  constexpr int max_sweeps = 4;  // partition/ordering.cpp
  auto* active = scratch<std::uint8_t>(mem, k);
  auto* root = scratch<index_type>(mem, k);
  auto* far = scratch<index_type>(mem, k);
  auto* depth = scratch<int>(mem, k);
  auto* depth_now = scratch<int>(mem, k);
  auto* far_key = scratch<u64>(mem, k);
  auto* sweep_roots = scratch<index_type>(mem, k);
  DSPMV_CUDA_CHECK(cudaMemset(active, 1, static_cast<std::size_t>(k)));
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    index_type from = k;
    const index_type* bfs_roots = start;
    if (sweep > 0) {
      temp.run([&](void* t, std::size_t& bytes) {
        return cub::DeviceSelect::Flagged(t, bytes, far, active, sweep_roots, d_count, k);
      });
      from = read_one(d_count);
      if (from == 0) break;
      bfs_roots = sweep_roots;
    }
    ordered_bfs(s, bfs_roots, from, nullptr);
    DSPMV_CUDA_CHECK(cudaMemset(depth_now, 0, static_cast<std::size_t>(k) * sizeof(int)));
    fill_kernel<u64><<<grid_for(k), block>>>(k, ~0ull, far_key);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    depth_kernel<<<grid_for(n), block>>>(n, s.level, comp, depth_now);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    far_kernel<<<grid_for(n), block>>>(n, s.level, comp, depth_now, deg, s.pos, far_key);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
    sweep_update_kernel<<<grid_for(k), block>>>(k, sweep, start, depth_now, far_key, s.order_at, active, root, far, depth);
    DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  }

  // Cuthill-McKee from the roots, every component at once; then reversed.
  ordered_bfs(s, root, k, rank_dg);
  auto* order = scratch<index_type>(mem, n);
  reverse_kernel<<<grid_for(n), block>>>(n, s.order_at, order);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  return download_array(order, static_cast<std::size_t>(n));
}

__global__ void length_key_kernel(global_index_type n, const offset_type* row_ptr, const offset_type* extra,
                                  offset_type* key, index_type* ids) {
  const global_index_type r = blockIdx.x * static_cast<global_index_type>(blockDim.x) + threadIdx.x;
  if (r >= n) return;
  key[r] = row_ptr[r + 1] - row_ptr[r] + (extra == nullptr ? 0 : extra[r]);
  ids[r] = static_cast<index_type>(r);
}

/// Rows by descending length, stable (CUB's radix sort is).
template <typename V>
std::vector<index_type> degree_on_gpu(const device_csr_view<V>& a, const std::vector<offset_type>& extra_length) {
  const global_index_type n = a.rows;
  device_storage mem;
  cub_temp temp;
  auto* key = scratch<offset_type>(mem, n);
  auto* key_sorted = scratch<offset_type>(mem, n);
  auto* ids = scratch<index_type>(mem, n);
  auto* order = scratch<index_type>(mem, n);
  const offset_type* extra = extra_length.empty() ? nullptr : mem.upload(extra_length);
  length_key_kernel<<<grid_for(n), block>>>(n, a.row_ptr, extra, key, ids);
  DSPMV_CUDA_CHECK_LAUNCH(nullptr);
  temp.run([&](void* t, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairsDescending(t, bytes, key, key_sorted, ids, order, static_cast<int>(n));
  });
  return download_array(order, static_cast<std::size_t>(n));
}

}  // namespace

template <typename V>
std::vector<index_type> local_order_on_gpu(const device_csr_view<V>& a, row_order method,
                                           const std::vector<offset_type>& extra_length) {
  DSPMV_REQUIRE(method == row_order::degree || method == row_order::rcm,
                "local_order_on_gpu: the order must be degree or rcm (auto is resolved before the setup)");
  DSPMV_REQUIRE(a.rows == a.cols, "local_order_on_gpu: the local block must be square");
  DSPMV_REQUIRE(extra_length.empty() || static_cast<global_index_type>(extra_length.size()) == a.rows,
                "local_order_on_gpu: extra_length must have one entry per row");
  if (a.rows == 0) return {};
  require_below_int(a.rows + 1, "rows");
  std::vector<index_type> order = method == row_order::degree ? degree_on_gpu(a, extra_length) : rcm_on_gpu(a);
  DSPMV_CUDA_CHECK(cudaDeviceSynchronize());
  return order;
}

template std::vector<index_type> local_order_on_gpu(const device_csr_view<float>&, row_order,
                                                    const std::vector<offset_type>&);
template std::vector<index_type> local_order_on_gpu(const device_csr_view<double>&, row_order,
                                                    const std::vector<offset_type>&);

}  // namespace distspmv::dist
