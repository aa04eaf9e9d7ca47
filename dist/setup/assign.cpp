#include "dist/setup/assign.hpp"

#include <algorithm>
#include <numeric>

#include "common/errors.hpp"
#include "dist/setup/mpi_util.hpp"
#include "partition/partition.hpp"

namespace distspmv::dist {
namespace {

/// Block partition from this rank's nonzero prefix: a row goes to the part in which the middle of
/// its entries falls, so parts are contiguous and balanced to within one row.
std::vector<int> block_parts(MPI_Comm comm, const caller_slice& s) {
  const int p = comm_size(comm);
  std::int64_t total = 0;
  const std::int64_t before = exscan_sum(s.rows.nnz(), comm, &total);
  std::vector<int> part(static_cast<std::size_t>(s.rows.rows));
  for (global_index_type i = 0; i < s.rows.rows; ++i) {
    std::int64_t q;
    if (total > 0) {
      const std::int64_t mid = before + s.rows.row_ptr[i] + s.rows.row_length(i) / 2;
      q = mid * p / total;
    } else {
      q = (s.first_row + i) * p / std::max<global_index_type>(1, s.global_rows);
    }
    part[i] = static_cast<int>(std::min<std::int64_t>(p - 1, q));
  }
  return part;
}

/// METIS on rank 0 over the gathered pattern; parts scattered back to the loading ranks.
std::vector<int> metis_parts(MPI_Comm comm, const caller_slice& s, int seed) {
  const int p = comm_size(comm), me = comm_rank(comm);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(s.rows.rows));
  for (global_index_type i = 0; i < s.rows.rows; ++i) lengths[i] = s.rows.row_length(i);
  auto all_lengths = gatherv(lengths, 0, comm);
  auto all_cols = gatherv(s.rows.col_idx, 0, comm);
  const auto rows_per_rank = allgather(s.rows.rows, comm);

  std::vector<int> all_parts;
  collective_try(comm, "partition", [&] {
    if (me != 0) return;
    csr_matrix<double> pattern;  // values are not needed by the graph
    pattern.rows = pattern.cols = s.global_rows;
    pattern.row_ptr.assign(all_lengths.size() + 1, 0);
    std::partial_sum(all_lengths.begin(), all_lengths.end(), pattern.row_ptr.begin() + 1);
    pattern.col_idx = std::move(all_cols);
    const auto g = partition::symmetrised_graph(pattern);
    pattern = {};
    all_parts = partition::partition_metis(g, p, seed);
  });
  std::vector<std::int64_t> send_counts(p, 0), recv_counts(p, 0);
  if (me == 0) send_counts = rows_per_rank;
  recv_counts[0] = s.rows.rows;
  std::vector<int> mine(static_cast<std::size_t>(s.rows.rows));
  alltoallv_known(all_parts.data(), send_counts, mine.data(), recv_counts, comm);
  return mine;
}

}  // namespace

std::vector<int> assign_parts(MPI_Comm comm, const caller_slice& slice, partitioner method, int seed) {
  if (method == partitioner::block || comm_size(comm) == 1) return block_parts(comm, slice);
  if (method == partitioner::ptscotch || method == partitioner::lp) {
    // Their failures are agreed inside already (every rank throws the same); this marks them so.
    std::vector<int> parts;
    collective_try(comm, "partition", [&] {
      parts = method == partitioner::ptscotch
                  ? partition::partition_ptscotch(comm, slice.first_row, slice.rows, slice.global_rows,
                                                  comm_size(comm), seed)
                  : partition::partition_label_propagation(comm, slice.first_row, slice.rows, slice.global_rows,
                                                           comm_size(comm), seed);
    });
    return parts;
  }
  return metis_parts(comm, slice, seed);
}

owned_rows redistribute(MPI_Comm comm, const caller_slice& s, const std::vector<int>& parts, bool contiguous_parts,
                        layout_map& map) {
  const int p = comm_size(comm), me = comm_rank(comm);
  const global_index_type n = s.rows.rows;
  const auto& a = s.rows;

  // New ids: parts in rank order; within a part, rows in caller order.
  std::vector<std::int64_t> count(p, 0);
  for (int q : parts) ++count[q];
  const auto part_size = allreduce_sum(count, comm);
  std::vector<std::int64_t> before(p, 0);
  DSPMV_MPI_CHECK(MPI_Exscan(count.data(), before.data(), p, MPI_INT64_T, MPI_SUM, comm));
  if (me == 0) std::fill(before.begin(), before.end(), 0);
  owned_rows out;
  out.row_offsets.assign(p + 1, 0);
  for (int q = 0; q < p; ++q) out.row_offsets[q + 1] = out.row_offsets[q] + part_size[q];
  std::vector<global_index_type> new_id(static_cast<std::size_t>(n));
  {
    std::vector<std::int64_t> next(p);
    for (int q = 0; q < p; ++q) next[q] = out.row_offsets[q] + before[q];
    for (global_index_type i = 0; i < n; ++i) new_id[i] = next[parts[i]]++;
  }

  // Rows grouped by destination (a stable counting sort keeps the caller order within a group).
  map.row_send_counts = count;
  map.row_send_order.resize(static_cast<std::size_t>(n));
  map.entry_send_counts.assign(p, 0);
  {
    std::vector<std::int64_t> pos(p, 0);
    for (int q = 1; q < p; ++q) pos[q] = pos[q - 1] + count[q - 1];
    for (global_index_type i = 0; i < n; ++i) {
      map.row_send_order[pos[parts[i]]++] = i;
      map.entry_send_counts[parts[i]] += a.row_length(i);
    }
  }
  map.caller_row_ptr = a.row_ptr;

  std::vector<std::int64_t> headers;  // per row: new id, caller id, length
  headers.reserve(3 * static_cast<std::size_t>(n));
  std::vector<global_index_type> cols;
  std::vector<double> vals;
  cols.reserve(a.col_idx.size());
  vals.reserve(a.values.size());
  for (global_index_type i : map.row_send_order) {
    headers.insert(headers.end(), {new_id[i], s.first_row + i, a.row_length(i)});
    cols.insert(cols.end(), a.col_idx.begin() + a.row_ptr[i], a.col_idx.begin() + a.row_ptr[i + 1]);
    vals.insert(vals.end(), a.values.begin() + a.row_ptr[i], a.values.begin() + a.row_ptr[i + 1]);
  }
  std::vector<std::int64_t> header_counts(p);
  for (int q = 0; q < p; ++q) header_counts[q] = 3 * count[q];
  const auto recv_headers = alltoallv(headers, header_counts, nullptr, comm);
  headers = {};
  auto recv_cols = alltoallv(cols, map.entry_send_counts, &map.entry_recv_counts, comm);
  cols = {};
  auto recv_vals = alltoallv(vals, map.entry_send_counts, nullptr, comm);
  vals = {};
  map.row_recv_counts.resize(p);
  DSPMV_MPI_CHECK(MPI_Alltoall(count.data(), 1, MPI_INT64_T, map.row_recv_counts.data(), 1, MPI_INT64_T, comm));

  // Place received rows at their owned positions (the owner's copy of its rows: agreed, so that
  // running out of memory on one rank fails every rank).
  const global_index_type first = out.row_offsets[me];
  const global_index_type owned = out.row_offsets[me + 1] - first;
  auto& o = out.a;
  collective_try(comm, "redistribute", [&] {
    const std::size_t received = recv_headers.size() / 3;
    map.row_recv_pos.resize(received);
    out.caller_ids.assign(static_cast<std::size_t>(owned), -1);
    std::vector<offset_type> length(static_cast<std::size_t>(owned), 0);
    for (std::size_t k = 0; k < received; ++k) {
      const global_index_type pos = recv_headers[3 * k] - first;
      map.row_recv_pos[k] = pos;
      out.caller_ids[pos] = recv_headers[3 * k + 1];
      length[pos] = recv_headers[3 * k + 2];
    }
    o.rows = owned;
    o.cols = s.global_cols;
    o.row_ptr.assign(static_cast<std::size_t>(owned) + 1, 0);
    std::partial_sum(length.begin(), length.end(), o.row_ptr.begin() + 1);
    o.col_idx.resize(recv_cols.size());
    o.values.resize(recv_vals.size());
    map.entry_recv_pos.resize(recv_cols.size());
    offset_type k = 0;
    for (std::size_t r = 0; r < received; ++r) {
      const global_index_type pos = map.row_recv_pos[r];
      for (offset_type e = o.row_ptr[pos]; e < o.row_ptr[pos + 1]; ++e, ++k) {
        o.col_idx[e] = recv_cols[k];
        o.values[e] = recv_vals[k];
        map.entry_recv_pos[k] = e;
      }
    }
    recv_vals = {};
  });

  if (!contiguous_parts) {
    // Columns still carry caller ids: ask each column's loading rank for its new id.
    const auto load_first = allgather(s.first_row, comm);
    std::vector<global_index_type> distinct(recv_cols.begin(), recv_cols.end());
    recv_cols = {};
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<std::int64_t> ask_counts(p, 0);
    for (global_index_type c : distinct) {
      const int q = static_cast<int>(std::upper_bound(load_first.begin(), load_first.end(), c) - load_first.begin()) - 1;
      ++ask_counts[q];
    }
    std::vector<std::int64_t> asked_counts;
    auto asked = alltoallv(distinct, ask_counts, &asked_counts, comm);
    for (auto& c : asked) c = new_id[c - s.first_row];
    std::vector<global_index_type> answers(distinct.size());
    alltoallv_known(asked.data(), asked_counts, answers.data(), ask_counts, comm);
    for (auto& c : o.col_idx) c = answers[std::lower_bound(distinct.begin(), distinct.end(), c) - distinct.begin()];

    // Sort each row by its new columns, carrying values and the entry map along.
    std::vector<offset_type> where(o.col_idx.size());  // old position → new position
    std::vector<offset_type> order;
    std::vector<global_index_type> c_tmp;
    std::vector<double> v_tmp;
    for (global_index_type r = 0; r < owned; ++r) {
      const offset_type b = o.row_ptr[r], e = o.row_ptr[r + 1];
      order.resize(static_cast<std::size_t>(e - b));
      std::iota(order.begin(), order.end(), b);
      std::sort(order.begin(), order.end(), [&](offset_type x, offset_type y) { return o.col_idx[x] < o.col_idx[y]; });
      c_tmp.resize(order.size());
      v_tmp.resize(order.size());
      for (std::size_t k = 0; k < order.size(); ++k) {
        c_tmp[k] = o.col_idx[order[k]];
        v_tmp[k] = o.values[order[k]];
        where[order[k]] = b + static_cast<offset_type>(k);
      }
      std::copy(c_tmp.begin(), c_tmp.end(), o.col_idx.begin() + b);
      std::copy(v_tmp.begin(), v_tmp.end(), o.values.begin() + b);
    }
    for (auto& pos : map.entry_recv_pos) pos = where[pos];
  }
  return out;
}

template <typename T>
void rows_to_partitioned(const layout_map& map, const T* caller, T* owned, MPI_Comm comm) {
  if (map.identity) {
    if (map.local_new_pos.empty())
      std::copy(caller, caller + map.identity_rows, owned);
    else
      for (std::size_t i = 0; i < map.local_new_pos.size(); ++i) owned[map.local_new_pos[i]] = caller[i];
    return;
  }
  std::vector<T> send(map.row_send_order.size()), recv(map.row_recv_pos.size());
  for (std::size_t k = 0; k < send.size(); ++k) send[k] = caller[map.row_send_order[k]];
  alltoallv_known(send.data(), map.row_send_counts, recv.data(), map.row_recv_counts, comm);
  for (std::size_t k = 0; k < recv.size(); ++k) owned[map.row_recv_pos[k]] = recv[k];
}

template <typename T>
void rows_from_partitioned(const layout_map& map, const T* owned, T* caller, MPI_Comm comm) {
  if (map.identity) {
    if (map.local_new_pos.empty())
      std::copy(owned, owned + map.identity_rows, caller);
    else
      for (std::size_t i = 0; i < map.local_new_pos.size(); ++i) caller[i] = owned[map.local_new_pos[i]];
    return;
  }
  std::vector<T> send(map.row_recv_pos.size()), recv(map.row_send_order.size());
  for (std::size_t k = 0; k < send.size(); ++k) send[k] = owned[map.row_recv_pos[k]];
  alltoallv_known(send.data(), map.row_recv_counts, recv.data(), map.row_send_counts, comm);
  for (std::size_t k = 0; k < recv.size(); ++k) caller[map.row_send_order[k]] = recv[k];
}

template <typename T>
void entries_to_partitioned(const layout_map& map, const T* caller, T* owned, MPI_Comm comm) {
  if (map.identity) {
    DSPMV_REQUIRE(map.local_new_pos.empty(), "entries_to_partitioned: rows ordered in place keep their own entry map");
    std::copy(caller, caller + map.identity_entries, owned);
    return;
  }
  std::vector<T> send;
  send.reserve(map.caller_row_ptr.empty() ? 0 : static_cast<std::size_t>(map.caller_row_ptr.back()));
  for (global_index_type i : map.row_send_order)
    send.insert(send.end(), caller + map.caller_row_ptr[i], caller + map.caller_row_ptr[i + 1]);
  std::vector<T> recv(map.entry_recv_pos.size());
  alltoallv_known(send.data(), map.entry_send_counts, recv.data(), map.entry_recv_counts, comm);
  for (std::size_t k = 0; k < recv.size(); ++k) owned[map.entry_recv_pos[k]] = recv[k];
}

#define DSPMV_INSTANTIATE(T)                                                                        \
  template void rows_to_partitioned(const layout_map&, const T*, T*, MPI_Comm);                     \
  template void rows_from_partitioned(const layout_map&, const T*, T*, MPI_Comm);                   \
  template void entries_to_partitioned(const layout_map&, const T*, T*, MPI_Comm);
DSPMV_INSTANTIATE(double)
DSPMV_INSTANTIATE(float)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv::dist
