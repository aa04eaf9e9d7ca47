// `--format auto`: picks a format for a local block from cheap statistics of its rows and, with
// tuning, from short timing trials of the candidates. It always says why.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv {

/// Row statistics the selector (and `distspmv info`) look at.
struct row_statistics {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  offset_type min_length = 0;
  offset_type max_length = 0;
  double mean_length = 0;
  double stddev_length = 0;
  global_index_type empty_rows = 0;
  global_index_type bandwidth = 0;     ///< max |row - col|
  global_index_type diagonals = 0;     ///< distinct col - row offsets
  double ell_padding = 0;              ///< rows * max_length / nnz (one global width)
  double sell32_padding = 0;           ///< slices of 32 consecutive rows, each padded to its max
  double sell32_sorted_padding = 0;    ///< the same after sorting rows by length within 256-row windows
  double sell32_window_padding = 0;    ///< the same within the 2048-row blocks of SELL's x windows
  /// The same with each block's first slice capped as sell-w's top-slice spill caps it
  /// (sell::detail::spill_cap at window_spill_costs' bytes), and what the caps spill:
  double sell32_window_capped_padding = 0;
  double sell32_window_spill = 0;       ///< the entries spilled, / nnz
  double sell32_window_spill_rows = 0;  ///< the rows with a spilled excess, / nnz
  /// The share of nonzeros in 2048-row blocks whose columns span at most the x window SELL stages
  /// in shared memory (sell::window_max_bytes of values); padding columns are not counted.
  double window_fit = 0;
  /// HDIA's slots (32-row hacks, each storing its own distinct diagonals) / nnz: the diagonal
  /// structure a renumbering keeps hack by hack (a stencil's rows after METIS) when the block as a
  /// whole has many distinct offsets. Measured only where it can decide (more than 32 diagonals,
  /// rows no longer than HDIA's per-hack limit); 0 = not measured, -1 = HDIA would refuse.
  double hdia_padding = 0;
  int value_bytes = 8;                 ///< 8 in double, 4 in float (the kernels' ranking differs)
  bool pattern = false;                ///< every value is 1 (and there is one): CSR stores no values
};

template <typename V, typename I>
row_statistics compute_row_statistics(const csr_matrix<V, I>& a);

/// The same statistics of a device CSR block, computed on the GPU without a host copy
/// (format_selector_cuda.cu); equal to the host version on download_csr(a).
template <typename V>
row_statistics compute_row_statistics(const device_csr_view<V>& a);

namespace detail {
// The steps the host and GPU statistics share (format_selector.cpp).
global_index_type capped_diagonals(global_index_type distinct);
/// The sums of SELL's x-window blocks: slots, and with the top slices capped; spilled entries and
/// rows; nonzeros of the blocks whose x window fits.
struct window_sums {
  double slots = 0, capped_slots = 0, spilled = 0, spilled_rows = 0, fit_nnz = 0;
};
void finish_row_statistics(row_statistics& s, double sum2, double sell32_slots, double sell32_sorted_slots,
                           const window_sums& windows);
/// The bytes sell-w's builders weigh a top slice's width by (sell::detail::spill_cap): a slot
/// (value and column: 16-bit in double, format_registry.cpp), a spilled entry (value and 32-bit
/// column) and a spilled row (spill_row_bytes, its round trips).
struct spill_costs {
  std::size_t slot = 0, spill = 0, row = 0;
};
spill_costs window_spill_costs(int value_bytes);
/// The columns a 2048-row block may span for its x window to be staged.
global_index_type window_fit_columns(int value_bytes);
/// Whether hdia_padding is worth measuring for these statistics (the rest filled in).
bool wants_hdia_padding(const row_statistics& s);
/// hdia_padding from HDIA's slot count (hdia::hack_slots; -1: refused).
double hdia_padding(offset_type slots, offset_type nnz);
}  // namespace detail

struct format_choice {
  std::string format;
  std::string reason;
};

/// Irregular blocks (format_selector.cpp): with values, adaptive CSR below small_irregular_nnz,
/// csr-split from huge_irregular_nnz in double, cuSPARSE CSR between and in float; a pattern
/// (no values), adaptive CSR below large_irregular_nnz, then csr-split in double and cuSPARSE in
/// float.
constexpr offset_type small_irregular_nnz = offset_type{3} << 19;  // 1.5 M
constexpr offset_type large_irregular_nnz = offset_type{16} << 20;
constexpr offset_type huge_irregular_nnz = offset_type{32} << 20;
/// Irregular blocks with values from large_irregular_nnz whose rows average at least this many
/// entries (and whose x windows do not fit) go to `panel` before the rules above.
constexpr double panel_min_mean_length = 10.0;

/// ELLR blocks whose stored bytes fit below this stay in the GPU's L2 (50 MB on H100 and H200)
/// beside x and y: there ELLR's padding costs little (format_selector.cpp, rule 2). Measured on
/// one H200 with ELL padding 2.27: ELLR beat SELL at 14 MB (1.21x against 1.10x cuSPARSE) and
/// lost at 27 MB (1.15x against 1.32x) and beyond.
constexpr std::size_t l2_resident_bytes = std::size_t{20} << 20;

/// sell-w multiplies each 2048-row window block with one thread block, so a block of fewer window
/// blocks than the GPU has SMs (132 on an H100 or H200) leaves SMs idle, and one thread block
/// streams only about 24 GB/s. On one H200, lognormal rows of mean 82-247 in 30-98 window blocks
/// ran sell-w at 0.18x, 0.55x, 0.84x and 1.27x cuSPARSE CSR (the last, S1, where CSR's gathers
/// were costly), and in 196-293 blocks at 1.50-1.54x (jobs/results/2026-12-02_h200_long_rows).
constexpr global_index_type sell_w_min_window_blocks = 132;

/// Bytes per nonzero each layout stores (and reads once per product) for these statistics:
/// ELLR's padded slots (16-bit columns where the bandwidth allows), SELL-C-sigma's slots after
/// sorting in windows of 256 rows, CSR's entries and row offsets (no values for a pattern).
struct format_bytes {
  double ellr = 0, sell = 0, csr = 0;
  double sell_windows = 0;  ///< SELL with x windows: slots sorted in 2048-row blocks
  bool ellr_16bit_columns = false, sell_16bit_columns = false;
};
format_bytes format_bytes_per_nonzero(const row_statistics& s);

/// Rule-based choice from the statistics alone.
format_choice select_format(const row_statistics& s, backend where);

/// Irregular blocks with values of short rows from this many nonzeros whose x windows do not fit
/// get `panel` timed beside the rule's pick by the order's trial (trial_formats).
constexpr offset_type trial_panel_nnz = offset_type{4} << 20;

/// The formats `--order auto` times on a block before it keeps an order (dist/matrix_order.cpp,
/// issues 36 and 37): select_format's pick, then on the GPU `panel` for irregular blocks with
/// values of at least trial_panel_nnz whose x windows do not fit but whose rows average under
/// panel_min_mean_length, or whatever their rows where `one_rank` (the block's product is the
/// whole apply). The rule keeps those from panel by their row lengths, which an order
/// does not change (rmat:22:8, mean row 7.7: 0.94x cuSPARSE in the caller's order), but after a
/// locality order short rows may share x's sectors too: R-MAT's rank blocks on 2 GPUs (16.3 M
/// nonzeros, mean 7.8) ran 1.33x cuSPARSE in degree order with panel. Longer rows below
/// large_irregular_nnz keep the rule's pick on several ranks: the bench lognormal's rank blocks on
/// 4 GPUs (11 M, mean 11) ran panel's local product 12% faster and the apply 19% slower
/// (jobs/results/2026-11-28_h200x4_exchange, run 4), which a trial of the local product would not
/// see (likely: the eager apply's packing of the halo, enqueued after the local product, waits for
/// panel's blocks, which hold every SM: 48 of 94 us on a 1 M-row block; 2026-12-04_h200_beside).
/// On one rank the trial times the apply itself.
std::vector<format_choice> trial_formats(const row_statistics& s, backend where, bool one_rank);

/// A halo block (boundary rows x ghost columns) whose rows are all at most this long is multiplied
/// one thread per row on the GPU (dist's plain halo product, meshes); longer rows make it irregular.
constexpr offset_type plain_halo_row = 32;
/// Irregular halo blocks from this many nonzeros are ordered for the GPU's gathers (dist's
/// order_halo_block) and may time panel beside the rule's pick (halo_trial_times_panel).
constexpr offset_type halo_panel_trial_nnz = offset_type{2} << 20;

/// Whether the GPU's halo trial (dist/matrix_order.cpp) times panel beside `pick`, the rule's
/// choice for a halo block of statistics `s`: from halo_panel_trial_nnz nonzeros with values, x
/// windows that do not fit, and rows averaging at least panel_min_mean_length (the rule's bound).
bool halo_trial_times_panel(const row_statistics& s, const format_choice& pick);

}  // namespace distspmv
