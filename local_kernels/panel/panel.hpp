// Column-sorted row panels (issue 16): x's gathers shared by the rows of a panel.
//
// Every CSR kernel gathers one 32-byte sector of x per entry wherever the columns of nearby rows
// differ (R-MAT, social graphs): the gathers, not the matrix bytes, bound it. Here the rows are cut
// into panels (at most panel_rows rows and about panel_entries entries), and a panel's entries
// are stored sorted by column. A warp's 32 consecutive entries then gather from few sectors
// wherever a column repeats in the panel (hub columns) or columns lie close, and one thread block
// multiplies the whole panel with its rows' sums in shared memory.
//
// The sums are race-free and in a fixed order without atomics:
//   * each row is dealt round-robin into pieces of at most piece_entries entries (more for a row
//     longer than max_slots pieces could hold); each piece is an accumulator slot, a row's slots
//     numbered consecutively;
//   * the panel's entries, in column order, are laid out in rounds of round_entries (the thread
//     block's 512 threads times 2) in which no slot appears twice; an entry that would repeat a
//     slot moves to a later round, and rounds are padded (slot padding_slot, value 0, the
//     panel's smallest column, so that every padding gathers one sector);
//   * the kernel ends each round with a barrier, so each slot receives one product per round,
//     rounds in order; then each row sums its slots in order.
// So every run, and the host SpMV, adds the same products in the same order.
//
// A row longer than panel_entries (a hub: a column of the whole graph in a rank's halo block) is
// cut into parts of consecutive entries, at most panel_entries each, so that no panel's rounds
// outlast the others' (R-MAT's 4-rank halo block: a 73,477-entry row took 72 rounds where the
// median panel took 26). A part is a panel row like any other; its sum goes to part_sums, and a
// second kernel adds each split row's parts in order and writes its y. Blocks without such rows
// have no parts and run one kernel.
//
//   panel rows: the rows, with each split row replaced by its parts (panel row = row where no row
//     is split; row_out empty)
//   panel p: panel rows [panel_row[p], panel_row[p + 1]), stored entries [panel_entry[p],
//     panel_entry[p + 1]) (a multiple of round_entries), slot offsets of its panel rows at
//     slot_begin[panel_row[p] + p + i], i = 0..rows (rows + 1 values, the last = the panel's slots)
//   entry k: values[k], col_idx[k], slot[k] (16-bit, the panel's slot; padding_slot: padding)
//   row_out[i]: panel row i's row of y (>= 0), or ~j for part j (its sum goes to part_sums[j])
//   split s: row split_row[s], parts [split_part[s], split_part[s + 1])
//
// Measured on one H200 (jobs/results/2026-11-27_h200_panels): rmat:22:16 in double after rcm
// (--order auto), 336.9 us as the distributed local SpMV against cuSPARSE CSR's 543.5 us on the
// caller's numbering (1.61x) and csr-split's 478-482 us; in degree order 320.3 us; in the
// generator's random numbering 518-528 us (1.03-1.06x).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/format_operator.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::panel {

struct panel_params {
  index_type panel_rows = 8192;        ///< rows per panel at most
  /// Entries per panel at most (a longer row is cut into parts); 0: nnz / target_panels, within
  /// [16384, 131072], so that a small block still gives every SM a few panels, and smaller where
  /// panels of about equal size would end in a part-filled wave (wave_panels).
  offset_type panel_entries = 0;
  /// Entries per accumulator slot (row pieces); 0: half the panel's rounds, at most 32 (a piece
  /// needs a round per entry, so longer pieces in short panels would mostly add padding).
  int piece_entries = 0;
  int max_slots = 6144;                ///< slots per panel: 48 KiB of shared memory in double
  /// Panels the GPU runs at once (a wave): four thread blocks of 512 threads (32 registers, at
  /// most 48 KiB of slots) on each of an H100's or H200's 132 SMs. With `panel_entries = 0`, where
  /// the panels would end in a part-filled wave, they are cut smaller to fill their last one if
  /// that shortens the dispatch's makespan by a tenth (plan_panels; 0: never).
  offset_type wave_panels = 528;
};

/// Panels `panel_entries = 0` aims at first: about one wave.
constexpr offset_type target_panels = 512;
constexpr offset_type min_panel_entries = 16384, max_panel_entries = 131072;

/// The CUDA kernel's thread block and entries per thread per round (the layout depends on them).
constexpr int block_threads = 512;
constexpr int entries_per_thread = 2;
constexpr offset_type round_entries = offset_type{block_threads} * entries_per_thread;
/// The slot of a padding entry (never added).
constexpr std::uint16_t padding_slot = 0xffff;

/// Owning host panels.
template <typename ValueType>
struct panel_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz = 0;
  std::vector<index_type> panel_row;       ///< [panels + 1] first row of each panel
  std::vector<offset_type> panel_entry;    ///< [panels + 1] first stored entry of each panel
  std::vector<index_type> dispatch;        ///< [panels] the panels in the order the kernel's blocks take them (dispatch_order)
  std::vector<std::uint16_t> slot_begin;   ///< [panel rows + panels] per panel, its rows' first slots and the end
  std::vector<index_type> col_idx;         ///< [panel_entry.back()]
  std::vector<ValueType> values;           ///< [panel_entry.back()]
  std::vector<std::uint16_t> slot;         ///< [panel_entry.back()]
  std::vector<index_type> row_out;         ///< [panel rows] where a row is split, else empty
  std::vector<index_type> split_row;       ///< [splits] the rows cut into parts
  std::vector<index_type> split_part;      ///< [splits + 1] first part of each (empty: none)
  std::vector<ValueType> part_sums;        ///< [parts] zeros; the view's copy is the kernel's scratch
  int max_slots = 0;                       ///< the most slots of one panel (shared memory per block)
  panel_params params;
  format_stats stats;
};

/// What a kernel sees.
template <typename ValueType>
struct panel_view {
  global_index_type rows = 0;
  global_index_type cols = 0;
  index_type panels = 0;
  int max_slots = 0;
  const index_type* panel_row = nullptr;
  const offset_type* panel_entry = nullptr;
  const index_type* dispatch = nullptr;     ///< thread block b multiplies panel dispatch[b]
  const std::uint16_t* slot_begin = nullptr;
  const index_type* col_idx = nullptr;
  const ValueType* values = nullptr;
  const std::uint16_t* slot = nullptr;
  index_type splits = 0;                    ///< rows cut into parts (0: row_out and the rest null)
  const index_type* row_out = nullptr;
  const index_type* split_row = nullptr;
  const index_type* split_part = nullptr;
  ValueType* part_sums = nullptr;           ///< the one array a kernel writes (see traits::view_of)
};

/// Builds the panels from CSR (deterministic, the input is only read; OpenMP over panels). Throws
/// bad_input for invalid parameters or more than 2^31 - 1 rows.
template <typename ValueType>
panel_matrix<ValueType> build(const csr_matrix<ValueType, index_type>& a, const panel_params& params);

/// Builds on the GPU from a device CSR block (DESIGN.md §11): the same arrays as build() on
/// download_csr(a), bitwise, the same statistics and the same refusals (bad_input). The panel
/// cuts and slot offsets come from the downloaded row pointer (8 bytes per row); the entries never
/// leave the GPU. `a` is only read (the caller frees it).
template <typename ValueType>
device_built<panel_view<ValueType>> build_cuda(device_csr<ValueType>&& a, const panel_params& params);

/// What both builders compute from the row pointer alone: the parameters with the automatic
/// sizes resolved, the split rows, the panel cuts, the slot offsets (panel_matrix's fields of the
/// same names) and the most slots of a panel. Checks the parameters (bad_input).
struct panel_plan {
  panel_params params;
  /// [panel rows + 1] each panel row's entries in the CSR block, where a row is split; empty:
  /// the panel rows are the rows (use the block's row pointer)
  std::vector<offset_type> part_ptr;
  std::vector<index_type> row_out, split_row, split_part;
  std::vector<index_type> panel_row;
  std::vector<std::uint16_t> slot_begin;
  int max_slots = 0;
  /// The panel rows' entry pointer: part_ptr, or `row_ptr` where no row is split.
  const std::vector<offset_type>& panel_row_ptr(const std::vector<offset_type>& row_ptr) const {
    return part_ptr.empty() ? row_ptr : part_ptr;
  }
};
panel_plan plan_panels(const std::vector<offset_type>& row_ptr, const panel_params& params);

/// Entries per slot of a row of `len` entries (piece_entries, or more where the row would need
/// more than max_slots slots), the slots of such a row (its pieces), the statistics' parameter
/// text, and the bytes stored (both builders' stats.stored_bytes).
offset_type piece_length(offset_type len, const panel_params& resolved);
offset_type row_slots(offset_type len, const panel_params& resolved);
std::string params_text(const panel_plan& plan);
std::size_t stored_bytes(const panel_plan& plan, std::size_t panel_entries, offset_type stored, std::size_t value_bytes);

/// The order in which the kernel's thread blocks take the panels (of `panel_entry`, over `wave`
/// places, panel_params::wave_panels): the most stored entries first, ties in panel order, where
/// that shortens the makespan of the blocks by a tenth (a panel costing its entries and 4
/// rounds); else panel order. The GPU starts blocks in that order as places free up. Rows in rcm
/// order cut large and small panels in runs, and taken in panel order a run of large ones ends
/// the kernel (gen:rmat:22:16: 339 -> 313 us); panels already balanced keep the order in which
/// neighbouring panels share x in the L2 cache (a banded lognormal block lost 6% shuffled).
std::vector<index_type> dispatch_order(const std::vector<offset_type>& panel_entry, offset_type wave);

/// Back to CSR (round-trip check): entries in column order within each row.
template <typename ValueType>
csr_matrix<ValueType, index_type> to_csr(const panel_matrix<ValueType>& m);

/// Sequential y = alpha*A*x + beta*y (beta == 0 overwrites y), the products added in the kernel's
/// order.
template <typename ValueType>
void spmv_reference(const panel_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y);

/// CUDA SpMV on device arrays, launched on `stream`.
template <typename ValueType>
void spmv_cuda(const panel_view<ValueType>& a, ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
               cuda_stream_t stream);

/// Traits for format_operator.
struct traits {
  using params = panel_params;
  template <typename V>
  using matrix = panel_matrix<V>;
  template <typename V>
  using view = panel_view<V>;
  template <typename V, typename Map>
  static panel_view<V> view_of(const panel_matrix<V>& m, Map&& map) {
    panel_view<V> v;
    v.rows = m.rows;
    v.cols = m.cols;
    v.panels = static_cast<index_type>(m.panel_row.size() - 1);
    v.max_slots = m.max_slots;
    v.panel_row = map(m.panel_row);
    v.panel_entry = map(m.panel_entry);
    v.dispatch = map(m.dispatch);
    v.slot_begin = map(m.slot_begin);
    v.col_idx = map(m.col_idx);
    v.values = map(m.values);
    v.slot = map(m.slot);
    v.splits = static_cast<index_type>(m.split_row.size());
    if (v.splits > 0) {
      v.row_out = map(m.row_out);
      v.split_row = map(m.split_row);
      v.split_part = map(m.split_part);
      v.part_sums = const_cast<V*>(map(m.part_sums));  // scratch: the kernel's partial sums
    }
    return v;
  }
};

}  // namespace distspmv::panel
