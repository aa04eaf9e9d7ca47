#include "partition/ordering.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>

#include "common/errors.hpp"

namespace distspmv::partition {
namespace {

/// The symmetrised local pattern without the diagonal, sorted and unique per vertex, 32-bit.
struct local_graph {
  std::vector<offset_type> xadj;
  std::vector<index_type> adj;
  offset_type degree(index_type v) const { return xadj[v + 1] - xadj[v]; }
};

/// Blocks above this many rows sort their adjacency lists with OpenMP threads (as the host kernels
/// run above 20000 rows); smaller ones are not worth the threads' start.
constexpr global_index_type parallel_rows = 20000;

local_graph symmetrised_local_graph(const csr_matrix<double>& a, global_index_type first) {
  const global_index_type n = a.rows;
  auto local = [&](global_index_type c) { return c >= first && c < first + n ? c - first : global_index_type{-1}; };
  local_graph g;
  g.xadj.assign(static_cast<std::size_t>(n) + 1, 0);
  // Each local off-diagonal entry (r, c) puts c in r's list and r in c's (one thread: the
  // scatter into other rows' lists would need atomics, which cost a single thread 1.2 s of 4.3 on
  // rmat:20:16).
  for (global_index_type r = 0; r < n; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = local(a.col_idx[k]);
      if (c < 0 || c == r) continue;
      ++g.xadj[r + 1];
      ++g.xadj[c + 1];
    }
  std::partial_sum(g.xadj.begin(), g.xadj.end(), g.xadj.begin());
  g.adj.resize(static_cast<std::size_t>(g.xadj.back()));
  std::vector<offset_type> fill(g.xadj.begin(), g.xadj.end() - 1);
  for (global_index_type r = 0; r < n; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = local(a.col_idx[k]);
      if (c < 0 || c == r) continue;
      g.adj[fill[r]++] = static_cast<index_type>(c);
      g.adj[fill[c]++] = static_cast<index_type>(r);
    }
  // An entry and its transpose are one edge: sort each list and drop duplicates (`fill` becomes
  // the kept lengths), then compact in place; lists only shrink, so each moves to the left.
#pragma omp parallel for schedule(dynamic, 4096) if (n > parallel_rows)
  for (global_index_type v = 0; v < n; ++v) {
    const auto b = g.adj.begin() + g.xadj[v], e = g.adj.begin() + g.xadj[v + 1];
    std::sort(b, e);
    fill[v] = std::unique(b, e) - b;
  }
  offset_type out = 0;
  for (global_index_type v = 0; v < n; ++v) {
    const offset_type begin = g.xadj[v];
    g.xadj[v] = out;
    std::copy(g.adj.begin() + begin, g.adj.begin() + begin + fill[v], g.adj.begin() + out);
    out += fill[v];
  }
  g.xadj[n] = out;
  fill = {};
  g.adj.resize(static_cast<std::size_t>(out));
  g.adj.shrink_to_fit();
  return g;
}

}  // namespace

std::vector<global_index_type> degree_order(const std::vector<offset_type>& row_ptr) {
  const auto n = static_cast<global_index_type>(row_ptr.empty() ? 0 : row_ptr.size() - 1);
  std::vector<global_index_type> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), global_index_type{0});
  std::stable_sort(order.begin(), order.end(), [&](global_index_type x, global_index_type y) {
    return row_ptr[x + 1] - row_ptr[x] > row_ptr[y + 1] - row_ptr[y];
  });
  return order;
}

std::vector<global_index_type> rcm_order(const csr_matrix<double>& a, global_index_type first) {
  const global_index_type n = a.rows;
  if (n >= std::numeric_limits<index_type>::max())
    DSPMV_BAD_INPUT("rcm_order", "rows", std::to_string(n) + " local rows exceed the 32-bit local index");
  const local_graph g = symmetrised_local_graph(a, first);

  // Component roots are searched from the vertices of lowest degree (ties by id).
  std::vector<index_type> by_degree(static_cast<std::size_t>(n));
  std::iota(by_degree.begin(), by_degree.end(), index_type{0});
  std::stable_sort(by_degree.begin(), by_degree.end(),
                   [&](index_type x, index_type y) { return g.degree(x) < g.degree(y); });

  // Breadth-first sweeps over one component, for the pseudo-peripheral search: `seen` holds the
  // sweep that reached a vertex, so that no array is cleared between sweeps.
  std::vector<int> seen(static_cast<std::size_t>(n), -1);
  std::vector<index_type> queue;
  int sweep = 0;
  auto levels_from = [&](index_type root, index_type& far) {  // returns the depth, `far` = a
    ++sweep;                                                   // lowest-degree vertex of the last level
    queue.assign(1, root);
    seen[root] = sweep;
    int depth = 0;
    std::size_t level_begin = 0;
    while (level_begin < queue.size()) {
      const std::size_t level_end = queue.size();
      far = queue[level_begin];
      for (std::size_t i = level_begin; i < level_end; ++i) {
        const index_type v = queue[i];
        if (g.degree(v) < g.degree(far)) far = v;
        for (offset_type k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
          if (seen[g.adj[k]] != sweep) {
            seen[g.adj[k]] = sweep;
            queue.push_back(g.adj[k]);
          }
      }
      level_begin = level_end;
      ++depth;
    }
    return depth;
  };
  // George and Liu: move to a far vertex while that deepens the level structure. A few sweeps
  // find most of the gain; each costs a pass over the component.
  constexpr int max_sweeps = 4;
  auto pseudo_peripheral = [&](index_type start) {
    index_type root = start, far = start;
    int depth = levels_from(root, far);
    for (int s = 1; s < max_sweeps && far != root; ++s) {
      index_type next_far = far;
      const int d = levels_from(far, next_far);
      if (d <= depth) break;
      root = far;
      depth = d;
      far = next_far;
    }
    return root;
  };

  std::vector<global_index_type> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<char> placed(static_cast<std::size_t>(n), 0);
  std::vector<index_type> next;
  for (const index_type start : by_degree) {
    if (placed[start]) continue;
    const index_type root = g.degree(start) > 0 ? pseudo_peripheral(start) : start;
    placed[root] = 1;
    std::size_t head = order.size();
    order.push_back(root);
    while (head < order.size()) {  // Cuthill-McKee: neighbours by increasing degree, then id
      const auto v = static_cast<index_type>(order[head++]);
      next.clear();
      for (offset_type k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
        if (!placed[g.adj[k]]) {
          placed[g.adj[k]] = 1;
          next.push_back(g.adj[k]);
        }
      std::sort(next.begin(), next.end(), [&](index_type x, index_type y) {
        return g.degree(x) != g.degree(y) ? g.degree(x) < g.degree(y) : x < y;
      });
      order.insert(order.end(), next.begin(), next.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

std::vector<global_index_type> inverse_permutation(const std::vector<global_index_type>& order) {
  std::vector<global_index_type> inverse(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) inverse[static_cast<std::size_t>(order[k])] = static_cast<global_index_type>(k);
  return inverse;
}

std::vector<index_type> most_used_first(const std::vector<offset_type>& uses, const std::vector<std::size_t>& group_starts) {
  std::vector<index_type> order(uses.size());  // new slot -> old slot
  std::iota(order.begin(), order.end(), index_type{0});
  for (std::size_t g = 0; g < group_starts.size(); ++g) {
    const auto begin = static_cast<std::ptrdiff_t>(group_starts[g]);
    const auto end = static_cast<std::ptrdiff_t>(g + 1 < group_starts.size() ? group_starts[g + 1] : uses.size());
    std::stable_sort(order.begin() + begin, order.begin() + end, [&](index_type i, index_type j) {
      return uses[static_cast<std::size_t>(i)] > uses[static_cast<std::size_t>(j)];
    });
  }
  return order;
}

global_index_type local_bandwidth(const csr_matrix<double>& a, global_index_type first,
                                  const std::vector<global_index_type>& order) {
  const global_index_type n = a.rows;
  std::vector<global_index_type> new_id = order.empty() ? std::vector<global_index_type>() : inverse_permutation(order);
  auto id = [&](global_index_type r) { return new_id.empty() ? r : new_id[static_cast<std::size_t>(r)]; };
  global_index_type band = 0;
  for (global_index_type r = 0; r < n; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = a.col_idx[k] - first;
      if (c < 0 || c >= n) continue;
      band = std::max(band, std::abs(id(r) - id(c)));
    }
  return band;
}

}  // namespace distspmv::partition
