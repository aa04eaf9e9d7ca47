#include "partition/partition.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "partition/adjacency.hpp"

namespace distspmv::partition {

std::vector<int> partition_block(const std::vector<offset_type>& row_ptr, int parts) {
  DSPMV_REQUIRE(parts >= 1, "partition_block: parts must be >= 1, got " + std::to_string(parts));
  const global_index_type rows = static_cast<global_index_type>(row_ptr.size()) - 1;
  const offset_type nnz = row_ptr.back();
  std::vector<int> part(rows);
  // Row r goes to the part whose share of nonzeros contains the row's first nonzero; rows are
  // weighted by nnz + 1 so that empty rows still spread over the parts.
  const double total = static_cast<double>(nnz + rows);
  for (global_index_type r = 0; r < rows; ++r) {
    const double mid = static_cast<double>(row_ptr[r] + r) + 0.5 * static_cast<double>(row_ptr[r + 1] - row_ptr[r] + 1);
    part[r] = std::min(parts - 1, static_cast<int>(mid / total * parts));
  }
  return part;
}

template <typename V, typename I>
graph symmetrised_graph(const csr_matrix<V, I>& a) {
  if (a.rows != a.cols)
    DSPMV_BAD_INPUT("partition", "shape", "the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                                              "; distributing rows and x the same way needs a square matrix");
  graph g;
  g.vertices = a.rows;
  std::vector<offset_type> degree(a.rows + 1, 0);
  for (global_index_type r = 0; r < a.rows; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = a.col_idx[k];
      if (c == r) continue;
      ++degree[r];
      ++degree[c];
    }
  g.xadj.assign(a.rows + 1, 0);
  for (global_index_type r = 0; r < a.rows; ++r) g.xadj[r + 1] = g.xadj[r] + degree[r];
  g.adjncy.resize(g.xadj.back());
  std::vector<offset_type> fill(g.xadj.begin(), g.xadj.end() - 1);
  for (global_index_type r = 0; r < a.rows; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = a.col_idx[k];
      if (c == r) continue;
      g.adjncy[fill[r]++] = c;
      g.adjncy[fill[c]++] = r;
    }
  detail::sort_unique_neighbours(g.xadj, g.adjncy);  // an entry and its transpose both present
  g.weight.resize(a.rows);
  for (global_index_type r = 0; r < a.rows; ++r) g.weight[r] = a.row_ptr[r + 1] - a.row_ptr[r];
  return g;
}

template <typename V, typename I>
partition_quality evaluate_partition(const csr_matrix<V, I>& a, const std::vector<int>& part, int parts) {
  partition_quality q;
  q.parts = parts;
  q.nnz_per_part.assign(parts, 0);
  q.halo_per_part.assign(parts, 0);
  q.neighbours_per_part.assign(parts, 0);
  std::vector<std::unordered_set<global_index_type>> ghosts(parts);
  std::vector<std::unordered_set<int>> neighbours(parts);
  for (global_index_type r = 0; r < a.rows; ++r) {
    const int p = part[r];
    q.nnz_per_part[p] += a.row_ptr[r + 1] - a.row_ptr[r];
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const global_index_type c = a.col_idx[k];
      if (part[c] != p) {
        ++q.edge_cut;
        ghosts[p].insert(c);
        neighbours[p].insert(part[c]);
      }
    }
  }
  const double mean = static_cast<double>(a.nnz()) / parts;
  for (int p = 0; p < parts; ++p) {
    q.halo_per_part[p] = static_cast<offset_type>(ghosts[p].size());
    q.neighbours_per_part[p] = static_cast<int>(neighbours[p].size());
    q.halo_entries_total += q.halo_per_part[p];
    q.halo_entries_max = std::max(q.halo_entries_max, q.halo_per_part[p]);
    q.neighbours_max = std::max(q.neighbours_max, q.neighbours_per_part[p]);
    q.neighbours_mean += static_cast<double>(q.neighbours_per_part[p]) / parts;
    if (mean > 0) q.nnz_imbalance = std::max(q.nnz_imbalance, static_cast<double>(q.nnz_per_part[p]) / mean);
  }
  return q;
}

renumbering renumber_by_part(const std::vector<int>& part, int parts) {
  renumbering rn;
  rn.offsets.assign(parts + 1, 0);
  for (int p : part) ++rn.offsets[p + 1];
  std::partial_sum(rn.offsets.begin(), rn.offsets.end(), rn.offsets.begin());
  std::vector<global_index_type> next(rn.offsets.begin(), rn.offsets.end() - 1);
  rn.new_id.resize(part.size());
  for (std::size_t r = 0; r < part.size(); ++r) rn.new_id[r] = next[part[r]]++;
  return rn;
}

template graph symmetrised_graph(const csr_matrix<double, global_index_type>&);
template partition_quality evaluate_partition(const csr_matrix<double, global_index_type>&, const std::vector<int>&, int);

}  // namespace distspmv::partition
