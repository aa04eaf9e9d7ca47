// The distributed matrix's setup (DESIGN.md §1): load → partition → redistribute → order → halo
// plan, then the local operators (matrix_operators.cpp) and the transport (matrix_summary.cpp);
// construction from a source or CSR rows, and new values for the same pattern. The apply is in
// matrix_apply.cpp.
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <string>

#include "dist/matrix_impl.hpp"

namespace distspmv {

using matrix_detail::gib;
using matrix_detail::require_memory;

using matrix_detail::seconds_since;

namespace {

template <typename To, typename From>
std::vector<To> convert_values(const std::vector<From>& v) {
  return std::vector<To>(v.begin(), v.end());
}

/// MemAvailable of /proc/meminfo (0 where unknown: then no check).
std::size_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(256, '\n');
  }
  return 0;
}

std::size_t host_peak_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::size_t>(u.ru_maxrss) * 1024;  // Linux: KiB
}

}  // namespace

template <typename V>
void distributed_matrix<V>::impl::setup(const caller_slice& slice) {
  collective_try(comm, "read", [&] {
    if (slice.global_rows != slice.global_cols)
      DSPMV_BAD_INPUT("distributed matrix", "shape",
                      "the matrix is " + std::to_string(slice.global_rows) + " x " + std::to_string(slice.global_cols) +
                          "; distributing rows and x the same way needs a square matrix");
  });
  global_rows = slice.global_rows;
  caller_first = slice.first_row;
  caller_rows = slice.rows.rows;
  caller_nnz = slice.rows.nnz();
  exscan_sum(caller_nnz, comm, &global_nnz);

  auto t0 = std::chrono::steady_clock::now();
  const auto parts = assign_parts(comm, slice, options.partition, options.metis_seed);
  times.partition = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  const bool contiguous = options.partition == partitioner::block || ranks == 1;
  owned_rows owned = redistribute(comm, slice, parts, contiguous, map);
  row_offsets = owned.row_offsets;
  owned_nnz = owned.a.nnz();
  times.redistribute = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  reorder_owned_rows(comm, owned, map, order, cuda());
  caller_ids = std::move(owned.caller_ids);
  times.order = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  plan = build_halo_plan(comm, owned, halo_order());
  times.halo_plan = seconds_since(t0);
  n_owned = plan.a_local.rows;
  owned = {};
  build_operators();
  finish_setup(t0);
}

/// Rows stay where they are read (one rank, or the block partition of the read ranges): each
/// rank streams its rows in chunks and splits them (split_rows.hpp), on the GPU for the CUDA
/// backend, where the local block is also built; nothing moves between ranks and the host never
/// holds a copy of the rank's rows.
template <typename V>
void distributed_matrix<V>::impl::setup_in_place(const std::vector<global_index_type>& ranges, global_index_type cols,
                                                 double entries_per_row, const row_reader& read) {
  if (cuda()) reset_device_peak();
  in_place = true;
  times.on_gpu = cuda();
  global_rows = ranges.back();
  collective_try(comm, "read", [&] {
    if (global_rows != cols)
      DSPMV_BAD_INPUT("distributed matrix", "shape",
                      "the matrix is " + std::to_string(global_rows) + " x " + std::to_string(cols) +
                          "; distributing rows and x the same way needs a square matrix");
  });
  const row_range mine{ranges[rank], ranges[rank + 1]};
  row_offsets = ranges;
  caller_first = mine.begin;
  caller_rows = n_owned = mine.size();
  caller_ids.resize(static_cast<std::size_t>(n_owned));
  std::iota(caller_ids.begin(), caller_ids.end(), mine.begin);

  // Chunks of at most setup_chunk_nnz entries and a sixteenth of the rank's rows, so that the two
  // chunks in flight cost the host at most 2 bytes per entry of the rank.
  const auto expected = static_cast<offset_type>(entries_per_row * static_cast<double>(n_owned));
  const offset_type chunk_nnz = std::min(options.setup_chunk_nnz, std::max<offset_type>(offset_type{1} << 20, expected / 16));
  const auto chunks = row_chunks(mine, entries_per_row, chunk_nnz);
  split_options so;
  so.keep_for_update = options.keep_for_update;
  so.nnz_hint = expected;
  collective_try(comm, "read", [&] {
    const double entry = sizeof(V) + sizeof(index_type), n = static_cast<double>(expected),
                 r = static_cast<double>(n_owned), chunk = static_cast<double>(chunk_nnz);
    const std::string advice = "use more ranks (GPUs" + std::string(cuda() ? "" : " or hosts") +
                               "), or --precision float";
    // Two chunks of host CSR in flight (16 bytes per entry) and the per-row plans; the host
    // backend also holds the local block.
    const double host = 2 * chunk * 16 + r * 48 + (cuda() ? 0 : n * entry * (options.keep_for_update ? 2 : 1));
    require_memory(rank, "host memory", "setting up " + std::to_string(expected) + " nonzeros", host,
                   static_cast<double>(host_available_bytes()), advice);
    if (!cuda()) return;
    // The local block (CSR), its row arrays, one chunk's scratch, and the update map if kept.
    const double gpu = n * entry + r * 16 + chunk * (30 + sizeof(V)) + (options.keep_for_update ? n * 5 + r * 8 : 0);
    require_memory(rank, "GPU memory", "the local block of " + std::to_string(expected) + " nonzeros", gpu,
                   static_cast<double>(device_memory().free), advice);
  });
  auto t0 = std::chrono::steady_clock::now();
  if (cuda()) {
    gpu_split<V> s;
    collective_try(comm, "read", [&] { s = split_rows_on_gpu<V>(mine, chunks, read, so); });
    times.read = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    take_halo(std::move(s));
    build_halo_operator();  // before the order: auto's trial times the rank's whole product
    if (order != row_order::none) {
      const auto t_order = std::chrono::steady_clock::now();
      order_in_place(s);
      const auto spent = std::chrono::steady_clock::now() - t_order;
      times.order = std::chrono::duration<double>(spent).count() - kept_build_s;
      t0 += spent;  // (the build phase's clock leaves the order out)
    }
    diagonal = std::move(s.diagonal);
    if (!local) build_local_on_gpu(std::move(s.a_local));  // (the order's trial built the one it kept)
    s.a_local = {};  // handed to the operator; the kept map uses kept_rows and kept_local_nnz
    if (options.keep_for_update) split = std::make_unique<gpu_split<V>>(std::move(s));
  } else {
    host_split<V> s;
    collective_try(comm, "read", [&] { s = split_rows_on_host<V>(mine, chunks, read, so); });
    times.read = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    diagonal = s.diagonal;
    take_halo(std::move(s));
    if (options.keep_for_update) {  // update_values refills the kept block
      split_host = std::make_unique<host_split<V>>(std::move(s));
      build_local_on_host(csr_matrix<V, index_type>(split_host->a_local));
    } else {
      build_local_on_host(std::move(s.a_local));
    }
    build_halo_operator();
  }
  collective_try(comm, "operators", [&] { make_buffers(); });  // GPU buffers: out of memory on one rank
  finish_setup(t0);
}

/// The halo part of a split: the plan's halo block, boundary rows, ghosts and the exchange.
template <typename V>
void distributed_matrix<V>::impl::take_halo(halo_split&& h) {
  times.read_wait = h.read_wait_s;
  times.upload = h.upload_s;
  times.split = h.split_s;
  caller_nnz = owned_nnz = h.nnz;
  exscan_sum(caller_nnz, comm, &global_nnz);
  map.identity = true;
  map.identity_rows = n_owned;
  map.identity_entries = caller_nnz;
  plan.a_halo = std::move(h.a_halo);
  plan.halo_rows = std::move(h.halo_rows);
  plan.ghost_ids = std::move(h.ghost_ids);
  check_local_ids(comm, n_owned, plan.ghost_ids.size());  // as build_halo_plan does
  const auto t0 = std::chrono::steady_clock::now();
  if (order_halo_block(plan, row_offsets, halo_order()) && !options.keep_for_update)
    plan.halo_entry_order = {};  // (only update_values reads it)
  plan_exchange(comm, row_offsets, plan);
  times.halo_plan = seconds_since(t0);
}

/// `--partition auto`, after the in-place setup with the block partition of the read ranges: the
/// halo of x that block sends per apply, against the bytes of the local product it overlaps, and
/// the rule of choose_partitioner (dist/setup/auto_partition.hpp) on these figures. The reason
/// goes into partition_quality().reason.
template <typename V>
partitioner distributed_matrix<V>::impl::auto_choice() {
  const double halo = static_cast<double>(summary.ghosts) * sizeof(V);
  const double local = static_cast<double>(summary.nnz) * (sizeof(V) + sizeof(index_type)) +
                       static_cast<double>(summary.rows) * 2 * sizeof(V);
  const double ratio = local > 0 ? halo / local : (halo > 0 ? 1.0 : 0.0);
  quality.block_halo_ratio = allreduce_max(ratio, comm);
  auto_partition_figures f;
  f.block_halo_ratio = quality.block_halo_ratio;
  f.nnz_imbalance = quality.nnz_imbalance;
  f.cut_fraction = global_nnz > 0 ? static_cast<double>(quality.edge_cut) / static_cast<double>(global_nnz) : 0.0;
  f.global_nnz = global_nnz;
  f.long_row_fraction = long_row_fraction_from_halo();
  f.have_metis = DISTSPMV_HAVE_METIS;
  f.have_ptscotch = DISTSPMV_HAVE_PTSCOTCH;
  const auto choice = choose_partitioner(f);
  quality.method = to_string(choice.method);
  quality.reason = choice.reason;
  return choice.method;
}

/// auto_partition_figures::long_row_fraction, from the halo rows the block setup keeps on the host
/// (the rows themselves may be on the GPU): halo entries in rows with more than 4x the mean halo
/// entries per row, over all halo entries. Where auto looks further (the numbering has no
/// locality, edge cut above 10%), a row's halo entries are a near-uniform sample of its entries,
/// so this estimates the fraction of nonzeros in rows longer than 4x the mean row.
template <typename V>
double distributed_matrix<V>::impl::long_row_fraction_from_halo() {
  const auto totals = allreduce_sum({plan.a_halo.nnz(), static_cast<std::int64_t>(n_owned)}, comm);
  if (totals[0] == 0 || totals[1] == 0) return 0.0;
  const double limit = 4.0 * static_cast<double>(totals[0]) / static_cast<double>(totals[1]);
  std::int64_t in_long_rows = 0;
  for (global_index_type r = 0; r < plan.a_halo.rows; ++r)
    if (static_cast<double>(plan.a_halo.row_length(r)) > limit) in_long_rows += plan.a_halo.row_length(r);
  return static_cast<double>(allreduce_sum({in_long_rows}, comm)[0]) / static_cast<double>(totals[0]);
}

template <typename V>
distributed_matrix<V> distributed_matrix<V>::impl::keep_or_repartition(
    std::unique_ptr<impl> p, const std::function<distributed_matrix(const matrix_options&)>& again) {
  if (p->options.partition != partitioner::automatic || p->ranks == 1) return distributed_matrix(std::move(p));
  const partitioner chosen = p->auto_choice();
  if (chosen == partitioner::block && (p->order == row_order::none || p->ordered_in_place))
    return distributed_matrix(std::move(p));
  // A partitioner pays, or the rows are to be ordered (the block trial kept the read order).
  const partition_summary why = p->quality;
  const std::string order_reason = p->rule_reason;
  matrix_options o = p->options;
  o.partition = chosen;
  o.order = p->rule_order;  // resolved: `auto` is not sampled again (the GPU's trial is per rank)
  p.reset();
  auto m = again(o);
  m.impl_->quality.reason = why.reason;
  m.impl_->quality.block_halo_ratio = why.block_halo_ratio;
  m.impl_->quality.order_reason = m.impl_->order_reason = order_reason;
  return m;
}

template <typename V>
void distributed_matrix<V>::impl::resolve_order(const std::function<locality_sample()>& sample) {
  order = rule_order = options.order;
  if (order != row_order::automatic) return;
  locality_sample mine;
  collective_try(comm, "order", [&] { mine = sample(); });
  order = choose_order(comm, mine, order_reason);
  rule_order = order;
  rule_reason = order_reason;
}

template <typename V>
void distributed_matrix<V>::impl::setup_in_place_from(caller_slice&& slice) {
  const auto firsts = allgather(slice.first_row, comm);
  std::vector<global_index_type> ranges(firsts.begin(), firsts.end());
  ranges.push_back(slice.global_rows);
  const auto rows = std::make_shared<csr_matrix<double>>(std::move(slice.rows));
  const double per_row = rows->rows > 0 ? static_cast<double>(rows->nnz()) / static_cast<double>(rows->rows) : 1.0;
  const global_index_type first = slice.first_row;
  setup_in_place(ranges, slice.global_cols, per_row,
                 [rows, first](row_range r) { return slice_rows(*rows, {r.begin - first, r.end - first}); });
}

template <typename V>
void distributed_matrix<V>::impl::finish_setup(std::chrono::steady_clock::time_point build_start) {
  choose_and_make_transport();
  times.build = seconds_since(build_start) + kept_build_s;  // (the order's trial built the kept operator)
  fill_summaries();
  times.host_peak_bytes = host_peak_bytes();
  if (cuda()) {
    times.gpu_peak_bytes = device_bytes_peak();
    times.gpu_held_bytes = device_bytes_in_use();
    times.gpu_total_bytes = device_memory().total;
  }
}

/// The local operator from the host plan (the host setup path), and the halo operator.
// ---- construction -------------------------------------------------------------------------------

template <typename V>
distributed_matrix<V>::distributed_matrix(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
template <typename V>
distributed_matrix<V>::distributed_matrix(distributed_matrix&&) noexcept = default;
template <typename V>
distributed_matrix<V>& distributed_matrix<V>::operator=(distributed_matrix&&) noexcept = default;
template <typename V>
distributed_matrix<V>::~distributed_matrix() = default;

namespace {

template <typename Impl>
std::unique_ptr<Impl> new_impl(MPI_Comm comm, const matrix_options& options) {
  auto p = std::make_unique<Impl>();
  DSPMV_REQUIRE(comm != MPI_COMM_NULL, "distributed_matrix: the communicator is MPI_COMM_NULL");
  DSPMV_MPI_CHECK(MPI_Comm_dup(comm, &p->comm));
  MPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN);
  p->rank = comm_rank(p->comm);
  p->ranks = comm_size(p->comm);
  p->options = options;
  // Where every rank runs: for the report, the transport's choice and the trials' turns on a GPU
  // that several ranks share (in_gpu_turns).
  p->placement = gather_placement(p->comm, options.where == backend::cuda ? gpu::current_device() : -1);
  return p;
}

}  // namespace

template <typename V>
distributed_matrix<V> distributed_matrix<V>::from_source(MPI_Comm comm, const std::string& source,
                                                         const matrix_options& options) {
  auto p = new_impl<impl>(comm, options);
  io::source_options io_options;
  io_options.allow_nonfinite = options.allow_nonfinite;
  io_options.h5_group = options.h5_group;
  io_options.seed = options.generator_seed;
  io::source_format format{};
  collective_try(p->comm, "read", [&] { format = io::detect_format(source); });
  // Matrix Market files have no row index: every rank parses the whole file and keeps its slice,
  // whichever path follows.
  std::unique_ptr<caller_slice> slice;
  double load_s = 0;
  if (format == io::source_format::matrix_market) {
    const auto t0 = std::chrono::steady_clock::now();
    slice = std::make_unique<caller_slice>(load_slice(p->comm, source, io_options));
    load_s = seconds_since(t0);
  }
  std::vector<global_index_type> sampled;  // `--order auto` samples the first rows of each rank's range
  if (options.order == row_order::automatic && !slice) sampled = source_row_ranges(p->comm, source, io_options);
  p->resolve_order([&] {
    if (slice) return sample_locality(slice->rows, slice->first_row, slice->global_rows);
    const row_range first{sampled[p->rank],
                          std::min(sampled[p->rank + 1], sampled[p->rank] + locality_sample::sample_rows)};
    return sample_locality(io::read_matrix_rows(source, first, io_options), first.begin, sampled.back());
  });
  // Where no row changes rank, files with a row index and generators are read in chunks and
  // split in place; Matrix Market files are split from the rank's slice.
  if (p->in_place_setup()) {
    if (!slice) {
      const auto ranges = source_row_ranges(p->comm, source, io_options);
      io::source_info info;
      collective_try(p->comm, "read", [&] { info = io::describe_source(source, io_options); });
      const double per_row = info.rows > 0 ? static_cast<double>(info.nnz) / static_cast<double>(info.rows) : 1.0;
      p->setup_in_place(ranges, info.cols, per_row,
                        [&](row_range r) { return io::read_matrix_rows(source, r, io_options); });
    } else {
      p->setup_in_place_from(std::move(*slice));
      p->times.read += load_s;
    }
    return impl::keep_or_repartition(std::move(p), [&](const matrix_options& o) { return from_source(comm, source, o); });
  }
  if (!slice) {
    const auto t0 = std::chrono::steady_clock::now();
    slice = std::make_unique<caller_slice>(load_slice(p->comm, source, io_options));
    load_s = seconds_since(t0);
  }
  p->times.read = load_s;
  p->setup(*slice);
  return distributed_matrix(std::move(p));
}

template <typename V>
distributed_matrix<V> distributed_matrix<V>::from_csr(MPI_Comm comm, global_index_type global_rows,
                                                      global_index_type first_row, global_index_type rows,
                                                      const offset_type* row_ptr, const global_index_type* col_ids,
                                                      const V* values, memory_space space,
                                                      const matrix_options& options) {
  auto p = new_impl<impl>(comm, options);
  const std::string who = "distributed_matrix::from_csr (rank " + std::to_string(p->rank) + ")";
  const auto again = [&](const matrix_options& o) {
    return from_csr(comm, global_rows, first_row, rows, row_ptr, col_ids, values, space, o);
  };
  caller_slice slice;
  slice.global_rows = slice.global_cols = global_rows;
  slice.first_row = first_row;
  collective_try(p->comm, "read", [&] {
    if (global_rows < 0 || rows < 0 || first_row < 0)
      DSPMV_BAD_INPUT(who, "sizes", "negative global_rows, first_row or rows");
    if (rows > 0 && row_ptr == nullptr) DSPMV_BAD_INPUT(who, "row_ptr", "null pointer");
  });
  std::int64_t total = 0;
  const std::int64_t before = exscan_sum(rows, p->comm, &total);
  collective_try(p->comm, "read", [&] {
    if (before != first_row || total != global_rows)
      DSPMV_BAD_INPUT(who, "first_row",
                      "ranks must pass consecutive row ranges covering [0, global_rows): this rank starts at " +
                          std::to_string(first_row) + " but the ranks before it hold " + std::to_string(before) +
                          " rows, and all ranks together hold " + std::to_string(total) + " of " +
                          std::to_string(global_rows));
  });
  if (space == memory_space::host) {
    // `--order auto` on the first rows of the caller's arrays, once their row pointer is known to
    // be sane (the full validation comes with the setup).
    p->resolve_order([&] {
      const global_index_type m = std::min(rows, locality_sample::sample_rows);
      csr_matrix<double> sample;
      if (m == 0 || row_ptr == nullptr || row_ptr[0] != 0) return locality_sample{};
      for (global_index_type i = 0; i < m; ++i)
        if (row_ptr[i + 1] < row_ptr[i]) return locality_sample{};
      if (row_ptr[m] > 0 && col_ids == nullptr) return locality_sample{};
      sample.rows = m;
      sample.cols = global_rows;
      sample.row_ptr.assign(row_ptr, row_ptr + m + 1);
      sample.col_idx.assign(col_ids, col_ids + row_ptr[m]);
      return sample_locality(sample, first_row, global_rows);
    });
  }
  if (p->in_place_setup() && space == memory_space::host) {
    // No row moves: the caller's arrays are read in chunks (checked chunk by chunk) and split in
    // place, without a host copy of the rows. (Device arrays take the path below: a reader
    // thread must not touch another GPU's context.)
    collective_try(p->comm, "read", [&] {
      if (rows > 0 && row_ptr[0] != 0)
        DSPMV_BAD_INPUT(who, "row_ptr", "row_ptr[0] is " + std::to_string(row_ptr[0]) + ", not 0");
      const offset_type nnz = rows > 0 ? row_ptr[rows] : 0;
      if (nnz > 0 && (col_ids == nullptr || values == nullptr))
        DSPMV_BAD_INPUT(who, col_ids == nullptr ? "col_ids" : "values", "null pointer");
    });
    const auto ranges = allgather(first_row, p->comm);
    std::vector<global_index_type> b(ranges.begin(), ranges.end());
    b.push_back(global_rows);
    const offset_type nnz = rows > 0 ? row_ptr[rows] : 0;
    const double per_row = rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 1.0;
    const bool nonfinite = options.allow_nonfinite;
    p->setup_in_place(b, global_rows, per_row, [=](row_range r) {
      csr_matrix<double> c;
      c.rows = r.size();
      c.cols = global_rows;
      const global_index_type i0 = r.begin - first_row;
      const offset_type base = row_ptr[i0], end = row_ptr[i0 + c.rows];
      c.row_ptr.resize(static_cast<std::size_t>(c.rows) + 1);
      for (global_index_type i = 0; i <= c.rows; ++i) c.row_ptr[i] = row_ptr[i0 + i] - base;
      if (end >= base) {
        c.col_idx.assign(col_ids + base, col_ids + end);
        c.values.assign(values + base, values + end);
      }
      validate_csr(c, who + ": rows " + std::to_string(r.begin) + ".." + std::to_string(r.end - 1) +
                          " (row numbers below count from " + std::to_string(r.begin) + ")",
                   nonfinite);
      return c;
    });
    return impl::keep_or_repartition(std::move(p), again);
  }
  // Copy the caller's arrays to host memory (device arrays are downloaded).
  auto fetch = [&](auto* dst, const auto* src, std::size_t n) {
    if (n == 0) return;
    if (space == memory_space::device)
      copy_to_host(dst, src, n * sizeof(*src));
    else
      std::copy(src, src + n, dst);
  };
  auto& a = slice.rows;
  a.rows = rows;
  a.cols = global_rows;
  collective_try(p->comm, "read", [&] {
    a.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
    fetch(a.row_ptr.data(), row_ptr, static_cast<std::size_t>(rows) + 1);
    if (rows == 0 && row_ptr == nullptr) a.row_ptr = {0};
    if (a.row_ptr[0] != 0) DSPMV_BAD_INPUT(who, "row_ptr", "row_ptr[0] is " + std::to_string(a.row_ptr[0]) + ", not 0");
    const offset_type nnz = a.row_ptr.back();
    if (nnz < 0) DSPMV_BAD_INPUT(who, "row_ptr", "negative entry count");
    if (nnz > 0 && (col_ids == nullptr || values == nullptr))
      DSPMV_BAD_INPUT(who, col_ids == nullptr ? "col_ids" : "values", "null pointer");
    a.col_idx.resize(static_cast<std::size_t>(nnz));
    fetch(a.col_idx.data(), col_ids, static_cast<std::size_t>(nnz));
    std::vector<V> v(static_cast<std::size_t>(nnz));
    fetch(v.data(), values, v.size());
    a.values = convert_values<double>(v);
    validate_csr(a, who, options.allow_nonfinite);
  });
  if (space == memory_space::device)
    p->resolve_order([&] { return sample_locality(slice.rows, slice.first_row, global_rows); });
  if (p->in_place_setup()) {  // device arrays (or a copy made anyway): split in place from the copy
    p->setup_in_place_from(std::move(slice));
    return impl::keep_or_repartition(std::move(p), again);
  }
  p->setup(slice);
  return distributed_matrix(std::move(p));
}

// ---- new values ------------------------------------------------------------------------------------

template <typename V>
void distributed_matrix<V>::update_values(const V* values, memory_space space) {
  auto& m = *impl_;
  m.forget_graphs();  // they hold the operators' pointers
  if (m.in_place) {
    // Entries in the caller's order are the read order: split them with the kept flags.
    collective_try(m.comm, "update values", [&] {
      DSPMV_REQUIRE(m.caller_nnz == 0 || values != nullptr, "distributed_matrix::update_values: values is a null pointer");
      DSPMV_REQUIRE(m.split != nullptr || m.split_host != nullptr,
                    "distributed_matrix::update_values: this matrix was set up with keep_for_update = false "
                    "(matrix_options), so no map of its entries was kept; set it up with keep_for_update = true");
    });
    if (m.split) {
      device_csr<V> a;
      collective_try(m.comm, "update values",
                     [&] { a = split_values_on_gpu(*m.split, values, space == memory_space::device, m.plan.a_halo); });
      m.diagonal = diagonal_on_gpu(a.view());
      m.build_local_on_gpu(std::move(a));
    } else {
      std::vector<V> host_values;
      if (space == memory_space::device) {
        host_values.resize(static_cast<std::size_t>(m.caller_nnz));
        collective_try(m.comm, "update values",
                       [&] { copy_to_host(host_values.data(), values, host_values.size() * sizeof(V)); });
        values = host_values.data();
      }
      split_values_on_host(*m.split_host, values, m.plan.a_halo);
      m.diagonal = m.split_host->diagonal;
      m.build_local_on_host(csr_matrix<V, index_type>(m.split_host->a_local));
    }
    reorder_halo_values(m.plan);  // (the refills write the split's layout)
    m.build_halo_operator();
    return;
  }
  std::vector<V> caller(static_cast<std::size_t>(m.caller_nnz));
  collective_try(m.comm, "update values", [&] {
    DSPMV_REQUIRE(caller.empty() || values != nullptr, "distributed_matrix::update_values: values is a null pointer");
    if (caller.empty()) return;
    if (space == memory_space::device)
      copy_to_host(caller.data(), values, caller.size() * sizeof(V));
    else
      std::copy(values, values + caller.size(), caller.begin());
  });
  std::vector<V> owned(static_cast<std::size_t>(m.owned_nnz));
  entries_to_partitioned(m.map, caller.data(), owned.data(), m.comm);
  scatter_values(convert_values<double>(owned), m.plan);
  reorder_halo_values(m.plan);
  m.build_operators();  // same formats, new values; the buffers stay
}

// The members defined in this file; matrix_operators.cpp, matrix_apply.cpp and matrix_summary.cpp
// instantiate theirs.
template class distributed_matrix<double>;
template class distributed_matrix<float>;

}  // namespace distspmv
