// The locality order inside the in-place setup on the CUDA backend (issue 37): the order is
// computed on the GPU from the split's local block and applied there (dist/setup/gpu_order.hpp).
//
// `--order auto` (the default) first asks the sample rule (choose_order, dist/setup/order.hpp):
// where the caller's numbering is already local, nothing is done. Elsewhere the rule only says an
// order may pay; whether it does depends on the format and the matrix (rcm cost 8% on uk-2007 and
// took a banded lognormal matrix from 1.28x to 1.12x cuSPARSE). So each rank times its local
// product as read, in rcm order and in degree order, each in the format the selector picks for
// it (and the formats trial_formats adds: panel for large blocks of short irregular rows), and
// keeps the fastest; an order must beat the best format in the read order by order_trial_margin,
// so that the default never costs more than the timing's noise. The operator timed is the one
// kept: the setup builds no format twice for the winner.
#include <algorithm>
#include <string>
#include <utility>

#include "dist/matrix_impl.hpp"
#include "local_kernels/device_csr.hpp"

namespace distspmv {

namespace {

using partition::order_trial_margin;
constexpr int trial_warmups = 3, trial_repeats = 9;
constexpr double trial_batch_us = 200;

}  // namespace

double median_product_us(cuda_stream_t stream, const std::function<void()>& product) {
  auto start = gpu::make_event(true), stop = gpu::make_event(true);
  auto batch_us = [&](int count) {
    gpu::record(start.get(), stream);
    for (int i = 0; i < count; ++i) product();
    gpu::record(stop.get(), stream);
    gpu::synchronize(stream);
    return 1000.0 * gpu::elapsed_ms(start.get(), stop.get()) / count;
  };
  batch_us(trial_warmups);
  const double one = batch_us(1);
  const int count = static_cast<int>(std::clamp(trial_batch_us / std::max(one, 0.1), 1.0, 64.0));
  std::vector<double> us;
  for (int i = 0; i < trial_repeats; ++i) us.push_back(batch_us(count));
  std::nth_element(us.begin(), us.begin() + trial_repeats / 2, us.end());
  return us[trial_repeats / 2];
}

/// Median microseconds of the rank's product (alpha 1, beta 0) on the current local operator, as
/// the apply runs it without the exchange: the local block, beside it on a high-priority stream the
/// halo block (built already), then its scatter into y at `halo_rows` (the boundary rows in the
/// candidate's numbering). The two blocks run side by side because they do so in the apply, and
/// one after the other they do not show how they share the GPU (rmat:22:8 on 2 GPUs: both ranks
/// kept degree order and panel; the one whose halo block stayed cuSPARSE ran 154.5 us beside it,
/// the other 128.3; jobs/results/2026-11-28_h200x2_halo_order, run 4). `halo_rows` are where the
/// kept order will leave them (ascending: sort_halo_rows); with the halo rows in their old order an
/// order's scatter jumped, and on 2 GPUs (rmat:22:16, half of the entries in ghost columns) degree
/// order's 13% gain shrank to 1.5% (jobs/results/2026-11-28_h200x2_validate, run 4).
template <typename V>
double distributed_matrix<V>::impl::time_local_apply(const std::vector<index_type>& halo_rows_now) {
  const auto n = static_cast<std::size_t>(std::max<global_index_type>(1, n_owned));
  const auto n_ghost = static_cast<std::size_t>(std::max<global_index_type>(1, plan.a_halo.cols));
  const auto n_halo = static_cast<global_index_type>(halo_rows_now.size());
  const bool with_halo = n_halo > 0 && (short_halo.rows > 0 || halo != nullptr);
  auto x = gpu::allocate_device(n * sizeof(V));
  auto y = gpu::allocate_device(n * sizeof(V));
  auto ghost = gpu::allocate_device(n_ghost * sizeof(V));
  auto t = gpu::allocate_device(static_cast<std::size_t>(std::max<global_index_type>(1, n_halo)) * sizeof(V));
  auto rows = gpu::allocate_device(static_cast<std::size_t>(std::max<global_index_type>(1, n_halo)) * sizeof(index_type));
  std::vector<V> hx(std::max(n, n_ghost));
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = V(1) + static_cast<V>(i % 17) / V(16);
  auto stream = gpu::make_stream(), beside = gpu::make_stream(/*high_priority=*/true);
  auto forked = gpu::make_event(), joined = gpu::make_event();
  gpu::copy_async(x.get(), hx.data(), n * sizeof(V), stream.get());
  gpu::copy_async(ghost.get(), hx.data(), n_ghost * sizeof(V), stream.get());
  if (n_halo > 0)
    gpu::copy_async(rows.get(), halo_rows_now.data(), halo_rows_now.size() * sizeof(index_type), stream.get());
  gpu::synchronize(stream.get());  // (the host vectors go out of scope before the products end)
  const auto* xv = static_cast<const V*>(x.get());
  auto* yv = static_cast<V*>(y.get());
  const auto* gv = static_cast<const V*>(ghost.get());
  auto* tv = static_cast<V*>(t.get());
  const auto* rv = static_cast<const index_type*>(rows.get());
  return median_product_us(stream.get(), [&] {
    if (with_halo) {
      gpu::record(forked.get(), stream.get());
      gpu::wait(beside.get(), forked.get());
    }
    local->apply(V(1), xv, V(0), yv, stream.get());
    if (!with_halo) return;
    if (short_halo.rows > 0)
      gpu::halo_product(short_halo, V(1), gv, tv, beside.get());
    else
      halo->apply(V(1), gv, V(0), tv, beside.get());
    gpu::record(joined.get(), beside.get());
    gpu::wait(stream.get(), joined.get());
    gpu::scatter_add(tv, rv, n_halo, yv, stream.get());
  });
}

/// On 2 GPUs R-MAT's halo blocks hold 16 M of a rank's 33 M nonzeros (rmat:22:16, block), in rows
/// of 20 entries on average, below the 16 Mi from which the selector's rule picks panel on one GPU;
/// ordered by order_halo_block, their hub ghosts sit together as the degree order puts them. So
/// halo blocks from halo_panel_trial_nnz nonzeros whose rows average at least
/// panel_min_mean_length (the rule's own bound: short rows make short panels with few repeated
/// columns, local_kernels/panel/README.md) time panel beside the selector's pick, and panel must
/// win by order_trial_margin. Panel's 2 GPU gain (rmat:22:16, 133 -> 90-110 us a halo block) did
/// not show on 4 GPUs, where the exchange stays on the apply's path
/// (jobs/results/2026-11-28_h200x4_halo_order).
template <typename V>
std::unique_ptr<local_operator<V>> distributed_matrix<V>::impl::halo_trial(const csr_matrix<V, index_type>& a_halo,
                                                                        std::string& chosen, std::string& note) {
  const auto stats = compute_row_statistics(a_halo);
  const auto pick = select_format(stats, options.where);
  chosen = pick.format;
  note = pick.reason;
  if (!halo_trial_times_panel(stats, pick)) return make_operator<V>(chosen, a_halo, options.where);

  const auto n_ghost = static_cast<std::size_t>(std::max<global_index_type>(1, a_halo.cols));
  auto ghost = gpu::allocate_device(n_ghost * sizeof(V));
  auto t = gpu::allocate_device(static_cast<std::size_t>(std::max<global_index_type>(1, a_halo.rows)) * sizeof(V));
  std::vector<V> hx(n_ghost);
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = V(1) + static_cast<V>(i % 17) / V(16);
  auto stream = gpu::make_stream();
  gpu::copy_async(ghost.get(), hx.data(), n_ghost * sizeof(V), stream.get());
  gpu::synchronize(stream.get());
  auto time = [&](local_operator<V>& op) {
    return median_product_us(stream.get(), [&] {
      op.apply(V(1), static_cast<const V*>(ghost.get()), V(0), static_cast<V*>(t.get()), stream.get());
    });
  };
  // Both built on the GPU from an upload each (the host's panel build of a 16 M-nonzero halo block
  // took seconds).
  auto best = make_operator<V>(pick.format, upload_csr(a_halo));
  const double pick_us = time(*best);
  std::unique_ptr<local_operator<V>> panel;
  try {
    panel = make_operator<V>("panel", upload_csr(a_halo));
  } catch (const std::exception& e) {  // (out of GPU memory beside the pick): the pick it is
    note = fmt::format("{}; panel not timed ({})", pick.reason, e.what());
    return best;
  }
  const double panel_us = time(*panel);
  note = fmt::format("timed: {} {:.1f} us, panel {:.1f} us", pick.format, pick_us, panel_us);
  if (panel_us < pick_us * (1.0 - order_trial_margin)) {
    chosen = "panel";
    return panel;
  }
  return best;
}

namespace {

/// Local rows renamed by an order (new -> old); an empty order keeps them.
std::vector<index_type> renamed(const std::vector<index_type>& rows, const std::vector<index_type>& order) {
  if (order.empty()) return rows;
  std::vector<index_type> new_of(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) new_of[static_cast<std::size_t>(order[k])] = static_cast<index_type>(k);
  std::vector<index_type> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = new_of[static_cast<std::size_t>(rows[i])];
  return out;
}

/// The halo rows' places after an order as sort_halo_rows leaves them: renamed, ascending.
std::vector<index_type> renamed_ascending(const std::vector<index_type>& rows, const std::vector<index_type>& order) {
  auto out = renamed(rows, order);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

template <typename V>
void distributed_matrix<V>::impl::order_in_place(gpu_split<V>& s) {
  auto order_of = [&](row_order method) {
    // degree counts the whole row, as the host's degree_order does on the rank's rows.
    std::vector<offset_type> halo_length;
    if (method == row_order::degree && !plan.halo_rows.empty()) {
      halo_length.assign(static_cast<std::size_t>(n_owned), 0);
      for (std::size_t i = 0; i < plan.halo_rows.size(); ++i) halo_length[plan.halo_rows[i]] = plan.a_halo.row_length(i);
    }
    return local_order_on_gpu(s.a_local.view(), method, halo_length);
  };
  // The trial holds the block as read, one candidate block and the best operator so far, and
  // rcm's scratch (two 8-byte edge keys per entry, sorted out of place): every rank must fit it.
  const double block_bytes = static_cast<double>(s.a_local.nnz) * (sizeof(V) + sizeof(index_type)) +
                             static_cast<double>(n_owned + 1) * sizeof(offset_type);
  const double trial_bytes = 3 * block_bytes + 40.0 * static_cast<double>(s.a_local.nnz);
  const bool trial = options.order == row_order::automatic &&
                     allreduce_max(static_cast<std::int64_t>(trial_bytes > static_cast<double>(device_memory().free)),
                                   comm) == 0;
  std::vector<index_type> chosen;
  if (!trial) {
    try {
      collective_try(comm, "order", [&] { chosen = order_of(order); });
    } catch (const error& e) {  // (agreed on every rank)
      if (options.order != row_order::automatic) throw;
      order = row_order::none;  // auto without room for its trial: an order it cannot make is none
      order_reason += fmt::format("; the GPU could not order the rows ({}), none", e.what());
    }
  } else {
    // Every rank runs the same steps (build_local_on_gpu is collective); each keeps its own winner.
    std::unique_ptr<local_operator<V>> best;
    std::string best_format, best_reason, best_params, note;
    double best_us = 0;
    row_order kept = row_order::none;
    for (const row_order method : {row_order::none, row_order::rcm, row_order::degree}) {
      device_csr<V> block;
      std::vector<index_type> candidate;
      std::vector<format_choice> formats{{options.format, "requested"}};
      try {
        collective_try(comm, "order", [&] {
          if (method == row_order::none) {
            block = copy_csr_on_gpu(s.a_local.view());
          } else {
            candidate = order_of(method);
            block = permuted_csr_on_gpu(s.a_local.view(), candidate);
          }
          if (options.format == "auto")
            formats = trial_formats(compute_row_statistics(block.view()), options.where, comm_size(comm) == 1);
        });
      } catch (const error& e) {  // (agreed on every rank) an order the GPU cannot make is left out
        if (method == row_order::none) throw;
        note += fmt::format(", {} refused ({})", to_string(method), e.what());
        continue;
      }
      // The same number of formats on every rank: build_local_on_gpu is collective.
      const auto count = static_cast<std::size_t>(allreduce_max(static_cast<std::int64_t>(formats.size()), comm));
      for (std::size_t f = 0; f < count; ++f) {
        const bool mine = f < formats.size();
        device_csr<V> b;
        collective_try(comm, "order", [&] {
          if (f + 1 < count) b = copy_csr_on_gpu(block.view());
        });
        if (f + 1 == count) b = std::move(block);
        summary.format = mine ? formats[f].format : formats.back().format;
        summary.format_reason = mine ? formats[f].reason : formats.back().reason;
        const auto built = std::chrono::steady_clock::now();
        try {
          build_local_on_gpu(std::move(b));
        } catch (const error& e) {
          if (f == 0 && method == row_order::none) throw;  // as the setup without a trial would
          note += fmt::format(", {} {} refused ({})", to_string(method), summary.format, e.what());
          continue;  // (refused on every rank: build_local_on_gpu agrees on failures)
        }
        const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - built).count();
        double us = 0;
        // The scatter as it will run: the halo rows follow the order (sort_halo_rows below); the
        // halo block itself is timed in its rows' present order. Ranks that share a GPU time one
        // at a time (each as if the GPU were its own).
        collective_try(comm, "order", [&] {
          in_gpu_turns("the order's trial", [&] { us = time_local_apply(renamed_ascending(plan.halo_rows, candidate)); });
        });
        if (mine)
          note += fmt::format("{}{} {} {:.1f} us", note.empty() ? "" : ", ", to_string(method), summary.format, us);
        const double need = kept == row_order::none && method != row_order::none ? 1.0 - order_trial_margin : 1.0;
        if (mine && (best == nullptr || us < best_us * need)) {
          best = std::move(local);
          best_us = us;
          best_format = summary.format;
          best_reason = summary.format_reason;
          best_params = summary.format_params;
          kept = method;
          chosen = candidate;
          kept_build_s = build_s;
        }
        local.reset();
      }
    }
    local = std::move(best);
    summary.format = best_format;
    summary.format_reason = best_reason;
    summary.format_params = best_params;
    order = kept;
    order_reason += "; local product timed on this rank's GPU: " + note + "; kept " + to_string(kept) +
                    " (an order must beat the read order by " + fmt::format("{:.0f}%", 100 * order_trial_margin) + ")";
  }
  collective_try(comm, "order", [&] {
    if (chosen.empty()) return;  // none kept, or no rows
    permute_split_on_gpu(s, chosen);
    plan.halo_rows = renamed(plan.halo_rows, chosen);
    sort_halo_rows(plan, options.keep_for_update);
    map.local_new_pos.assign(chosen.size(), 0);
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      map.local_new_pos[static_cast<std::size_t>(chosen[k])] = static_cast<index_type>(k);
      caller_ids[k] = caller_first + chosen[k];
    }
    // Ghost ids stay the caller's (the ranks' read ranges): this rank sends each id asked of it
    // from its new place.
    for (auto& i : plan.send_idx) i = map.local_new_pos[static_cast<std::size_t>(i)];
  });
  // The halo rows moved: their operator again, in the format chosen before (no second trial), on
  // every rank where any rank's moved (build_halo_operator is collective).
  if (allreduce_max(static_cast<std::int64_t>(!chosen.empty()), comm) != 0) build_halo_operator();
  ordered_in_place = order != row_order::none;
}

#define DSPMV_INSTANTIATE(V)                                                      \
  template double distributed_matrix<V>::impl::time_local_apply(const std::vector<index_type>&); \
  template std::unique_ptr<local_operator<V>> distributed_matrix<V>::impl::halo_trial(            \
      const csr_matrix<V, index_type>&, std::string&, std::string&);                              \
  template void distributed_matrix<V>::impl::order_in_place(gpu_split<V>&);
DSPMV_INSTANTIATE(double)
DSPMV_INSTANTIATE(float)
#undef DSPMV_INSTANTIATE

}  // namespace distspmv
