// The distributed symmetrised graph (distributed_graph.hpp): each rank counts its rows' arcs,
// sends every entry whose column another rank owns to that rank transposed, then sorts and removes
// repeats per vertex. No rank holds more than its own vertices' adjacency.
#include "partition/distributed_graph.hpp"

#include <algorithm>
#include <climits>
#include <numeric>

#include "common/mpi_check.hpp"
#include "partition/adjacency.hpp"

namespace distspmv::partition::detail {

dup_comm::dup_comm(MPI_Comm comm) {
  DSPMV_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}

std::vector<global_index_type> rank_ranges(MPI_Comm comm, global_index_type first_row, const csr_matrix<double>& a,
                                           global_index_type global_rows, const char* who) {
  int p = 0;
  DSPMV_MPI_CHECK(MPI_Comm_size(comm, &p));
  const std::int64_t mine[3] = {first_row, a.rows, a.cols};
  std::vector<std::int64_t> all(3 * static_cast<std::size_t>(p));
  DSPMV_MPI_CHECK(MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, comm));
  std::vector<global_index_type> ranges(static_cast<std::size_t>(p) + 1, global_rows);
  for (int q = 0; q < p; ++q) ranges[q] = all[3 * q];
  for (int q = 0; q < p; ++q) {
    const std::string rank = "rank " + std::to_string(q);
    if (all[3 * q + 2] != global_rows)
      DSPMV_BAD_INPUT(who, rank,
                      "its rows have " + std::to_string(all[3 * q + 2]) + " columns, not " +
                          std::to_string(global_rows) + ": the matrix must be square");
    if (ranges[0] != 0 || all[3 * q + 1] < 0 || ranges[q] + all[3 * q + 1] != ranges[q + 1])
      DSPMV_BAD_INPUT(who, rank,
                      "rows [" + std::to_string(ranges[q]) + ", " + std::to_string(ranges[q] + all[3 * q + 1]) +
                          ") do not continue the ranges of the ranks before it towards [0, " +
                          std::to_string(global_rows) + ")");
  }
  return ranges;
}

distributed_graph build_distributed_graph(MPI_Comm comm, const std::vector<global_index_type>& ranges, int me,
                                          const csr_matrix<double>& a, const char* who, const graph_id_limit& limit) {
  const int p = static_cast<int>(ranges.size()) - 1;
  const global_index_type first = ranges[me], end = ranges[me + 1], n = a.rows, global_rows = ranges[p];
  const auto owner = [&](global_index_type c) {
    return static_cast<int>(std::upper_bound(ranges.begin(), ranges.end(), c) - ranges.begin()) - 1;
  };
  const auto is_arc = [&](global_index_type v, global_index_type c) { return c != v && c >= 0 && c < global_rows; };

  // Count each vertex's arcs (before removing repeats) and the pairs for each other rank.
  std::vector<std::int64_t> degree(static_cast<std::size_t>(n) + 1, 0), send_count(p, 0), recv_count(p);
  std::int64_t bad_columns = 0;
  for (global_index_type i = 0; i < n; ++i)
    for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const global_index_type v = first + i, c = a.col_idx[k];
      if (!is_arc(v, c)) {
        bad_columns += c != v;
        continue;
      }
      ++degree[i];
      if (c >= first && c < end)
        ++degree[c - first];
      else
        ++send_count[owner(c)];
    }
  DSPMV_MPI_CHECK(MPI_Alltoall(send_count.data(), 1, MPI_INT64_T, recv_count.data(), 1, MPI_INT64_T, comm));
  const std::int64_t send_total = std::accumulate(send_count.begin(), send_count.end(), std::int64_t{0});
  const std::int64_t recv_total = std::accumulate(recv_count.begin(), recv_count.end(), std::int64_t{0});
  const std::int64_t local_arcs = std::accumulate(degree.begin(), degree.end(), std::int64_t{0}) + recv_total;
  // Agreed failures: columns out of range, counts past MPI's int, ids past the caller's limit.
  std::int64_t problems[3] = {bad_columns, send_total > INT_MAX || recv_total > INT_MAX, local_arcs};
  DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, problems, 3, MPI_INT64_T, MPI_SUM, comm));
  if (problems[0] > 0)
    DSPMV_BAD_INPUT(who, "column ids",
                    std::to_string(problems[0]) + " entries have a column outside [0, " + std::to_string(global_rows) +
                        ")");
  if (problems[1] > 0)
    throw error(std::string(who) +
                    ": a rank exchanges more than 2^31 - 1 arcs with the others (one MPI_Alltoallv); partition over "
                    "more ranks",
                __FILE__, __LINE__);
  if (global_rows > limit.max_id || problems[2] > limit.max_id)
    DSPMV_BAD_INPUT(who, "graph size",
                    std::to_string(global_rows) + " vertices and up to " + std::to_string(problems[2]) + " arcs " +
                        limit.advice);

  // Exchange (c, v) pairs, one MPI_Alltoallv of a two-int64 type.
  std::vector<std::int64_t> recv(2 * static_cast<std::size_t>(recv_total));
  {
    std::vector<int> sc(p), sd(p), rc(p), rd(p);
    for (int q = 0, s = 0, r = 0; q < p; ++q) {
      sc[q] = static_cast<int>(send_count[q]);
      rc[q] = static_cast<int>(recv_count[q]);
      sd[q] = s;
      rd[q] = r;
      s += sc[q];
      r += rc[q];
    }
    std::vector<std::int64_t> send(2 * static_cast<std::size_t>(send_total));
    std::vector<std::int64_t> pos(p);
    for (int q = 0; q < p; ++q) pos[q] = 2 * std::int64_t{sd[q]};
    for (global_index_type i = 0; i < n; ++i)
      for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const global_index_type v = first + i, c = a.col_idx[k];
        if (!is_arc(v, c) || (c >= first && c < end)) continue;
        auto& at = pos[owner(c)];
        send[at++] = c;
        send[at++] = v;
      }
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    DSPMV_MPI_CHECK(MPI_Type_contiguous(2, MPI_INT64_T, &pair));
    DSPMV_MPI_CHECK(MPI_Type_commit(&pair));
    const int status =
        MPI_Alltoallv(send.data(), sc.data(), sd.data(), pair, recv.data(), rc.data(), rd.data(), pair, comm);
    MPI_Type_free(&pair);
    DSPMV_MPI_CHECK(status);
  }

  // Offsets, then the arcs: each local entry both ways (if its column is here), each received one.
  distributed_graph g;
  for (std::int64_t k = 0; k < recv_total; ++k) ++degree[recv[2 * k] - first];
  g.xadj.resize(degree.size());
  std::exclusive_scan(degree.begin(), degree.end(), g.xadj.begin(), offset_type{0});
  degree = {};
  g.adjncy.resize(static_cast<std::size_t>(local_arcs));
  std::vector<offset_type> fill(g.xadj.begin(), g.xadj.end() - 1);
  for (global_index_type i = 0; i < n; ++i)
    for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const global_index_type v = first + i, c = a.col_idx[k];
      if (!is_arc(v, c)) continue;
      g.adjncy[fill[i]++] = c;
      if (c >= first && c < end) g.adjncy[fill[c - first]++] = v;
    }
  for (std::int64_t k = 0; k < recv_total; ++k) g.adjncy[fill[recv[2 * k] - first]++] = recv[2 * k + 1];
  recv = {};
  fill = {};
  sort_unique_neighbours(g.xadj, g.adjncy);
  g.weight.resize(static_cast<std::size_t>(n));
  for (global_index_type i = 0; i < n; ++i) g.weight[i] = std::max<offset_type>(1, a.row_ptr[i + 1] - a.row_ptr[i]);
  return g;
}

}  // namespace distspmv::partition::detail
