// The public C++ API of distspmv (DESIGN.md §1, §9): a square sparse matrix distributed over the
// ranks of a communicator, one GPU per rank, applied as y = alpha * A * x + beta * y.
//
// Two row layouts exist:
//   * the caller's layout: the rows each rank handed in (or read from a file), contiguous
//     global ids [caller_first_row(), caller_first_row() + caller_rows());
//   * the partitioned layout: after METIS (or the block partitioner) rank r owns the contiguous
//     new ids [first_row(), first_row() + local_rows()). apply() works in this layout;
//     to_partitioned()/from_partitioned() move vectors between the two.
//
// Setup (create, update_values) is collective and may allocate; apply() is collective (every rank
// must call it, as with MPI), allocates nothing, performs no device-wide synchronisation and no
// barrier, and on the CUDA backend only enqueues work ordered after what is already on `stream`.
//
//   auto A = distspmv::distributed_matrix<double>::from_source(MPI_COMM_WORLD, "A.h5");
//   std::vector<double> x(A.local_rows(), 1.0), y(A.local_rows());
//   A.apply(1.0, x.data(), 0.0, y.data());          // host or device pointers
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "dist/diagnostics.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv {

/// How rows are assigned to ranks. `metis` runs METIS on one rank over the gathered graph;
/// `ptscotch` runs PT-Scotch over all ranks on the distributed graph (no rank holds it whole:
/// for graphs too large for one rank). `lp` refines the block partition by label propagation over
/// all ranks (partition_label_propagation: seconds where METIS takes a minute). `automatic` sets up with the block partition of the read
/// ranges and keeps it when its halo is small next to the local product (then a partitioner could
/// not buy more, and the caller's order survives: HDIA and banded formats still apply); otherwise
/// it partitions with METIS, with label propagation on large skewed graphs, or with PT-Scotch past
/// METIS's size (choose_partitioner).
/// partition_quality().reason says why, with the figures.
enum class partitioner { metis, block, automatic, ptscotch, lp };

/// How the halo of x travels between ranks (DESIGN.md §5).
enum class transport_kind {
  automatic,   ///< CUDA backend, one GPU per rank: peer_put on one host, NCCL across hosts; else MPI
  nccl,        ///< NCCL grouped send/recv, device buffers (CUDA backend)
  mpi_cuda,    ///< MPI on device buffers (needs a CUDA-aware MPI)
  mpi_staged,  ///< device → pinned host, MPI persistent requests, → device (CUDA backend)
  mpi_host,    ///< MPI persistent requests on host buffers (host backend)
  cuda_ipc,    ///< copy-engine copies between the GPUs of one node through CUDA IPC (CUDA backend)
  peer_put,    ///< the GPUs of one node store the halo into each other's memory and raise flags there:
               ///< no host in the exchange, capturable in a CUDA graph (CUDA backend)
  nvshmem,     ///< NVSHMEM's put-with-signal on the exchange's streams, one host or several; needs a
               ///< build with NVSHMEM and a communicator that spans every NVSHMEM process (CUDA backend)
};

/// Locality ordering of each rank's rows (and the same owned columns) inside the partitioned
/// numbering (issue 16, dist/setup/order.hpp): x gathers of neighbouring rows share sectors and hot
/// entries of x stay in cache. The caller's layout is unchanged (to_partitioned and the other moves
/// apply the order). On the CUDA backend, where rows stay where they are read (one rank, or the block
/// partition), the order is computed and applied on the GPU (dist/setup/gpu_order.hpp, issue 37);
/// otherwise rows are permuted on the host after they reach their owner.
enum class row_order {
  none,       ///< the partition's order: each part's rows in the caller's relative order
  degree,     ///< rows by descending length, stable (hubs first)
  rcm,        ///< reverse Cuthill-McKee on the symmetrised local block
  automatic,  ///< the default: none where the caller's numbering is already local (banded,
              ///< stencils, clustered), else rcm (choose_order, dist/setup/order.hpp)
};

const char* to_string(partitioner p);
const char* to_string(transport_kind t);
const char* to_string(row_order o);
/// Parses the command-line names: auto|metis|ptscotch|lp|block, auto|nccl|peer-put|nvshmem|cuda-ipc|mpi-cuda|mpi-staged|mpi-host
/// and none|degree|rcm|auto.
partitioner parse_partitioner(const std::string& name);
transport_kind parse_transport(const std::string& name);
row_order parse_row_order(const std::string& name);

struct matrix_options {
  std::string format = "auto";      ///< local storage format (format_registry.hpp) or "auto"
  partitioner partition = partitioner::automatic;
  backend where = backend::cuda;
  transport_kind transport = transport_kind::automatic;
  row_order order = row_order::automatic;  ///< locality ordering inside each rank (none keeps the read order)
  int metis_seed = 1;               ///< seed of METIS and PT-Scotch (the partition is deterministic by it)
  std::string h5_group;             ///< from_source: HDF5 group ("" finds it)
  std::uint64_t generator_seed = 1; ///< from_source: seed of random generators
  bool allow_nonfinite = false;     ///< accept NaN/Inf values in the input
  /// Mixed precision (`--precision mixed`; double only): the local block's format stores its
  /// values in float where it can (the CSR family) and multiplies in double; x, y, the halo
  /// block and every sum stay double. A value beyond float's range is bad input.
  bool float_values = false;
  /// CUDA backend, rows that stay where they are read (one rank, or the block partition): keep
  /// on the GPU what update_values needs (the local block's pattern and one byte per entry, about
  /// 5 bytes per nonzero). Programs that never update values (the command line) turn it off.
  bool keep_for_update = true;
  /// CUDA backend: an apply on device vectors (or staged host vectors) that repeats the previous
  /// apply's x, y, alpha and beta, as a solver's loop does, is captured once into a CUDA graph and
  /// launched as one graph from then on (up to 4 graphs are kept): one launch of host time instead
  /// of one per kernel and, with NCCL, of ncclGroupEnd's 26-43 us. It applies with one rank and
  /// with the peer-put, nvshmem and nccl transports; the others wait on MPI on the host and stay eager
  /// (cuda_graphs() says which). With several ranks, every rank must call apply with its vectors in
  /// the same roles (SPMD code does): NCCL requires a captured exchange to be captured, and
  /// launched, on every rank of it.
  bool cuda_graphs = true;
  /// Entries per chunk of rows streamed through the host by the GPU setup (DESIGN.md §11): the
  /// host holds about two chunks (16 bytes per entry each) at a time.
  offset_type setup_chunk_nnz = offset_type{32} << 20;
};

/// Where memory passed to the API lives.
enum class memory_space { host, device };

/// Facts about the local block and the halo of this rank (queries and the report).
struct rank_summary {
  int rank = 0;
  global_index_type rows = 0;           ///< owned rows
  offset_type nnz = 0;                  ///< nonzeros of the owned rows
  global_index_type interior_rows = 0;  ///< owned rows without ghost columns
  global_index_type boundary_rows = 0;
  offset_type halo_nnz = 0;             ///< nonzeros in ghost columns
  global_index_type ghosts = 0;         ///< distinct ghost columns (entries received per apply)
  global_index_type sends = 0;          ///< entries sent per apply
  int neighbours = 0;                   ///< ranks this rank receives from or sends to
  std::string format;                   ///< local format in use
  std::string format_reason;            ///< why (auto) or "requested"
  std::string format_params;            ///< the format's parameters as built (e.g. "kernel=adaptive pattern")
  /// The halo block's format (boundary rows x ghost columns): "plain" (one thread per short row),
  /// "csr" (adaptive CSR), the selector's pick on the CUDA backend with `--format auto`, or empty
  /// without a halo.
  std::string halo_format;
  std::string halo_format_reason;       ///< the selector's reason, or the trial's timings (halo_trial)
};

/// Partition quality (collective figures, equal on every rank).
struct partition_summary {
  std::string method;                  ///< "metis", "ptscotch", "lp" or "block" (what auto chose)
  std::string reason;                  ///< why: "requested", or auto's rule with its figures
  double block_halo_ratio = 0;         ///< auto: max over ranks of halo bytes / local SpMV bytes, block partition
  offset_type edge_cut = 0;            ///< nonzeros a(i, j) with i, j on different ranks
  offset_type halo_entries_total = 0;  ///< sum over ranks of ghost columns
  offset_type halo_entries_max = 0;
  double nnz_imbalance = 1.0;          ///< max nnz / mean nnz
  std::string order = "none";          ///< row order inside each rank: none, degree or rcm (what auto chose)
  std::string order_reason = "requested";
};

/// Seconds spent in each setup phase on this rank, and the memory setup took.
struct setup_times {
  /// read: loading (on the GPU path, reading and splitting on the GPU overlap: read is both);
  /// order: the locality ordering of the owned rows, with the exchange of renamed columns;
  /// build: halo plan, local operators, transport.
  double read = 0, partition = 0, redistribute = 0, order = 0, build = 0;
  bool on_gpu = false;                ///< the GPU setup path (rows streamed to the GPU and split there)
  /// Rows split where they are read (split_rows.hpp): within `read`, the seconds spent waiting
  /// for the reader, copying chunks to the GPU and splitting.
  double read_wait = 0, upload = 0, split = 0;
  /// Within `build`, the halo block's part: its plan (order_halo_block, plan_exchange; where rows
  /// were redistributed, also the split into local and halo blocks), and its operator with the
  /// halo trial where one runs.
  double halo_plan = 0, halo_operator = 0;
  std::size_t host_peak_bytes = 0;    ///< peak resident set of the process at the end of setup
  std::size_t gpu_peak_bytes = 0;     ///< peak of distspmv's GPU allocations during setup
  std::size_t gpu_held_bytes = 0;     ///< distspmv's GPU allocations after setup (the matrix and buffers)
  std::size_t gpu_total_bytes = 0;    ///< the GPU's memory
  double total() const { return read + partition + redistribute + order + build; }
};

template <typename ValueType>
class distributed_matrix {
 public:
  using value_type = ValueType;

  /// Collective. Each rank passes its rows of the caller's layout: `rows` consecutive global
  /// rows starting at `first_row` (ranges of the ranks in rank order, covering [0, global_rows)),
  /// as CSR with int64 offsets (`rows + 1`, starting at 0) and int64 global column ids, sorted
  /// and unique within each row. Arrays may be host or device memory (`space`). The matrix must
  /// be square. Every rank throws the same error when any rank's input is bad.
  static distributed_matrix from_csr(MPI_Comm comm, global_index_type global_rows, global_index_type first_row,
                                     global_index_type rows, const offset_type* row_ptr,
                                     const global_index_type* col_ids, const ValueType* values,
                                     memory_space space, const matrix_options& options = {});

  /// Collective: reads (or generates) the matrix, each rank only its nnz-balanced slice of rows
  /// (Matrix Market files, which have no row index, are parsed by every rank).
  static distributed_matrix from_source(MPI_Comm comm, const std::string& source,
                                        const matrix_options& options = {});

  distributed_matrix(distributed_matrix&&) noexcept;
  distributed_matrix& operator=(distributed_matrix&&) noexcept;
  ~distributed_matrix();

  /// y = alpha * A * x + beta * y in the partitioned layout; x and y have local_rows() entries,
  /// both host or both device pointers (any mix is accepted on the CUDA backend; host vectors are
  /// staged through buffers made at setup). beta == 0 overwrites y (NaN in y does not leak).
  /// Collective; on the CUDA backend it returns once the work is enqueued on `stream` when x and y
  /// are device pointers, after it is complete otherwise.
  void apply(ValueType alpha, const ValueType* x, ValueType beta, ValueType* y, cuda_stream_t stream = nullptr);

  /// Collective vector moves between the caller's layout (caller_rows() entries) and the
  /// partitioned layout (local_rows() entries). Host pointers.
  void to_partitioned(const ValueType* caller, ValueType* partitioned) const;
  void from_partitioned(const ValueType* partitioned, ValueType* caller) const;

  /// Collective: new values for the pattern given at creation, in the caller's layout and entry
  /// order (from_csr: same arrays layout as `values`; from_source: the slice as read, row-major
  /// with sorted columns). Rebuilds the local operators (setup cost, not apply cost).
  void update_values(const ValueType* values, memory_space space);

  global_index_type global_rows() const;
  global_index_type first_row() const;    ///< first owned row in the partitioned numbering
  global_index_type local_rows() const;   ///< owned rows
  global_index_type caller_first_row() const;
  global_index_type caller_rows() const;
  offset_type caller_nnz() const;         ///< entries of this rank in the caller's layout
  offset_type global_nnz() const;
  backend where() const;
  MPI_Comm comm() const;                  ///< a duplicate of the communicator given at creation
  int rank() const;
  int ranks() const;

  /// The diagonal of the owned rows (partitioned layout, host memory, local_rows() entries; 0 where
  /// a row has no diagonal entry).
  std::vector<ValueType> diagonal() const;

  transport_kind transport() const;
  const std::string& transport_reason() const;
  const rank_summary& summary() const;
  const partition_summary& partition_quality() const;
  const setup_times& setup_seconds() const;
  /// Rank → host → GPU of every rank, and the MPI library (self-diagnosis at start).
  const std::vector<dist::rank_placement>& placement() const;
  const dist::mpi_facts& mpi() const;

  /// Whether applies run as CUDA graphs: "on", or "off: why" (matrix_options::cuda_graphs).
  std::string cuda_graphs() const;
  /// Applies launched as a CUDA graph so far on this rank.
  long graph_launches() const;

  /// Timed pieces of apply, for the report: the local product alone (A_local and A_halo on the
  /// ghost values already present) and the halo exchange alone. Collective like apply.
  void apply_local_only(ValueType alpha, const ValueType* x, ValueType beta, ValueType* y, cuda_stream_t stream);
  void exchange_only(const ValueType* x, cuda_stream_t stream);

  /// Global row id in the caller's layout of owned row i (partitioned layout), for checks.
  const std::vector<global_index_type>& owned_caller_ids() const;

  struct impl;

 private:
  explicit distributed_matrix(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

extern template class distributed_matrix<double>;
extern template class distributed_matrix<float>;

}  // namespace distspmv
