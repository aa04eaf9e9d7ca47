// The distributed matrix: setup (load → partition → redistribute → halo plan → local operators
// → transport) and the overlapped apply of DESIGN.md §1.
#include "dist/distributed_matrix.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "dist/gpu.hpp"
#include "dist/halo_host.hpp"
#include "dist/setup/assign.hpp"
#include "dist/setup/auto_partition.hpp"
#include "dist/setup/halo_plan.hpp"
#include "dist/setup/load.hpp"
#include "dist/setup/mpi_util.hpp"
#include "dist/setup/order.hpp"
#include "dist/setup/split_rows.hpp"
#include "dist/transport/transport.hpp"
#include "dist/watchdog.hpp"
#include "distspmv/config.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/format_registry.hpp"
#include "local_kernels/format_selector.hpp"

namespace distspmv {

using namespace dist;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

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

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

/// Out of memory is bad input (DESIGN.md §11): one line naming the rank, the bytes needed and
/// free, and what to do, before the allocation that would fail.
void require_memory(int rank, const char* where, const std::string& what, double needed, double available,
                    const std::string& advice) {
  if (available <= 0 || needed <= available) return;
  DSPMV_BAD_INPUT("rank " + std::to_string(rank), where,
                  what + " needs about " + gib(needed) + ", " + gib(available) + " available; " + advice);
}

/// The ranks this rank sends to or receives from, sorted, once each.
std::vector<int> neighbour_ranks(const halo_pattern& pattern) {
  std::vector<int> peers(pattern.send_ranks);
  peers.insert(peers.end(), pattern.recv_ranks.begin(), pattern.recv_ranks.end());
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  return peers;
}

std::size_t host_peak_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::size_t>(u.ru_maxrss) * 1024;  // Linux: KiB
}

}  // namespace

template <typename V>
struct distributed_matrix<V>::impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, ranks = 1;
  matrix_options options;
  global_index_type global_rows = 0;
  offset_type global_nnz = 0;
  global_index_type caller_first = 0, caller_rows = 0;
  offset_type caller_nnz = 0, owned_nnz = 0;
  std::vector<global_index_type> row_offsets, caller_ids;
  global_index_type n_owned = 0;
  layout_map map;
  halo_plan plan;
  /// Rows split where they were read (split_rows.hpp): what update_values needs
  /// (keep_for_update), else null.
  std::unique_ptr<gpu_split<V>> split;
  std::unique_ptr<host_split<V>> split_host;
  bool in_place = false;
  std::unique_ptr<local_operator<V>> local;
  /// A_halo: boundary rows x ghost columns, in the registry's adaptive CSR (it splits very long
  /// rows, which power-law matrices have). Its product lands in halo_t, then y[halo_rows] += halo_t.
  std::unique_ptr<local_operator<V>> halo;
  /// On the CUDA backend, when no halo row is longer than short_halo_row (meshes), A_halo is kept
  /// as plain device CSR instead, one thread per row (gpu::halo_product). Either way its product
  /// runs on the comm stream beside the local SpMV, and only the scatter follows it. Fused with
  /// the scatter after the local SpMV (revisions up to 8d3a0a1), the product's chain of dependent
  /// loads took 6.4 us (block) and 8.2 us (METIS) of every apply of gen:stencil27:200 on 2 GPUs
  /// (ncu, H200; jobs/results/2026-11-26_h200x2_halo).
  static constexpr offset_type short_halo_row = 32;
  device_storage short_storage;
  gpu::halo_csr<V> short_halo;

  // Index lists and exchange buffers: host vectors or device copies, made once.
  std::vector<V> host_send, host_ghost, host_t;
  device_storage device;
  bool buffers_made = false;
  const index_type* halo_rows = nullptr;
  const index_type* send_idx = nullptr;
  V* send_buf = nullptr;
  V* ghost_buf = nullptr;
  V* halo_t = nullptr;

  transport_choice choice;
  std::unique_ptr<halo_transport<V>> transport;
  watchdog::registration watched;  ///< the transport, as the halo watchdog sees it
  /// DISTSPMV_FAULT_STOP_AFTER on this rank (tests of the watchdog): applies before it stops, or -1.
  long fault_stop_after = -1;
  long applies = 0;
  gpu::stream_ptr comm_stream;
  /// Transports that pack themselves and signal from the GPU (peer-put) pack on put_stream, so
  /// that the comm stream's halo kernel is already waiting on the flags when they rise.
  gpu::stream_ptr put_stream;
  gpu::event_ptr start_event, halo_event, done_event, put_event;

  /// CUDA graphs of the apply (matrix_options::cuda_graphs): an apply that repeats the previous
  /// one's x, y, alpha and beta is captured once and launched as one graph from then on. The
  /// graphs kept, most recently used first; they hold the operators' pointers, so any rebuild
  /// (update_values) forgets them.
  struct graph_key {
    const V* x = nullptr;
    V* y = nullptr;
    V alpha = 0, beta = 0;
    bool operator==(const graph_key& o) const { return x == o.x && y == o.y && alpha == o.alpha && beta == o.beta; }
  };
  static constexpr std::size_t max_graphs = 4;
  std::vector<std::pair<graph_key, gpu::graph_ptr>> graphs;
  std::optional<graph_key> last_key;
  bool capturing = false;        ///< apply_device runs under capture (its work does not run)
  bool graphs_refused = false;   ///< a capture failed: every apply runs eagerly from then on
  long graph_launches = 0;
  gpu::stream_ptr capture_stream;
  gpu::device_ptr stage_x, stage_y;  // for host vectors on the CUDA backend, made on first use

  rank_summary summary;
  partition_summary quality;
  setup_times times;
  std::vector<rank_placement> placement;
  mpi_facts mpi;
  std::vector<V> diagonal;

  ~impl() {
    watched = {};
    graphs.clear();     // before the transport: ncclCommDestroy waits for the graphs that captured it
    transport.reset();  // before the communicator it was built on
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  bool cuda() const { return options.where == backend::cuda; }
  /// No row changes rank: the rows are split where they are read (split_rows.hpp), on the GPU
  /// for the CUDA backend.
  bool rows_stay() const {
    return ranks == 1 || options.partition == partitioner::block || options.partition == partitioner::automatic;
  }
  /// The row order in use (`auto` resolved by resolve_order) and why.
  row_order order = row_order::none;
  std::string order_reason = "requested";
  /// Set up in place (split where read, on the GPU for the CUDA backend). An ordering renumbers
  /// rows after they reach their owner, which the in-place split does not do: it takes the host
  /// path, except for the block trial of `--partition auto` on several ranks, whose matrix is set
  /// up again with the ordering (keep_or_repartition).
  bool in_place_setup() const {
    return rows_stay() &&
           (order == row_order::none || (options.partition == partitioner::automatic && ranks > 1));
  }
  /// `--order auto` from a sample of this rank's caller rows (collective); other orders as given.
  void resolve_order(const std::function<locality_sample()>& sample);
  /// `--partition auto` after the block setup: block (keep it), metis, ptscotch or lp.
  partitioner auto_choice();
  double long_row_fraction_from_halo();
  /// The end of an in-place setup: the matrix, or under `--partition auto` where a partitioner
  /// pays, the matrix set up again by `again` with it (the block setup's memory is freed first).
  static distributed_matrix keep_or_repartition(std::unique_ptr<impl> p,
                                                const std::function<distributed_matrix(const matrix_options&)>& again);
  /// The in-place setup from rows already in host memory (Matrix Market, device arrays of from_csr).
  void setup_in_place_from(caller_slice&& slice);
  bool exchanges() const { return plan.pattern.send_total() > 0 || plan.pattern.recv_total() > 0; }

  void setup(const caller_slice& slice);
  void setup_in_place(const std::vector<global_index_type>& ranges, global_index_type cols, double entries_per_row,
                      const row_reader& read);
  void take_halo(halo_split&& h);
  void finish_setup(std::chrono::steady_clock::time_point build_start);
  void build_operators();
  void build_local_on_gpu(device_csr<V>&& a);
  void build_local_on_host(csr_matrix<V, index_type>&& a);
  /// What the local block's build is asked (float values in mixed precision).
  build_options local_build_options() const { return build_options{options.float_values}; }
  void build_halo_operator();
  void make_buffers();
  void halo_multiply(V alpha, cuda_stream_t stream, const gpu::ready_flags* wait = nullptr);
  void halo_finish(V* y, cuda_stream_t stream);
  void choose_and_make_transport();
  void fill_summaries();

  void exchange_device_enqueue(const V* x);
  void join_exchange(cuda_stream_t stream);
  void follow_caller(cuda_stream_t s);
  void join_put(cuda_stream_t stream);
  void exchange_host_begin(const V* x);
  void apply_device(V alpha, const V* x, V beta, V* y, cuda_stream_t stream, bool exchange);
  bool graphs_on() const {
    return cuda() && options.cuda_graphs && !graphs_refused && (!exchanges() || transport->capturable());
  }
  std::string graphs_state() const;
  bool launch_graph(V alpha, const V* x, V beta, V* y, cuda_stream_t stream);
  void forget_graphs() {
    graphs.clear();
    last_key.reset();
  }
  void apply_host(V alpha, const V* x, V beta, V* y, bool exchange);
};

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
  reorder_owned_rows(comm, owned, map, order);
  caller_ids = std::move(owned.caller_ids);
  times.order = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  plan = build_halo_plan(comm, owned);
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
    diagonal = std::move(s.diagonal);
    take_halo(std::move(s));
    build_local_on_gpu(std::move(s.a_local));
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
  }
  build_halo_operator();
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
  plan_exchange(comm, row_offsets, plan);
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
  if (chosen == partitioner::block && p->order == row_order::none) return distributed_matrix(std::move(p));
  // A partitioner pays, or the rows are to be ordered (the block trial kept the read order).
  const partition_summary why = p->quality;
  const std::string order_reason = p->order_reason;
  matrix_options o = p->options;
  o.partition = chosen;
  o.order = p->order;  // resolved: `auto` is not sampled again
  p.reset();
  auto m = again(o);
  m.impl_->quality.reason = why.reason;
  m.impl_->quality.block_halo_ratio = why.block_halo_ratio;
  m.impl_->quality.order_reason = m.impl_->order_reason = order_reason;
  return m;
}

template <typename V>
void distributed_matrix<V>::impl::resolve_order(const std::function<locality_sample()>& sample) {
  order = options.order;
  if (order != row_order::automatic) return;
  locality_sample mine;
  collective_try(comm, "order", [&] { mine = sample(); });
  order = choose_order(comm, mine, order_reason);
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
  times.build = seconds_since(build_start);
  fill_summaries();
  times.host_peak_bytes = host_peak_bytes();
  if (cuda()) {
    times.gpu_peak_bytes = device_bytes_peak();
    times.gpu_held_bytes = device_bytes_in_use();
    times.gpu_total_bytes = device_memory().total;
  }
}

/// The local operator from the host plan (the host setup path), and the halo operator.
template <typename V>
void distributed_matrix<V>::impl::build_operators() {
  auto a_local = convert_csr<V, index_type>(plan.a_local);
  diagonal.assign(static_cast<std::size_t>(a_local.rows), V(0));
  for (global_index_type r = 0; r < a_local.rows; ++r)
    for (offset_type k = a_local.row_ptr[r]; k < a_local.row_ptr[r + 1]; ++k)
      if (a_local.col_idx[k] == r) diagonal[r] = a_local.values[k];
  if (cuda()) {
    device_csr<V> d;
    collective_try(comm, "operators", [&] { d = upload_csr(a_local); });
    a_local = {};
    build_local_on_gpu(std::move(d));
  } else {
    build_local_on_host(std::move(a_local));
  }
  build_halo_operator();
  collective_try(comm, "operators", [&] { make_buffers(); });  // GPU buffers: out of memory on one rank
}

/// The local operator on the host backend, taking the block's arrays over.
template <typename V>
void distributed_matrix<V>::impl::build_local_on_host(csr_matrix<V, index_type>&& a) {
  std::string format = options.format, reason = "requested";
  if (summary.format.empty() && format == "auto") {
    const auto choice = select_format(compute_row_statistics(a), options.where);
    format = choice.format;
    reason = choice.reason;
  } else if (!summary.format.empty()) {
    format = summary.format;  // update_values keeps the format chosen at setup
    reason = summary.format_reason;
  }
  local.reset();
  collective_try(comm, "operators",
                 [&] { local = make_operator<V>(format, std::move(a), options.where, local_build_options()); });
  summary.format = format;
  summary.format_reason = reason;
  summary.format_params = local->stats().params;
}

/// The local operator on the GPU from a device CSR block: the selector's statistics and the
/// format's builder run on the GPU (DESIGN.md §11).
template <typename V>
void distributed_matrix<V>::impl::build_local_on_gpu(device_csr<V>&& a) {
  row_statistics stats;
  collective_try(comm, "operators", [&] { stats = compute_row_statistics(a.view()); });
  std::string format = options.format, reason = "requested";
  if (summary.format.empty() && format == "auto") {
    const auto choice = select_format(stats, options.where);
    format = choice.format;
    reason = choice.reason;
  } else if (!summary.format.empty()) {
    format = summary.format;  // update_values keeps the format chosen at setup
    reason = summary.format_reason;
  }
  local.reset();  // update_values: free the old operator before building the new one
  collective_try(comm, "operators", [&] {
    require_memory(rank, "GPU memory", "building format " + format,
                   static_cast<double>(estimate_build_bytes(format, stats)), static_cast<double>(device_memory().free),
                   "use more ranks (GPUs), --precision float, or --format csr-split (keeps the CSR block as it is)");
    local = make_operator<V>(format, std::move(a), local_build_options());
  });
  summary.format = format;
  summary.format_reason = reason;
  summary.format_params = local->stats().params;
}

template <typename V>
void distributed_matrix<V>::impl::build_halo_operator() {
  offset_type longest_halo_row = 0;
  for (global_index_type r = 0; r < plan.a_halo.rows; ++r)
    longest_halo_row = std::max(longest_halo_row, plan.a_halo.row_length(r));
  const bool plain = cuda() && plan.a_halo.rows > 0 && longest_halo_row <= short_halo_row;
  collective_try(comm, "operators", [&] {
    halo.reset();
    short_halo = {};
    short_storage = device_storage();
    const auto a_halo = convert_csr<V, index_type>(plan.a_halo);
    std::string chosen;  // the halo operator's format
    if (plain) {
      short_halo.rows = a_halo.rows;
      short_halo.row_ptr = short_storage.upload(a_halo.row_ptr);
      short_halo.col_idx = short_storage.upload(a_halo.col_idx);
      short_halo.values = short_storage.upload(a_halo.values);
    } else if (a_halo.rows > 0) {
      // The halo block carries the cut's nonzeros: half of them on R-MAT over 2 ranks. With
      // `--format auto` on the GPU the selector picks its format too: on 2 H200s (rmat:22:16, 16 M
      // nonzeros per halo block) cuSPARSE CSR took the local SpMV from 289-294 to 262-277 us, where
      // adaptive CSR ran 0.91-0.93x one cuSPARSE call on the rank's rows
      // (jobs/results/2026-11-27_h200_panels, run 132).
      const bool select = cuda() && options.format == "auto";
      chosen = select ? select_format(compute_row_statistics(a_halo), options.where).format : "csr";
      halo = make_operator<V>(chosen, a_halo, options.where);
    }
    summary.halo_format = plain ? "plain" : chosen;
  });
}

template <typename V>
void distributed_matrix<V>::impl::make_buffers() {
  if (buffers_made) return;  // update_values keeps the pattern, hence the buffers
  buffers_made = true;
  const auto n_send = static_cast<std::size_t>(plan.pattern.send_total());
  const auto n_ghost = static_cast<std::size_t>(plan.pattern.recv_total());
  if (!cuda()) {
    halo_rows = plan.halo_rows.data();
    send_idx = plan.send_idx.data();
    host_send.resize(n_send);
    host_ghost.resize(n_ghost);
    host_t.resize(plan.halo_rows.size());
    send_buf = host_send.data();
    ghost_buf = host_ghost.data();
    halo_t = host_t.data();
    return;
  }
  halo_rows = device.upload(plan.halo_rows);
  send_idx = device.upload(plan.send_idx);
  send_buf = static_cast<V*>(device.allocate_bytes(n_send * sizeof(V)));
  ghost_buf = static_cast<V*>(device.allocate_bytes(n_ghost * sizeof(V)));
  halo_t = static_cast<V*>(device.allocate_bytes(plan.halo_rows.size() * sizeof(V)));
  comm_stream = gpu::make_stream(/*high_priority=*/true);
  put_stream = gpu::make_stream(/*high_priority=*/true);
  put_event = gpu::make_event();
  start_event = gpu::make_event();
  halo_event = gpu::make_event();
  done_event = gpu::make_event();
}

/// halo_t = alpha * A_halo * ghosts (boundary rows only), after `wait`'s flags where the
/// transport signals from the GPU (peer-put): the plain halo kernel waits itself, a halo block of
/// another format behind one warp that waits.
template <typename V>
void distributed_matrix<V>::impl::halo_multiply(V alpha, cuda_stream_t stream, const gpu::ready_flags* wait) {
  if (short_halo.rows > 0) {
    gpu::halo_product(short_halo, alpha, ghost_buf, halo_t, stream, wait);
    return;
  }
  if (wait) gpu::wait_ready(*wait, stream);
  if (halo) halo->apply(alpha, ghost_buf, V(0), halo_t, stream);
}

/// y[boundary rows] += halo_t.
template <typename V>
void distributed_matrix<V>::impl::halo_finish(V* y, cuda_stream_t stream) {
  if (short_halo.rows == 0 && !halo) return;
  const global_index_type n = short_halo.rows > 0 ? short_halo.rows : halo->rows();
  if (cuda())
    gpu::scatter_add(halo_t, halo_rows, n, y, stream);
  else
    host::scatter_add(halo_t, halo_rows, n, y);
}

template <typename V>
void distributed_matrix<V>::impl::choose_and_make_transport() {
  const int device = cuda() ? gpu::current_device() : -1;
  placement = gather_placement(comm, device);
  mpi = query_mpi();
  transport_context context;
  context.where = options.where;
  context.ranks = ranks;
  context.gpu_shared = gpu_shared(placement);
  context.single_node = single_host(placement);
  context.nccl_compiled = DISTSPMV_HAVE_NCCL;
  context.mpi_cuda_aware = mpi.cuda_aware;
  const auto sums = allreduce_sum({owned_nnz, plan.a_halo.nnz()}, comm);
  context.mean_nnz_per_rank = static_cast<double>(sums[0]) / ranks;
  context.halo_fraction = sums[0] > 0 ? static_cast<double>(sums[1]) / static_cast<double>(sums[0]) : 0.0;
  collective_try(comm, "transport", [&] { choice = choose_transport(options.transport, context); });
  collective_try(comm, "transport", [&] {
    if (ranks > 1) transport = make_transport<V>(choice.kind, comm, plan.pattern, send_buf, ghost_buf);
    if (long k = 0; watchdog::fault_injected(comm, k)) fault_stop_after = k;
  });
  if (transport) {
    auto* t = transport.get();
    watched = watchdog::registration({to_string(choice.kind), neighbour_ranks(plan.pattern),
                                      [t] { return t->failure(); }, [t] { t->abort(); }});
  }
}

template <typename V>
void distributed_matrix<V>::impl::fill_summaries() {
  summary.rank = rank;
  summary.rows = n_owned;
  summary.nnz = owned_nnz;
  summary.boundary_rows = static_cast<global_index_type>(plan.halo_rows.size());
  summary.interior_rows = summary.rows - summary.boundary_rows;
  summary.halo_nnz = plan.a_halo.nnz();
  summary.ghosts = static_cast<global_index_type>(plan.ghost_ids.size());
  summary.sends = plan.pattern.send_total();
  summary.neighbours = static_cast<int>(neighbour_ranks(plan.pattern).size());
  const auto sums = allreduce_sum({summary.halo_nnz, summary.ghosts}, comm);
  quality.method = options.partition == partitioner::automatic ? "block" : to_string(options.partition);
  quality.reason = options.partition != partitioner::automatic ? "requested" : ranks == 1 ? "one rank" : "";
  quality.order = to_string(in_place ? row_order::none : order);
  quality.order_reason = order_reason;
  quality.edge_cut = sums[0];
  quality.halo_entries_total = sums[1];
  quality.halo_entries_max = allreduce_max(static_cast<std::int64_t>(summary.ghosts), comm);
  const auto max_nnz = allreduce_max(static_cast<std::int64_t>(summary.nnz), comm);
  const double mean = static_cast<double>(global_nnz) / ranks;
  quality.nnz_imbalance = mean > 0 ? static_cast<double>(max_nnz) / mean : 1.0;
}

/// `s` (the comm or put stream) waits for start_event (recorded on the caller's stream where x is
/// ready) and for the previous apply's use of the buffers, which may have been on another stream of
/// the caller's.
template <typename V>
void distributed_matrix<V>::impl::follow_caller(cuda_stream_t s) {
  gpu::wait(s, start_event.get());
  // The previous apply's end; a captured apply needs none (launch_graph orders the graph after it),
  // and may wait only on events recorded in its capture.
  if (!capturing) gpu::wait(s, done_event.get());
}

/// Enqueues packing and exchange: on the comm stream, or for a transport that packs itself and
/// signals from the GPU (peer-put) on the put stream, which `join_put` joins at the end.
template <typename V>
void distributed_matrix<V>::impl::exchange_device_enqueue(const V* x) {
  follow_caller(comm_stream.get());
  if (transport->gathers()) {
    follow_caller(put_stream.get());
    transport->begin_from(x, send_idx, put_stream.get());
    gpu::record(put_event.get(), put_stream.get());
  } else {
    gpu::gather(x, send_idx, plan.pattern.send_total(), send_buf, comm_stream.get());
    transport->begin(comm_stream.get());
  }
  transport->end(comm_stream.get());
}

/// `stream` waits for the put stream's packing (peer-put), so that the apply ends after it.
template <typename V>
void distributed_matrix<V>::impl::join_put(cuda_stream_t stream) {
  if (transport->gathers()) gpu::wait(stream, put_event.get());
}

/// `stream` waits for what is enqueued on the comm stream.
template <typename V>
void distributed_matrix<V>::impl::join_exchange(cuda_stream_t stream) {
  gpu::record(halo_event.get(), comm_stream.get());
  gpu::wait(stream, halo_event.get());
}

template <typename V>
void distributed_matrix<V>::impl::apply_device(V alpha, const V* x, V beta, V* y, cuda_stream_t stream,
                                               bool exchange) {
  // The local SpMV is launched first, so that the GPU is busy while the host enqueues the
  // exchange: ncclGroupEnd takes 26-43 us of host time on 4x H200 (the staged transport also
  // waits for MPI here). Enqueued before the local SpMV (revisions up to cb5b7ba), that host time
  // ran on an idle GPU: overlap efficiency 0.2-0.45 with NCCL, now 0.86-1.04
  // (jobs/results/2026-11-22_h200x4_dist_run3). The comm stream has high priority, so packing,
  // NCCL and the halo block's product are scheduled ahead of the local SpMV's remaining blocks;
  // after the local SpMV only the scatter of the boundary rows into y is left. Without the
  // exchange (apply_local_only) the halo block's product still runs beside the local SpMV, so that
  // "local" times what the apply costs apart from the exchange.
  const bool comm = exchange && exchanges();
  if (!comm && short_halo.rows == 0 && !halo) {
    local->apply(alpha, x, beta, y, stream);
    return;
  }
  gpu::record(start_event.get(), stream);
  local->apply(alpha, x, beta, y, stream);
  if (comm)
    exchange_device_enqueue(x);
  else
    follow_caller(comm_stream.get());
  halo_multiply(alpha, comm_stream.get(), comm ? transport->ready_flags() : nullptr);
  join_exchange(stream);
  halo_finish(y, stream);
  // The ghosts are read: peer-put tells its senders, beside the scatter, and the apply ends after.
  if (comm && transport->release(comm_stream.get())) join_exchange(stream);
  if (comm) join_put(stream);
  if (!capturing) gpu::record(done_event.get(), stream);  // a graph's is recorded at its launch
}

/// Why the applies do or do not run as CUDA graphs ("on", or "off: why"), for the report.
template <typename V>
std::string distributed_matrix<V>::impl::graphs_state() const {
  if (graphs_on()) return "on";
  if (!cuda()) return "off: host backend";
  if (!options.cuda_graphs) return "off: requested";
  if (graphs_refused) return "off: the apply could not be captured";
  return "off: the " + std::string(to_string(choice.kind)) + " exchange waits on the host (peer-put and nccl can be captured)";
}

/// The apply as a CUDA graph (matrix_options::cuda_graphs): an apply whose key repeats the previous
/// apply's is captured on capture_stream (nothing runs) and launched on `stream` from then on.
/// False where the apply is to run eagerly: the key's first sighting, graphs off, or a capture that
/// failed (then never again: the failure would repeat). Every rank meets the same keys in the same
/// order (the SPMD contract of matrix_options::cuda_graphs), so the ranks capture and launch their
/// exchanges together, as NCCL requires; a capture fails alike on every rank (the same code).
template <typename V>
bool distributed_matrix<V>::impl::launch_graph(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  if (!graphs_on()) return false;
  const graph_key key{x, y, alpha, beta};
  auto hit = std::find_if(graphs.begin(), graphs.end(), [&](const auto& g) { return g.first == key; });
  if (hit == graphs.end()) {
    const bool repeated = last_key && *last_key == key;
    last_key = key;
    if (!repeated) return false;
    if (!capture_stream) capture_stream = gpu::make_stream();
    capturing = true;
    auto exec = gpu::capture(capture_stream.get(),
                             [&] { apply_device(alpha, x, beta, y, capture_stream.get(), true); });
    capturing = false;
    if (!exec) {
      graphs_refused = true;
      forget_graphs();
      return false;
    }
    if (graphs.size() == max_graphs) graphs.pop_back();
    graphs.emplace(graphs.begin(), key, std::move(exec));
    hit = graphs.begin();
  }
  std::rotate(graphs.begin(), hit, hit + 1);  // most recently used first
  gpu::wait(stream, done_event.get());        // the previous apply, wherever it was enqueued
  gpu::launch(graphs.front().second.get(), stream);
  gpu::record(done_event.get(), stream);
  ++graph_launches;
  return true;
}

template <typename V>
void distributed_matrix<V>::impl::exchange_host_begin(const V* x) {
  host::gather(x, send_idx, plan.pattern.send_total(), send_buf);
  transport->begin(nullptr);
}

template <typename V>
void distributed_matrix<V>::impl::apply_host(V alpha, const V* x, V beta, V* y, bool exchange) {
  const bool comm = exchange && exchanges();
  if (comm) exchange_host_begin(x);
  local->apply(alpha, x, beta, y);  // overlaps the messages in flight
  if (comm) transport->end(nullptr);
  halo_multiply(alpha, nullptr);
  halo_finish(y, nullptr);
}

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

// ---- apply ------------------------------------------------------------------------------------------

template <typename V>
void distributed_matrix<V>::apply(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  auto& m = *impl_;
  const auto n = static_cast<std::size_t>(m.summary.rows);
  DSPMV_REQUIRE(n == 0 || (x != nullptr && y != nullptr), "distributed_matrix::apply: x or y is a null pointer");
  if (m.fault_stop_after >= 0 && m.applies++ == m.fault_stop_after) watchdog::stop_here(m.rank, m.fault_stop_after);
  if (!m.cuda()) {
    m.apply_host(alpha, x, beta, y, true);
    return;
  }
  const bool x_dev = gpu::is_device_pointer(x), y_dev = gpu::is_device_pointer(y);
  if ((x_dev || n == 0) && (y_dev || n == 0)) {
    if (!m.launch_graph(alpha, x, beta, y, stream)) m.apply_device(alpha, x, beta, y, stream, true);
    return;
  }
  // Host vectors on the CUDA backend: stage through buffers made once.
  if (!m.stage_x) {
    m.stage_x = gpu::allocate_device(std::max<std::size_t>(1, n) * sizeof(V));
    m.stage_y = gpu::allocate_device(std::max<std::size_t>(1, n) * sizeof(V));
  }
  V* dx = x_dev ? const_cast<V*>(x) : static_cast<V*>(m.stage_x.get());
  V* dy = y_dev ? y : static_cast<V*>(m.stage_y.get());
  if (!x_dev) gpu::copy_async(dx, x, n * sizeof(V), stream);
  if (!y_dev && beta != V(0)) gpu::copy_async(dy, y, n * sizeof(V), stream);
  if (!m.launch_graph(alpha, dx, beta, dy, stream)) m.apply_device(alpha, dx, beta, dy, stream, true);
  if (!y_dev) gpu::copy_async(y, dy, n * sizeof(V), stream);
  gpu::synchronize(stream);
}

template <typename V>
void distributed_matrix<V>::apply_local_only(V alpha, const V* x, V beta, V* y, cuda_stream_t stream) {
  auto& m = *impl_;
  if (m.cuda())
    m.apply_device(alpha, x, beta, y, stream, false);
  else
    m.apply_host(alpha, x, beta, y, false);
}

template <typename V>
std::string distributed_matrix<V>::cuda_graphs() const {
  return impl_->graphs_state();
}

template <typename V>
long distributed_matrix<V>::graph_launches() const {
  return impl_->graph_launches;
}

template <typename V>
void distributed_matrix<V>::exchange_only(const V* x, cuda_stream_t stream) {
  auto& m = *impl_;
  if (!m.exchanges()) return;
  if (m.cuda()) {
    gpu::record(m.start_event.get(), stream);
    m.exchange_device_enqueue(x);
    if (const auto* wait = m.transport->ready_flags()) gpu::wait_ready(*wait, m.comm_stream.get());
    m.transport->release(m.comm_stream.get());
    m.join_exchange(stream);
    m.join_put(stream);
  } else {
    m.exchange_host_begin(x);
    m.transport->end(nullptr);
  }
}

// ---- layouts and values ------------------------------------------------------------------------------

template <typename V>
void distributed_matrix<V>::to_partitioned(const V* caller, V* partitioned) const {
  rows_to_partitioned(impl_->map, caller, partitioned, impl_->comm);
}

template <typename V>
void distributed_matrix<V>::from_partitioned(const V* partitioned, V* caller) const {
  rows_from_partitioned(impl_->map, partitioned, caller, impl_->comm);
}

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
  m.build_operators();  // same formats, new values; the buffers stay
}

// ---- queries ------------------------------------------------------------------------------------------

template <typename V>
global_index_type distributed_matrix<V>::global_rows() const { return impl_->global_rows; }
template <typename V>
global_index_type distributed_matrix<V>::first_row() const { return impl_->row_offsets[impl_->rank]; }
template <typename V>
global_index_type distributed_matrix<V>::local_rows() const { return impl_->summary.rows; }
template <typename V>
global_index_type distributed_matrix<V>::caller_first_row() const { return impl_->caller_first; }
template <typename V>
global_index_type distributed_matrix<V>::caller_rows() const { return impl_->caller_rows; }
template <typename V>
offset_type distributed_matrix<V>::caller_nnz() const { return impl_->caller_nnz; }
template <typename V>
offset_type distributed_matrix<V>::global_nnz() const { return impl_->global_nnz; }
template <typename V>
backend distributed_matrix<V>::where() const { return impl_->options.where; }
template <typename V>
MPI_Comm distributed_matrix<V>::comm() const { return impl_->comm; }
template <typename V>
int distributed_matrix<V>::rank() const { return impl_->rank; }
template <typename V>
int distributed_matrix<V>::ranks() const { return impl_->ranks; }
template <typename V>
std::vector<V> distributed_matrix<V>::diagonal() const { return impl_->diagonal; }
template <typename V>
transport_kind distributed_matrix<V>::transport() const { return impl_->choice.kind; }
template <typename V>
const std::string& distributed_matrix<V>::transport_reason() const { return impl_->choice.reason; }
template <typename V>
const rank_summary& distributed_matrix<V>::summary() const { return impl_->summary; }
template <typename V>
const partition_summary& distributed_matrix<V>::partition_quality() const { return impl_->quality; }
template <typename V>
const setup_times& distributed_matrix<V>::setup_seconds() const { return impl_->times; }
template <typename V>
const std::vector<rank_placement>& distributed_matrix<V>::placement() const { return impl_->placement; }
template <typename V>
const mpi_facts& distributed_matrix<V>::mpi() const { return impl_->mpi; }
template <typename V>
const std::vector<global_index_type>& distributed_matrix<V>::owned_caller_ids() const { return impl_->caller_ids; }

template class distributed_matrix<double>;
template class distributed_matrix<float>;

}  // namespace distspmv
