// The private state of a distributed_matrix (its impl), shared by the files that implement it:
// distributed_matrix.cpp (setup: load, partition, order, halo plan; construction; new values),
// matrix_operators.cpp (the local and halo operators, the exchange buffers), matrix_apply.cpp
// (the overlapped apply, CUDA graphs, vector moves) and matrix_summary.cpp (transport choice,
// summaries, queries). Not installed; include only from those files.
#pragma once

#include "dist/distributed_matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "dist/gpu.hpp"
#include "dist/halo_host.hpp"
#include "dist/setup/assign.hpp"
#include "dist/setup/auto_partition.hpp"
#include "dist/setup/gpu_order.hpp"
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

using namespace dist;  // a private header of dist/: its implementation files all use dist's names

namespace matrix_detail {

inline std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

/// Out of memory is bad input (DESIGN.md §11): one line naming the rank, the bytes needed and
/// free, and what to do, before the allocation that would fail.
inline void require_memory(int rank, const char* where, const std::string& what, double needed, double available,
                    const std::string& advice) {
  if (available <= 0 || needed <= available) return;
  DSPMV_BAD_INPUT("rank " + std::to_string(rank), where,
                  what + " needs about " + gib(needed) + ", " + gib(available) + " available; " + advice);
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace matrix_detail

/// Median microseconds of `product` enqueued on `stream` (dist/matrix_order.cpp): batches of
/// back-to-back products between two events, about 200 us a batch, since one product of a few
/// microseconds is below the events' resolution and the trials' 2% margin must be measurable.
double median_product_us(cuda_stream_t stream, const std::function<void()>& product);

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
  /// A_halo: boundary rows x ghost columns, in adaptive CSR, or on the GPU with `--format auto`
  /// in the selector's format or panel, whichever halo_trial measured faster. Its product lands
  /// in halo_t, then y[halo_rows] += halo_t.
  std::unique_ptr<local_operator<V>> halo;
  /// On the CUDA backend, when no halo row is longer than short_halo_row (meshes), A_halo is kept
  /// as plain device CSR instead, one thread per row (gpu::halo_product). Either way its product
  /// runs on the comm stream beside the local SpMV, and only the scatter follows it. Fused with
  /// the scatter after the local SpMV (revisions up to 8d3a0a1), the product's chain of dependent
  /// loads took 6.4 us (block) and 8.2 us (METIS) of every apply of gen:stencil27:200 on 2 GPUs
  /// (ncu, H200; jobs/results/2026-11-26_h200x2_halo).
  static constexpr offset_type short_halo_row = plain_halo_row;
  /// The halo blocks ordered for the GPU's gathers (order_halo_block): on the CUDA backend, the
  /// irregular ones large enough for halo_trial (halo_panel_trial_nnz, format_selector.hpp); the
  /// host backend keeps the split's layout.
  halo_order_rule halo_order() const {
    return cuda() ? halo_order_rule{short_halo_row, halo_panel_trial_nnz} : halo_order_rule{};
  }
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
  /// `step` on every rank (collectively), the ranks that share a GPU one after the other: the
  /// timed trials, so that each rank times its product as on a GPU of its own.
  void in_gpu_turns(const std::string& name, const std::function<void()>& step) const {
    one_rank_per_gpu_at_a_time(comm, cuda() ? gpu_mates(placement, rank) : std::vector<int>{rank}, name, step);
  }
  /// No row changes rank: the rows are split where they are read (split_rows.hpp), on the GPU
  /// for the CUDA backend.
  bool rows_stay() const {
    return ranks == 1 || options.partition == partitioner::block || options.partition == partitioner::automatic;
  }
  /// The row order in use (`auto` resolved by resolve_order) and why.
  row_order order = row_order::none;
  std::string order_reason = "requested";
  /// Set up in place (split where read, on the GPU for the CUDA backend). On the CUDA backend an
  /// ordering is computed and applied there too (gpu_order.hpp, issue 37). The host split does
  /// not order: the host backend takes the host path, except for the block trial of
  /// `--partition auto` on several ranks, whose matrix is set up again with the ordering
  /// (keep_or_repartition).
  bool in_place_setup() const {
    return rows_stay() && (order == row_order::none || cuda() ||
                           (options.partition == partitioner::automatic && ranks > 1));
  }
  /// The rows were ordered in place on the GPU (order_in_place).
  bool ordered_in_place = false;
  /// What the sample rule (or the options) said, the same on every rank; `order` is what this
  /// rank did (`--order auto` on the GPU times the candidates per rank).
  row_order rule_order = row_order::none;
  std::string rule_reason = "requested";
  /// The GPU order of the split's rows, applied to it, to caller_ids and to the layout map
  /// (dist/matrix_order.cpp); under `--order auto`, the fastest of none, rcm and degree.
  void order_in_place(gpu_split<V>& s);
  /// Seconds the trial spent building the operator it kept: the build phase's, not the order's
  /// (the setup without an order builds that operator too).
  double kept_build_s = 0;
  /// Median microseconds of the rank's product (local block, halo block, scatter at
  /// `halo_rows`): what the order's trial compares.
  double time_local_apply(const std::vector<index_type>& halo_rows);
  /// The halo block's operator on the GPU under `--format auto`: the selector's pick, timed
  /// against panel where the block is large and irregular; the faster kept (dist/matrix_order.cpp).
  /// `chosen` names it and `note` says what was timed.
  std::unique_ptr<local_operator<V>> halo_trial(const csr_matrix<V, index_type>& a_halo, std::string& chosen,
                                                std::string& note);
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

  void pack_device(const V* x);
  void send_device();
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

}  // namespace distspmv
