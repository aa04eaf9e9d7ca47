// The distributed run (DESIGN.md §8, issue 4): every rank loads its slice, the matrix is
// partitioned and redistributed, y = alpha*A*x + beta*y is timed (the local product alone, the
// halo exchange alone, and the overlapped apply), optionally checked, and rank 0 reports.
#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <tuple>
#include <utility>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "apps/vector_files.hpp"
#include "dist/distributed_matrix.hpp"
#include "dist/gpu.hpp"
#include "dist/report.hpp"
#include "dist/setup/split_rows.hpp"
#include "dist/setup/mpi_util.hpp"
#include "distspmv/config.hpp"
#include "io/generators.hpp"
#include "io/matrix_source.hpp"
#include "io/vector_io.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/device_timing.hpp"
#include "local_kernels/format_registry.hpp"

namespace distspmv::app {
namespace {

using dist::allreduce_max;
using dist::comm_rank;
using dist::comm_size;

/// Deterministic entry of the test vectors by caller-layout row id, in [-1, 1).
double vector_entry(global_index_type i, int salt) {
  std::uint64_t s = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(salt) * 0xbf58476d1ce4e5b9ULL;
  s ^= s >> 31;
  s *= 0x94d049bb133111ebULL;
  s ^= s >> 29;
  return static_cast<double>(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/// Per-iteration times of `op`, each the slowest rank's: barrier, then CUDA events on `stream`
/// (or the wall clock on the host). Returns microseconds and this rank's own times.
struct timing {
  std::vector<double> slowest_us;  ///< per iteration, max over ranks
  double my_median_us = 0;
  double my_host_median_us = 0;  ///< host time to enqueue `op` (CUDA backend; the wall time on the host)
};

timing time_collective(MPI_Comm comm, backend where, cuda_stream_t stream, int warmup, int iters,
                       const std::function<void()>& op) {
  dist::gpu::event_ptr start, stop;
  if (where == backend::cuda) {
    start = dist::gpu::make_event(true);
    stop = dist::gpu::make_event(true);
  }
  std::vector<double> mine, host;
  for (int i = 0; i < warmup + iters; ++i) {
    MPI_Barrier(comm);
    double us;
    if (where == backend::cuda) {
      dist::gpu::record(start.get(), stream);
      const double t0 = MPI_Wtime();
      op();
      if (i >= warmup) host.push_back(1e6 * (MPI_Wtime() - t0));
      dist::gpu::record(stop.get(), stream);
      dist::gpu::synchronize(stream);
      us = 1e3 * dist::gpu::elapsed_ms(start.get(), stop.get());
    } else {
      const double t0 = MPI_Wtime();
      op();
      us = 1e6 * (MPI_Wtime() - t0);
    }
    if (i >= warmup) mine.push_back(us);
  }
  timing t;
  t.my_median_us = median(mine);
  t.my_host_median_us = host.empty() ? t.my_median_us : median(host);
  t.slowest_us.resize(mine.size());
  if (!mine.empty())
    DSPMV_MPI_CHECK(MPI_Allreduce(mine.data(), t.slowest_us.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, comm));
  return t;
}

/// Two products on this rank timed in one loop, alternately, each as time_collective times one
/// (events around one product, then a synchronisation), the first of each pair alternating.
/// Products of 6-15 us are mostly launch, whose cost drifts between separate loops by up to 12%
/// (jobs/results/2026-11-28_h200_gpu_order); alternated, the drift falls on both alike, so their
/// ratio can resolve a few percent. Returns the medians (us) of a and of b.
std::pair<double, double> time_alternately(cuda_stream_t stream, int warmup, int iters, const std::function<void()>& a,
                                           const std::function<void()>& b) {
  auto start = dist::gpu::make_event(true), stop = dist::gpu::make_event(true);
  auto once = [&](const std::function<void()>& op) {
    dist::gpu::record(start.get(), stream);
    op();
    dist::gpu::record(stop.get(), stream);
    dist::gpu::synchronize(stream);
    return 1e3 * dist::gpu::elapsed_ms(start.get(), stop.get());
  };
  std::vector<double> ta, tb;
  for (int i = 0; i < warmup + iters; ++i) {
    const bool a_first = i % 2 == 0;
    const double first = once(a_first ? a : b), second = once(a_first ? b : a);
    if (i < warmup) continue;
    ta.push_back(a_first ? first : second);
    tb.push_back(a_first ? second : first);
  }
  return {median(ta), median(tb)};
}

struct spread {
  double min = 0, median = 0, max = 0;
};

/// min / median / max over ranks of one value per rank.
spread over_ranks(double mine, MPI_Comm comm) {
  std::vector<double> all(comm_size(comm));
  DSPMV_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm));
  return {*std::min_element(all.begin(), all.end()), median(all), *std::max_element(all.begin(), all.end())};
}

/// Gathers a fixed-size record of int64 per rank on rank 0.
std::vector<std::vector<std::int64_t>> gather_records(const std::vector<std::int64_t>& mine, MPI_Comm comm) {
  const auto flat = dist::gatherv(mine, 0, comm);
  std::vector<std::vector<std::int64_t>> out;
  for (std::size_t at = 0; at + mine.size() <= flat.size() && !mine.empty(); at += mine.size())
    out.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(at),
                     flat.begin() + static_cast<std::ptrdiff_t>(at + mine.size()));
  return out;
}

/// y = 1.25 A x - 0.75 y0 on deterministic vectors, against a serial double reference of this
/// rank's caller rows (re-read from the source). Returns the relative error over all ranks.
template <typename V>
double check_product(distributed_matrix<V>& m, const run_options& o, const io::source_options& so,
                     cuda_stream_t stream) {
  const auto n = static_cast<std::size_t>(m.caller_rows());
  const global_index_type first = m.caller_first_row();
  std::vector<V> xc(n), yc(n);
  for (std::size_t i = 0; i < n; ++i) {
    xc[i] = static_cast<V>(vector_entry(first + static_cast<global_index_type>(i), 1));
    yc[i] = static_cast<V>(vector_entry(first + static_cast<global_index_type>(i), 2));
  }
  std::vector<V> x(static_cast<std::size_t>(m.local_rows())), y(x.size());
  m.to_partitioned(xc.data(), x.data());
  m.to_partitioned(yc.data(), y.data());
  if (m.where() == backend::cuda) {  // the device-pointer path, the one that is timed
    const std::size_t bytes = x.size() * sizeof(V);
    auto dx = dist::gpu::allocate_device(std::max<std::size_t>(1, bytes));
    auto dy = dist::gpu::allocate_device(std::max<std::size_t>(1, bytes));
    copy_to_device(dx.get(), x.data(), bytes);
    copy_to_device(dy.get(), y.data(), bytes);
    m.apply(V(1.25), static_cast<V*>(dx.get()), V(-0.75), static_cast<V*>(dy.get()), stream);
    dist::gpu::synchronize(stream);
    copy_to_host(y.data(), dy.get(), bytes);
  } else {
    m.apply(V(1.25), x.data(), V(-0.75), y.data(), stream);
  }
  m.from_partitioned(y.data(), yc.data());

  // The reference re-reads this rank's rows in chunks, so that the check holds no more of the
  // matrix in host memory than the setup did. One agreement for the whole re-read: ranks hold
  // different numbers of chunks (none, where a rank owns no rows), so one per chunk would leave
  // the ranks at different collectives.
  double diff = 0, scale = 0;
  const double per_row = m.caller_rows() > 0 ? static_cast<double>(m.caller_nnz()) / static_cast<double>(m.caller_rows()) : 1;
  dist::collective_try(m.comm(), "check", [&] {
    for (const row_range chunk : dist::row_chunks({first, first + m.caller_rows()}, per_row, offset_type{32} << 20)) {
      const csr_matrix<double> a = io::read_matrix_rows(o.source, chunk, so);
      const global_index_type base = chunk.begin - first;
#pragma omp parallel for reduction(max : diff, scale) schedule(static)
      for (global_index_type i = 0; i < a.rows; ++i) {
        double sum = 0;
        for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
          sum += a.values[k] * static_cast<double>(static_cast<V>(vector_entry(a.col_idx[k], 1)));
        const double ref = 1.25 * sum - 0.75 * static_cast<double>(static_cast<V>(vector_entry(first + base + i, 2)));
        const double d = std::abs(static_cast<double>(yc[base + i]) - ref);
        diff = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(diff, d);
        scale = std::max(scale, std::abs(ref));
      }
    }
  });
  diff = allreduce_max(diff, m.comm());
  scale = allreduce_max(scale, m.comm());
  return scale > 0 ? diff / scale : diff;
}

/// cuSPARSE CSR on this rank's rows (issue 16): what a cuSPARSE or PETSc user would run in our
/// place, timed on the same GPU. The block is the rank's rows x their columns as one CSR (owned
/// columns first, then the ghost columns compressed in ascending caller id), in two numberings:
/// the caller's (owned rows and columns in ascending caller id) and ours (the partitioned order,
/// after --order). With the caller's relative order kept (--order none on one rank or the block
/// partition), both are the same block, timed once. Each is timed alternately with our local
/// product (`local_product`), whose time beside it is the ratio's denominator. Where
/// `graph_product` is given (one rank: our whole apply, a CUDA graph) and one cuSPARSE call takes
/// under 50 us, cuSPARSE is also captured in a CUDA graph and timed alternately with it, so that
/// kernel speed and the launch that a graph saves are told apart. NaN and a note where not
/// measured.
struct vendor_times {
  double caller_order_us = std::numeric_limits<double>::quiet_NaN();
  double same_order_us = std::numeric_limits<double>::quiet_NaN();
  double ours_beside_caller_us = std::numeric_limits<double>::quiet_NaN();  ///< our local product in the same loop
  double ours_beside_same_us = std::numeric_limits<double>::quiet_NaN();
  double caller_order_alone_us = std::numeric_limits<double>::quiet_NaN();  ///< in a loop of its own, as before bbb1ae8
  double caller_order_graph_us = std::numeric_limits<double>::quiet_NaN();  ///< captured in a CUDA graph
  double ours_beside_graph_us = std::numeric_limits<double>::quiet_NaN();   ///< our apply (a graph) beside it
  std::string note;
};

template <typename V>
vendor_times time_cusparse_blocks(const distributed_matrix<V>& m, const run_options& o, const io::source_options& so,
                                  cuda_stream_t stream, int warmup, int iters, const std::function<void()>& local_product,
                                  const std::function<void()>& graph_product) {
  vendor_times t;
  const auto& ids = m.owned_caller_ids();
  const auto n = static_cast<global_index_type>(ids.size());
  if (n == 0) {
    t.note = "no rows";
    return t;
  }
  std::vector<global_index_type> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<row_range> runs;  // the rank's rows as ranges of caller ids
  for (global_index_type i = 0; i < n; ++i) {
    if (!runs.empty() && runs.back().end == sorted[i])
      ++runs.back().end;
    else
      runs.push_back({sorted[i], sorted[i] + 1});
  }
  if (runs.size() > 64) {  // METIS or PT-Scotch scattered the rows: re-reading them is not worth it
    t.note = fmt::format("the rank's rows are {} separate ranges of the caller's rows", runs.size());
    return t;
  }
  const double nnz = static_cast<double>(m.summary().nnz);
  const double host_free = static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (host_free > 0 && 2 * nnz * (sizeof(V) + sizeof(index_type) + 8) > host_free) {
    t.note = "too little host memory for a copy of the rank's rows";
    return t;
  }
  if (2 * nnz * (sizeof(V) + sizeof(index_type)) > 0.8 * static_cast<double>(device_memory().free)) {
    t.note = "too little GPU memory for a copy of the rank's rows";
    return t;
  }
  // Position of a caller id among the rank's rows (caller order), or -1 for a ghost column.
  const bool one_run = runs.size() == 1;
  auto owned_position = [&](global_index_type c) -> global_index_type {
    if (one_run) return c >= runs[0].begin && c < runs[0].end ? c - runs[0].begin : -1;
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), c);
    return it != sorted.end() && *it == c ? it - sorted.begin() : -1;
  };

  // The block in the caller's order; ghost columns are kept as -1 - caller id until all are known.
  csr_matrix<V, global_index_type> caller;
  caller.rows = n;
  const double per_row = nnz / static_cast<double>(n);
  for (const row_range run : runs)
    for (const row_range chunk : dist::row_chunks(run, per_row, offset_type{32} << 20)) {
      const csr_matrix<double> a = io::read_matrix_rows(o.source, chunk, so);
      for (global_index_type r = 0; r < a.rows; ++r) {
        for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
          const global_index_type p = owned_position(a.col_idx[k]);
          caller.col_idx.push_back(p >= 0 ? p : -1 - a.col_idx[k]);
          caller.values.push_back(static_cast<V>(a.values[k]));
        }
        caller.row_ptr.push_back(static_cast<offset_type>(caller.col_idx.size()));
      }
    }
  std::vector<global_index_type> ghosts;
  for (global_index_type c : caller.col_idx)
    if (c < 0) ghosts.push_back(-1 - c);
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  auto local_column = [&](global_index_type c) {
    return static_cast<index_type>(
        c >= 0 ? c : n + (std::lower_bound(ghosts.begin(), ghosts.end(), -1 - c) - ghosts.begin()));
  };
  const global_index_type cols = n + static_cast<global_index_type>(ghosts.size());

  // cuSPARSE's time and ours beside it, cuSPARSE's alone; in a CUDA graph where `in_graph`.
  auto time_block = [&](csr_matrix<V, index_type>&& block, bool in_graph) {
    const auto op = make_operator<V>("cusparse", std::move(block), backend::cuda);
    device_storage mem;
    const V* x = static_cast<const V*>(mem.upload(std::vector<V>(static_cast<std::size_t>(cols), V(0.5))));
    V* y = static_cast<V*>(mem.allocate_bytes(static_cast<std::size_t>(n) * sizeof(V)));
    // Timed as the local SpMV is (one product between two events, then a synchronisation), so
    // that launch latency counts on both sides; back to back (time_on_device) it would hide
    // behind the previous product, which made cuSPARSE look 10-30% faster on blocks of 10-20 µs.
    auto vendor = [&] { op->apply(V(1), x, V(0), y, stream); };
    const double alone = median(time_collective(MPI_COMM_SELF, backend::cuda, stream, warmup, iters, vendor).slowest_us);
    if (in_graph && graph_product && alone < 50) {
      if (const auto graph = dist::gpu::capture(stream, vendor))  // (null where cuSPARSE cannot be captured)
        std::tie(t.caller_order_graph_us, t.ours_beside_graph_us) =
            time_alternately(stream, warmup, iters, [&] { dist::gpu::launch(graph.get(), stream); }, graph_product);
    }
    return std::tuple_cat(time_alternately(stream, warmup, iters, vendor, local_product), std::tuple{alone});
  };
  // Our order: owned row k is caller row ids[k]; owned columns follow the rows.
  std::vector<index_type> ours(static_cast<std::size_t>(n));  // caller position -> partitioned position
  for (global_index_type k = 0; k < n; ++k) ours[owned_position(ids[k])] = static_cast<index_type>(k);
  // Row k of a block is row source_row(k) of `caller`, columns renamed (and sorted again).
  auto make_block = [&](bool our_order) {
    csr_matrix<V, index_type> b;
    b.rows = n;
    b.cols = cols;
    b.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    auto source_row = [&](global_index_type k) { return our_order ? owned_position(ids[k]) : k; };
    for (global_index_type k = 0; k < n; ++k) {
      const global_index_type r = source_row(k);
      b.row_ptr[k + 1] = b.row_ptr[k] + caller.row_ptr[r + 1] - caller.row_ptr[r];
    }
    b.col_idx.resize(caller.col_idx.size());
    b.values.resize(caller.values.size());
    std::vector<std::pair<index_type, V>> row;
    for (global_index_type k = 0; k < n; ++k) {
      const global_index_type r = source_row(k);
      row.clear();
      for (offset_type e = caller.row_ptr[r]; e < caller.row_ptr[r + 1]; ++e) {
        const global_index_type c = caller.col_idx[e];
        row.emplace_back(c >= 0 && our_order ? ours[c] : local_column(c), caller.values[e]);
      }
      std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      for (std::size_t i = 0; i < row.size(); ++i) {
        b.col_idx[b.row_ptr[k] + static_cast<offset_type>(i)] = row[i].first;
        b.values[b.row_ptr[k] + static_cast<offset_type>(i)] = row[i].second;
      }
    }
    return b;
  };
  std::tie(t.caller_order_us, t.ours_beside_caller_us, t.caller_order_alone_us) = time_block(make_block(false), true);
  const bool same = std::is_sorted(ids.begin(), ids.end());  // the caller's relative order kept
  if (same)
    std::tie(t.same_order_us, t.ours_beside_same_us) = std::pair{t.caller_order_us, t.ours_beside_caller_us};
  else
    std::tie(t.same_order_us, t.ours_beside_same_us, std::ignore) = time_block(make_block(true), false);
  return t;
}

template <typename V>
int run_typed(const run_options& o) {
  MPI_Comm world = MPI_COMM_WORLD;
  const int me = comm_rank(world), ranks = comm_size(world);
  const bool root = me == 0;

  matrix_options mo;
  mo.keep_for_update = false;  // the run never updates values: no entry map kept on the GPU
  mo.allow_nonfinite = o.allow_nonfinite;
  mo.generator_seed = o.seed;
  mo.format = o.format;
  mo.float_values = o.precision == "mixed";
  mo.cuda_graphs = o.cuda_graphs == "on";
  io::vector_read_options x_options;
  x_options.allow_nonfinite = o.allow_nonfinite;
  io::vector_write_options y_options;
  y_options.float32 = std::is_same_v<V, float>;  // y as computed, no rounding
  dist::collective_try(world, [&] {
    mo.partition = parse_partitioner(o.partition);
    mo.order = parse_row_order(o.order);
    mo.transport = parse_transport(o.transport);
    if (o.format != "auto") find_format(o.format);  // unknown names fail before any work
    // So do a missing or damaged x and an output name of no known format (x's length is checked
    // against the matrix once it is read).
    if (!o.x.empty()) io::describe_vector(o.x, x_options);
    if (!o.output.empty()) io::plan_vector_output(o.output, 0, y_options);
  });
  mo.where = dist::select_backend(o.backend, world);
  const bool cuda = mo.where == backend::cuda;
  const int iters = o.iters > 0 ? o.iters : (cuda ? 100 : 10);
  const int warmup = o.warmup >= 0 ? o.warmup : (cuda ? 10 : 2);

  io::source_options so;
  so.allow_nonfinite = o.allow_nonfinite;
  so.seed = o.seed;
  auto m = distributed_matrix<V>::from_source(world, o.source, mo);
  const auto& s = m.summary();
  const auto& q = m.partition_quality();
  const auto& st = m.setup_seconds();
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  const spread host_peak = over_ranks(static_cast<double>(st.host_peak_bytes) / gib, world);
  const spread gpu_peak = over_ranks(static_cast<double>(st.gpu_peak_bytes) / gib, world);
  const spread gpu_held = over_ranks(static_cast<double>(st.gpu_held_bytes) / gib, world);
  const spread setup_s = over_ranks(st.total(), world);
  const double gpu_total = static_cast<double>(st.gpu_total_bytes) / gib;

  // ---- self-diagnosis ----
  if (root) {
    const int hosts = dist::host_count(m.placement());
    fmt::print("distspmv {} ({})  {} rank{}{}, backend {}, precision {}\n", DISTSPMV_VERSION, DISTSPMV_GIT_REVISION, ranks,
               ranks == 1 ? "" : "s", hosts > 1 ? fmt::format(" on {} hosts", hosts) : "", to_string(mo.where),
               o.precision);
    fmt::print("MPI: {} (CUDA-aware: {})\n", m.mpi().library, m.mpi().cuda_aware ? "yes" : "no");
    for (const auto& p : m.placement())
      fmt::print("  rank {:>3}  host {}  local rank {}/{}  {}\n", p.rank, p.host, p.local_rank, p.local_ranks,
                 p.device >= 0 ? fmt::format("GPU {} {}", p.device, p.gpu) : std::string("no GPU"));
    std::set<std::string> names;
    for (const auto& p : m.placement()) names.insert(p.host);
    if (static_cast<int>(names.size()) < hosts)
      fmt::print("warning: MPI puts the ranks on {} nodes, but they report {} host name{}; they count as {} hosts\n",
                 hosts, names.size(), names.size() == 1 ? "" : "s", hosts);
    if (dist::gpu_shared(m.placement()))
      fmt::print("warning: several ranks share one GPU (more ranks than GPUs on a node): they take turns in the "
                 "order's and the halo block's trials and in timing the local product and cuSPARSE (each rank's "
                 "figure as on a GPU of its own); the exchange and the apply are timed with the GPU shared\n");
    fmt::print("transport: {} ({})\n", to_string(m.transport()), m.transport_reason());
    fmt::print("matrix {}: {} rows, {} nonzeros\n", o.source, m.global_rows(), m.global_nnz());
    const double nnz = static_cast<double>(m.global_nnz());
    fmt::print("setup{}: read {:.3f} s, partition {:.3f} s, redistribute {:.3f} s, {}build {:.3f} s; total {:.3f} s "
               "(slowest rank), {:.1f} M nonzeros/s\n",
               st.on_gpu ? " (streamed to the GPU, split and built there)" : "", st.read, st.partition,
               st.redistribute, q.order != "none" ? fmt::format("order {:.3f} s, ", st.order) : std::string(),
               st.build, setup_s.max, nnz / std::max(1e-9, setup_s.max) / 1e6);
    if (st.read_wait + st.upload + st.split > 0)
      fmt::print("  read = waiting for the reader {:.3f} s + copying to the GPU {:.3f} s + splitting {:.3f} s (rank 0)\n",
                 st.read_wait, st.upload, st.split);
    if (ranks > 1)
      fmt::print("  build includes the halo block's plan {:.3f} s and its operator {:.3f} s (rank 0)\n",
                 st.halo_plan, st.halo_operator);
    fmt::print("memory: host peak RSS {:.2f} GiB ({:.1f} B per nonzero of the rank; min/median/max over ranks {:.2f} / "
               "{:.2f} / {:.2f} GiB)\n",
               host_peak.max, host_peak.max * gib / std::max(1.0, nnz / ranks), host_peak.min, host_peak.median,
               host_peak.max);
    if (cuda)
      fmt::print("        GPU: setup peak {:.2f} GiB, held after setup {:.2f} GiB = {:.1f}% of the GPU's {:.1f} GiB "
                 "(max over ranks; min/median {:.2f} / {:.2f} GiB held)\n",
                 gpu_peak.max, gpu_held.max, 100.0 * gpu_held.max / std::max(1e-9, gpu_total), gpu_total, gpu_held.min,
                 gpu_held.median);
    fmt::print("partition {} ({})\n", q.method, q.reason);
    if (mo.order != row_order::none || q.order != "none")
      fmt::print("order {} inside each rank ({}){}\n", q.order, q.order_reason,
                 q.order == "none" || !cuda            ? ""
                 : m.setup_seconds().on_gpu ? "; ordered on the GPU where the rows were split"
                                            : "; rows ordered on the host after they reached their owner (rcm's order from "
                                              "the GPU)");
    fmt::print("partition {}: edge cut {}, halo {} entries ({:.1f} KiB) in total, at most {} on a rank, nnz imbalance "
               "{:.3f}\n",
               q.method, q.edge_cut, q.halo_entries_total, q.halo_entries_total * sizeof(V) / 1024.0,
               q.halo_entries_max, q.nnz_imbalance);
  }

  // ---- timing ----
  dist::gpu::stream_ptr stream_owner;
  cuda_stream_t stream = nullptr;
  const auto n = static_cast<std::size_t>(m.local_rows());
  std::vector<V> hx(n), hy(n, V(0));
  if (o.x.empty()) {
    for (std::size_t i = 0; i < n; ++i) hx[i] = static_cast<V>(vector_entry(m.owned_caller_ids()[i], 1));
  } else {
    // Each rank reads the entries of its caller rows, then they move to the partitioned layout.
    const auto read = read_vector_slice(m.comm(), o.x, m.global_rows(), "columns", m.caller_first_row(),
                                        m.caller_rows(), x_options);
    const std::vector<V> caller(read.begin(), read.end());
    m.to_partitioned(caller.data(), hx.data());
  }
  if (root) fmt::print("x: {}\n", o.x.empty() ? std::string("random entries in [-1, 1)") : o.x);
  V* x = hx.data();
  V* y = hy.data();
  dist::gpu::device_ptr dx, dy;
  double copy_gbps = 0;
  if (cuda) {
    stream_owner = dist::gpu::make_stream();
    stream = stream_owner.get();
    dx = dist::gpu::allocate_device(std::max<std::size_t>(1, n) * sizeof(V));
    dy = dist::gpu::allocate_device(std::max<std::size_t>(1, n) * sizeof(V));
    copy_to_device(dx.get(), hx.data(), n * sizeof(V));
    x = static_cast<V*>(dx.get());
    y = static_cast<V*>(dy.get());
    copy_gbps = measure_copy_bandwidth_gbps(std::size_t(512) << 20, 10);
  }
  // Ranks that share a GPU time their own products one after the other (their figures as on a
  // GPU of their own); the exchange and the apply need every rank at once.
  const auto mates = dist::gpu_mates(m.placement(), dist::comm_rank(world));
  auto in_turns = [&](const std::string& what, const std::function<void()>& step) {
    dist::collective_try(world, [&] { dist::one_rank_per_gpu_at_a_time(world, mates, what, step); });
  };
  const auto local_product = [&] { m.apply_local_only(V(1), x, V(0), y, stream); };
  timing t_local;
  if (!dist::gpu_shared(m.placement())) {
    t_local = time_collective(world, mo.where, stream, warmup, iters, local_product);
  } else {
    in_turns("timing the local product",
             [&] { t_local = time_collective(MPI_COMM_SELF, mo.where, stream, warmup, iters, local_product); });
    // The slowest rank of each repetition (the same count on every rank).
    DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, t_local.slowest_us.data(), static_cast<int>(t_local.slowest_us.size()),
                                  MPI_DOUBLE, MPI_MAX, world));
  }
  const auto t_comm = time_collective(world, mo.where, stream, warmup, iters, [&] { m.exchange_only(x, stream); });
  const auto t_apply =
      time_collective(world, mo.where, stream, warmup, iters, [&] { m.apply(V(1), x, V(0), y, stream); });
  const double local_us = median(t_local.slowest_us), comm_us = median(t_comm.slowest_us),
               apply_us = median(t_apply.slowest_us);
  const spread local_ranks = over_ranks(t_local.my_median_us, world), comm_ranks = over_ranks(t_comm.my_median_us, world),
               apply_ranks = over_ranks(t_apply.my_median_us, world);
  // Overlap efficiency: the share of the shorter of the two that the overlap hid (1 = fully).
  const bool has_comm = ranks > 1 && comm_us > 0;
  const double overlap = has_comm ? (local_us + comm_us - apply_us) / std::min(local_us, comm_us)
                                  : std::numeric_limits<double>::quiet_NaN();
  const double apply_host_us = allreduce_max(t_apply.my_host_median_us, world);
  // "on" where every rank launched its applies as graphs, else the first rank's reason why not.
  std::string graphs = "on";
  for (const auto& g : dist::allgather(m.cuda_graphs(), world))
    if (g != "on") {
      graphs = g;
      break;
    }
  // cuSPARSE CSR on the same rows, in the caller's order and in ours (CUDA backend).
  vendor_times vendor;
  const bool vendor_asked = cuda && o.vs_cusparse;
  if (vendor_asked)  // (our local product involves no other rank: each rank times it beside its own cuSPARSE)
    in_turns("timing cuSPARSE on the rank's rows", [&] {
      std::function<void()> whole_apply;  // one rank: our apply, launched as a graph, beside cuSPARSE's graph
      if (ranks == 1) whole_apply = [&] { m.apply(V(1), x, V(0), y, stream); };
      vendor = time_cusparse_blocks(m, o, so, stream, warmup, iters, local_product, whole_apply);
    });
  auto us_record = [](double us) { return std::isnan(us) ? std::int64_t{-1} : static_cast<std::int64_t>(1000 * us); };
  const double model_bytes = csr_model_bytes<V>(m.global_rows(), m.global_rows(), m.global_nnz(), false);
  const double gflops = apply_us > 0 ? 2.0 * m.global_nnz() / (apply_us * 1e3) : 0;
  const double gbps_per_gpu = apply_us > 0 ? model_bytes / ranks / (apply_us * 1e3) : 0;

  // ---- check ----
  double max_rel_error = std::numeric_limits<double>::quiet_NaN();
  const double tolerance = check_tolerance<V>(o.precision);
  if (o.check) max_rel_error = check_product(m, o, so, stream);
  const bool check_failed = o.check && !(max_rel_error <= tolerance);

  // ---- y = A x, written in the caller's row order ----
  double output_s = 0;
  if (!o.output.empty()) {
    const double t0 = MPI_Wtime();
    m.apply(V(1), x, V(0), y, stream);  // once more, alpha 1 and beta 0 whatever was timed
    if (cuda) {
      dist::gpu::synchronize(stream);
      copy_to_host(hy.data(), y, n * sizeof(V));
    }
    std::vector<V> caller(static_cast<std::size_t>(m.caller_rows()));
    m.from_partitioned(hy.data(), caller.data());
    write_vector_slices(m.comm(), o.output, m.global_rows(), m.caller_first_row(),
                        std::vector<double>(caller.begin(), caller.end()), y_options);
    output_s = MPI_Wtime() - t0;
  }

  // ---- per-rank table ----
  const auto records = gather_records({s.rows, s.nnz, s.interior_rows, s.boundary_rows, s.ghosts, s.sends,
                                       s.neighbours, static_cast<std::int64_t>(1000 * t_local.my_median_us),
                                       static_cast<std::int64_t>(1000 * t_comm.my_median_us),
                                       static_cast<std::int64_t>(1000 * t_apply.my_median_us),
                                       us_record(vendor.caller_order_us), us_record(vendor.same_order_us),
                                       us_record(vendor.ours_beside_caller_us), us_record(vendor.ours_beside_same_us),
                                       us_record(vendor.caller_order_alone_us), us_record(vendor.caller_order_graph_us),
                                       us_record(vendor.ours_beside_graph_us)},
                                      world);
  // The same on every rank (the options are), so the collective is skipped alike.
  const auto vendor_notes = vendor_asked ? dist::allgather(vendor.note, world) : std::vector<std::string>{};
  const auto formats = dist::allgather(s.format, world);
  const auto reasons = dist::allgather(s.format_reason, world);
  const auto params = dist::allgather(s.format_params, world);
  const auto halo_formats = dist::allgather(s.halo_format, world);
  const auto halo_reasons = dist::allgather(s.halo_format_reason, world);
  // The JSON's facts of the set-up matrix (collective); the timings of this run are added below.
  nlohmann::json j = o.json.empty() ? nlohmann::json() : setup_report(m, o.source, o.precision);
  if (!root) return check_failed ? 1 : 0;

  fmt::print("{:>5} {:>11} {:>12} {:>11} {:>10} {:>9} {:>10} {:>5} {:>10} {:>10} {:>10}  {}\n", "rank", "rows", "nnz",
             "interior", "boundary", "ghosts", "halo KiB", "nbrs", "local us", "comm us", "apply us", "format");
  for (int r = 0; r < ranks; ++r) {
    const auto& v = records[r];
    fmt::print("{:>5} {:>11} {:>12} {:>11} {:>10} {:>9} {:>10.1f} {:>5} {:>10.1f} {:>10.1f} {:>10.1f}  {} [{}]{} ({})\n",
               r, v[0], v[1], v[2], v[3], v[4], v[4] * sizeof(V) / 1024.0, v[6], v[7] / 1e3, v[8] / 1e3, v[9] / 1e3,
               formats[r], params[r],
               halo_formats[r].empty() ? ""
               : halo_reasons[r].rfind("timed", 0) == 0 ? ", halo " + halo_formats[r] + " [" + halo_reasons[r] + "]"
                                                        : ", halo " + halo_formats[r],
               reasons[r]);
  }
  fmt::print("timings over {} iterations after {} warm-up, us (median of the slowest rank; min / median / max over "
             "ranks of each rank's median):\n",
             iters, warmup);
  fmt::print("  local SpMV     {:>10.1f}   ({:.1f} / {:.1f} / {:.1f})\n", local_us, local_ranks.min, local_ranks.median,
             local_ranks.max);
  fmt::print("  halo exchange  {:>10.1f}   ({:.1f} / {:.1f} / {:.1f})\n", comm_us, comm_ranks.min, comm_ranks.median,
             comm_ranks.max);
  fmt::print("  apply          {:>10.1f}   ({:.1f} / {:.1f} / {:.1f})\n", apply_us, apply_ranks.min, apply_ranks.median,
             apply_ranks.max);
  if (cuda) {
    fmt::print("  host time to enqueue one apply {:.1f} us (median; max over ranks)\n", apply_host_us);
    fmt::print("  apply as a CUDA graph: {} (rank 0 launched {} so far)\n", graphs, m.graph_launches());
  }
  // The ratios: cuSPARSE's time over our local product's (the apply without the exchange) timed
  // beside it, the slowest rank of each; > 1 means faster than cuSPARSE.
  double cusparse_caller_us = 0, cusparse_same_us = 0, ours_caller_us = 0, ours_same_us = 0, cusparse_alone_us = 0;
  // One rank only (records[0]): cuSPARSE in a CUDA graph and our apply beside it.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double cusparse_graph_us = vendor_asked && records[0][15] > 0 ? records[0][15] / 1e3 : nan;
  const double ours_graph_us = vendor_asked && records[0][16] > 0 ? records[0][16] / 1e3 : nan;
  std::string vendor_note;
  for (int r = 0; vendor_asked && r < ranks; ++r) {
    if (records[r][10] < 0 && records[r][0] > 0) {
      cusparse_caller_us = cusparse_same_us = std::numeric_limits<double>::quiet_NaN();
      vendor_note = fmt::format("rank {}: {}", r, vendor_notes[r]);
      break;
    }
    cusparse_caller_us = std::max(cusparse_caller_us, records[r][10] / 1e3);
    cusparse_same_us = std::max(cusparse_same_us, records[r][11] / 1e3);
    ours_caller_us = std::max(ours_caller_us, records[r][12] / 1e3);
    ours_same_us = std::max(ours_same_us, records[r][13] / 1e3);
    cusparse_alone_us = std::max(cusparse_alone_us, records[r][14] / 1e3);
  }
  const bool have_vendor = vendor_asked && !std::isnan(cusparse_caller_us) && cusparse_caller_us > 0 &&
                           ours_caller_us > 0 && ours_same_us > 0;
  const double vs_caller = have_vendor ? cusparse_caller_us / ours_caller_us : std::numeric_limits<double>::quiet_NaN();
  const double vs_same = have_vendor ? cusparse_same_us / ours_same_us : std::numeric_limits<double>::quiet_NaN();
  // The same ratio from two loops of their own (cuSPARSE's, and the local SpMV's above).
  const double vs_alone = have_vendor ? cusparse_alone_us / local_us : std::numeric_limits<double>::quiet_NaN();
  if (have_vendor && q.order == "none" && cusparse_caller_us == cusparse_same_us)
    fmt::print("  vs cuSPARSE CSR on the same rows: {:.1f} us, {:.2f}x (cuSPARSE / local SpMV {:.1f} us timed "
               "alternately with it, slowest rank)\n",
               cusparse_caller_us, vs_caller, ours_caller_us);
  else if (have_vendor)
    fmt::print("  vs cuSPARSE CSR on the same rows: caller's order {:.1f} us, {:.2f}x; our order ({}) {:.1f} us, "
               "{:.2f}x (cuSPARSE / local SpMV {:.1f} us timed alternately with each, slowest rank)\n",
               cusparse_caller_us, vs_caller, q.order, cusparse_same_us, vs_same, ours_same_us);
  else if (vendor_asked)
    fmt::print("  vs cuSPARSE: not measured ({})\n", vendor_note);
  if (have_vendor)
    fmt::print("    timed in loops of their own instead: cuSPARSE {:.1f} us, {:.2f}x the local SpMV's {:.1f} us\n",
               cusparse_alone_us, vs_alone, local_us);
  const double vs_graph = cusparse_graph_us / ours_graph_us;  // NaN where not measured
  if (have_vendor && !std::isnan(vs_graph))
    fmt::print("    cuSPARSE captured in a CUDA graph as our apply is: {:.1f} us, {:.2f}x our apply's {:.1f} us "
               "timed alternately with it (kernel against kernel, the launch saved on both sides)\n",
               cusparse_graph_us, vs_graph, ours_graph_us);
  if (has_comm)
    fmt::print("  overlap efficiency {:.2f} ((local + exchange - apply) / min(local, exchange))\n", overlap);
  fmt::print("  {:.1f} GFLOP/s, {:.0f} GB/s effective per {} (CSR byte model){}\n", gflops, gbps_per_gpu,
             cuda ? "GPU" : "rank",
             copy_gbps > 0 ? fmt::format(", {:.0f}% of the device copy bandwidth {:.0f} GB/s", 100 * gbps_per_gpu / copy_gbps,
                                         copy_gbps)
                           : "");
  if (o.check)
    fmt::print("check: max relative error {:.2e} (tolerance {:.0e}): {}\n", max_rel_error, tolerance,
               check_failed ? "FAILED" : "passed");
  if (!o.output.empty())
    fmt::print("output: y = A x ({} entries, {}) written to {} in {:.3f} s\n", m.global_rows(),
               y_options.float32 ? "float32" : "float64", o.output, output_s);

  if (!o.json.empty()) {
    j["iters"] = iters;
    j["warmup"] = warmup;
    j["apply_median_us"] = apply_us;
    j["local_median_us"] = local_us;
    j["exchange_median_us"] = comm_us;
    j["apply_us_over_ranks"] = {{"min", apply_ranks.min}, {"median", apply_ranks.median}, {"max", apply_ranks.max}};
    j["local_us_over_ranks"] = {{"min", local_ranks.min}, {"median", local_ranks.median}, {"max", local_ranks.max}};
    j["exchange_us_over_ranks"] = {{"min", comm_ranks.min}, {"median", comm_ranks.median}, {"max", comm_ranks.max}};
    j["apply_host_us"] = apply_host_us;
    j["cuda_graphs"] = graphs;
    j["overlap_efficiency"] = has_comm ? nlohmann::json(overlap) : nlohmann::json(nullptr);
    j["gflops"] = gflops;
    j["effective_gbps_per_gpu"] = gbps_per_gpu;
    j["copy_gbps"] = copy_gbps;
    if (copy_gbps > 0) j["copy_fraction"] = gbps_per_gpu / copy_gbps;
    if (vendor_asked) {
      // cuSPARSE CSR on each rank's rows (slowest rank) and the ratio cuSPARSE / our local SpMV:
      // in the caller's numbering (what a cuSPARSE or PETSc user gets) and in ours (the kernel alone).
      auto number = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
      const double none = std::numeric_limits<double>::quiet_NaN();
      j["cusparse_caller_order_us"] = number(have_vendor ? cusparse_caller_us : none);
      j["cusparse_same_order_us"] = number(have_vendor ? cusparse_same_us : none);
      j["vs_cusparse_caller_order"] = number(vs_caller);
      j["vs_cusparse_same_order"] = number(vs_same);
      j["local_beside_cusparse_us"] = number(have_vendor ? ours_same_us : none);
      j["cusparse_alone_us"] = number(have_vendor ? cusparse_alone_us : none);
      j["vs_cusparse_alone"] = number(vs_alone);
      j["cusparse_graph_us"] = number(have_vendor ? cusparse_graph_us : none);
      j["apply_beside_cusparse_graph_us"] = number(have_vendor ? ours_graph_us : none);
      j["vs_cusparse_graph"] = number(have_vendor ? vs_graph : none);
      if (!have_vendor) j["cusparse_note"] = vendor_note;
    }
    if (o.check) j["max_rel_error"] = max_rel_error;
    j["x"] = o.x.empty() ? "random" : o.x;
    if (!o.output.empty()) j["output"] = o.output;
    // What recomputes this run's matrix and partition on a CPU (`distspmv model`, jobs/model_check.py;
    // issue 39): the generator's seed (--seed; a generator takes nothing else from the options),
    // METIS' and lp's seed, and the options as given (the fields above give what they led to).
    if (io::is_generator(o.source)) j["matrix"]["seed"] = o.seed;
    j["seed"] = o.seed;  // (also the seed of the random x and y)
    j["partition_seed"] = mo.metis_seed;
    j["requested"] = {{"format", o.format},       {"partition", o.partition},     {"order", o.order},
                      {"transport", o.transport}, {"backend", o.backend},         {"cuda_graphs", o.cuda_graphs},
                      {"vs_cusparse", o.vs_cusparse}, {"tune", o.tune}};
    for (int r = 0; r < ranks; ++r) {
      const auto& v = records[r];
      auto& e = j["per_rank"][static_cast<std::size_t>(r)];
      e["local_us"] = v[7] / 1e3;
      e["exchange_us"] = v[8] / 1e3;
      e["apply_us"] = v[9] / 1e3;
      if (vendor_asked && v[10] >= 0) {
        e["cusparse_caller_order_us"] = v[10] / 1e3;
        e["cusparse_same_order_us"] = v[11] / 1e3;
        e["local_beside_cusparse_us"] = v[13] / 1e3;
        if (v[12] > 0 && v[13] > 0) {
          e["vs_cusparse_caller_order"] = static_cast<double>(v[10]) / static_cast<double>(v[12]);
          e["vs_cusparse_same_order"] = static_cast<double>(v[11]) / static_cast<double>(v[13]);
        }
      }
    }
    std::ofstream out(o.json);
    out << j.dump(2) << "\n";
    if (!out) DSPMV_BAD_INPUT(o.json, "", "cannot write the JSON report");
  }
  return check_failed ? 1 : 0;
}

}  // namespace

int run_distributed(const run_options& o) {
  return o.precision == "float" ? run_typed<float>(o) : run_typed<double>(o);
}

int run_spmv(const run_options& o) {
  if (o.format == "all" || is_format_list(o.format) || o.tune) {
    dist::collective_try(MPI_COMM_WORLD, [&] {
      const std::string bench = o.tune ? std::string("--tune") : "--format " + o.format;
      if (comm_size(MPI_COMM_WORLD) > 1)
        DSPMV_BAD_INPUT(bench, "", "is the single-rank format benchmark; run it with one rank");
      if (!o.x.empty() || !o.output.empty())
        DSPMV_BAD_INPUT(o.x.empty() ? "--output" : "--x", "",
                        "is not available with " + bench + " (the format benchmark); name one format");
    });
    return run_format_bench(o);
  }
  return run_distributed(o);
}

}  // namespace distspmv::app
