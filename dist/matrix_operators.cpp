// The local and halo operators of a distributed matrix (built on the host or on the GPU, in the
// format the selector picks) and its exchange buffers.
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "dist/matrix_impl.hpp"

namespace distspmv {

using matrix_detail::require_memory;
using matrix_detail::seconds_since;

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

namespace {

/// `a` with values of type V: itself in double, else a converted copy held in `storage` (the
/// halo block of R-MAT on 2 ranks is 16 M entries, 200 MB of host memory a copy).
template <typename V>
const csr_matrix<V, index_type>& in_values(const csr_matrix<double, index_type>& a,
                                           std::optional<csr_matrix<V, index_type>>& storage) {
  if constexpr (std::is_same_v<V, double>) {
    return a;
  } else {
    storage = convert_csr<V, index_type>(a);
    return *storage;
  }
}

}  // namespace

template <typename V>
void distributed_matrix<V>::impl::build_halo_operator() {
  offset_type longest_halo_row = 0;
  for (global_index_type r = 0; r < plan.a_halo.rows; ++r)
    longest_halo_row = std::max(longest_halo_row, plan.a_halo.row_length(r));
  const bool plain = cuda() && plan.a_halo.rows > 0 && longest_halo_row <= short_halo_row;
  const auto t0 = std::chrono::steady_clock::now();
  auto build = [&] {
    halo.reset();
    short_halo = {};
    short_storage = device_storage();
    std::optional<csr_matrix<V, index_type>> converted;
    const auto& a_halo = in_values<V>(plan.a_halo, converted);
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
      // From 2 M nonzeros panel is timed beside the selector's pick (halo_trial); update_values
      // keeps the format chosen at setup.
      const bool select = cuda() && options.format == "auto";
      if (select && summary.halo_format.empty()) {
        halo = halo_trial(a_halo, chosen, summary.halo_format_reason);
      } else {
        chosen = select ? summary.halo_format : "csr";
        // On the GPU from an upload (a panel block built on the host took seconds at 16 M entries).
        halo = cuda() ? make_operator<V>(chosen, upload_csr(a_halo)) : make_operator<V>(chosen, a_halo, options.where);
      }
    }
    summary.halo_format = plain ? "plain" : chosen;
  };
  // halo_trial times its candidates: ranks that share a GPU take turns, as in the order's trial.
  collective_try(comm, "operators", [&] { in_gpu_turns("the halo block's trial", build); });
  if (!buffers_made) times.halo_operator += seconds_since(t0);  // (setup's; update_values rebuilds it)
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

#define DSPMV_INSTANTIATE(V)                                                        \
  template void distributed_matrix<V>::impl::build_operators();                     \
  template void distributed_matrix<V>::impl::build_local_on_host(csr_matrix<V, index_type>&&); \
  template void distributed_matrix<V>::impl::build_local_on_gpu(device_csr<V>&&);   \
  template void distributed_matrix<V>::impl::build_halo_operator();                 \
  template void distributed_matrix<V>::impl::make_buffers();
DSPMV_INSTANTIATE(double)
DSPMV_INSTANTIATE(float)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv
