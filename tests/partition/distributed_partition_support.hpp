// What the tests of the distributed partitioners (PT-Scotch, label propagation) share: the ranks,
// an even split of the rows over them, and a partitioner's parts of every row gathered from the
// ranks' slices, as the distributed setup calls it.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/generators.hpp"
#include "io/row_split.hpp"
#include "partition/partition.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv::partition::test_support {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// Rows [bounds[r], bounds[r+1]) on rank r: equal counts.
inline std::vector<global_index_type> even_bounds(global_index_type rows) {
  std::vector<global_index_type> b{0};
  for (const auto& r : io::split_rows_evenly(rows, world_size())) b.push_back(r.end);
  return b;
}

/// A distributed partitioner as the setup calls it: (comm, first row, this rank's rows, global
/// rows, parts, seed) -> the parts of this rank's rows.
using distributed_partitioner = std::function<std::vector<int>(MPI_Comm, global_index_type, const csr_matrix<double>&,
                                                               global_index_type, int, int)>;

/// `partitioner`'s parts of every row of `a`, each rank passing rows [bounds[r], bounds[r+1])
/// (even_bounds when empty), gathered in row order on every rank.
inline std::vector<int> gathered_parts(const distributed_partitioner& partitioner, const csr_matrix<double>& a,
                                       int parts, int seed, std::vector<global_index_type> bounds) {
  if (bounds.empty()) bounds = even_bounds(a.rows);
  const int me = world_rank(), p = world_size();
  const auto mine = slice_rows(a, row_range{bounds[me], bounds[me + 1]});
  const auto part = partitioner(MPI_COMM_WORLD, bounds[me], mine, a.rows, parts, seed);
  EXPECT_EQ(static_cast<global_index_type>(part.size()), mine.rows);
  std::vector<int> counts(p), displs(p);
  for (int q = 0; q < p; ++q) {
    counts[q] = static_cast<int>(bounds[q + 1] - bounds[q]);
    displs[q] = static_cast<int>(bounds[q]);
  }
  std::vector<int> all(static_cast<std::size_t>(a.rows));
  MPI_Allgatherv(part.data(), static_cast<int>(part.size()), MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT,
                 MPI_COMM_WORLD);
  return all;
}

/// Every row has a part in [0, parts).
inline bool valid(const std::vector<int>& part, int parts) {
  return std::all_of(part.begin(), part.end(), [&](int q) { return q >= 0 && q < parts; });
}

/// Graphs a partitioner must get through: fewer rows than 4 parts, no rows at all, and 100 rows
/// without an arc (a diagonal matrix).
inline std::vector<std::pair<std::string, csr_matrix<double>>> degenerate_graphs() {
  std::vector<std::pair<std::string, csr_matrix<double>>> graphs;
  for (global_index_type n : {0, 1, 3, 5}) {
    csr_matrix<double> m;
    m.row_ptr = {0};
    if (n > 0) m = io::generate("gen:lognormal:" + std::to_string(n) + ":1:0.5:1");
    graphs.emplace_back(std::to_string(n) + " rows", std::move(m));
  }
  csr_matrix<double> diagonal;
  diagonal.rows = diagonal.cols = 100;
  for (global_index_type r = 0; r < 100; ++r) {
    diagonal.col_idx.push_back(r);
    diagonal.values.push_back(1.0);
    diagonal.row_ptr.push_back(r + 1);
  }
  graphs.emplace_back("diagonal 100", std::move(diagonal));
  return graphs;
}

}  // namespace distspmv::partition::test_support
