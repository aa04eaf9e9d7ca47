// `distspmv model` (issue 39): the apply at P ranks predicted on one CPU. Three parts:
//   halo_figures.cpp  the matrix's pattern, the partition at P ranks as the real partitioners make
//                     it (block: the read ranges; lp: label propagation of P ranks in one process;
//                     metis: the same METIS call), and per rank what the halo plan would hold
//   machine.cpp       a machine description (JSON, jobs/machines/) and the time model
//   run_model.cpp     the subcommand: a table per P and --json
// docs/performance.md ("Past four GPUs") gives the model and its check against measured runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/types.hpp"
#include "partition/locality.hpp"

namespace distspmv::model {

/// A matrix's pattern (values dropped), streamed in row chunks from a file or generator.
struct pattern {
  std::string source;
  bool generator = false;
  global_index_type rows = 0;
  std::vector<offset_type> row_ptr{0};
  std::vector<global_index_type> col;
  offset_type nnz() const { return row_ptr.back(); }
};

/// Reads `source` (gen:..., .mtx[.gz], .h5, .petsc) in chunks of rows, keeping the pattern only.
/// Square matrices only (bad_input otherwise).
pattern read_pattern(const std::string& source, std::uint64_t seed);

/// The row ranges a P-rank run reads (dist/setup/load.cpp): equal row counts for generators,
/// equal nonzeros for files. `--partition block` keeps them.
std::vector<global_index_type> read_ranges(const pattern& a, int ranks);

/// What one rank's halo plan would hold (dist/setup/halo_plan.cpp, dist/matrix_summary.cpp).
struct rank_figures {
  global_index_type rows = 0;
  offset_type nnz = 0;
  offset_type ghosts = 0;          ///< distinct columns owned elsewhere (the report's "ghosts")
  offset_type sends = 0;           ///< x entries this rank packs for the others ("sends")
  offset_type halo_nnz = 0;        ///< entries in ghost columns (the halo block)
  global_index_type boundary_rows = 0;
  int neighbours = 0;              ///< ranks it sends to or receives from ("neighbours")
  int neighbours_off_host = 0;     ///< of them, on another host
  offset_type ghosts_off_host = 0; ///< ghosts owned by ranks on another host
  offset_type sends_off_host = 0;  ///< sends to ranks on another host
  /// Gather locality of the local block: the distinct 64-byte lines of x (8 doubles, in the
  /// rank's numbering) that each 32 consecutive rows read, summed over the rank's rows.
  offset_type x_lines = 0;
  offset_type max_row = 0;  ///< the longest row's nonzeros (a row is one thread group's work)
  /// Gather locality of the local block stored as panels (local_kernels/panel: rows cut as
  /// plan_panels cuts them, each panel's entries sorted by column): the distinct 128-byte lines of
  /// x (panel_line_doubles doubles) each panel reads, summed over the panels. Computed where the
  /// local block has at least panel_figures_nnz nonzeros (0 elsewhere).
  offset_type panel_lines = 0;
  offset_type local_nnz() const { return nnz - halo_nnz; }
  /// `--order auto`'s trial on this rank (dist/matrix_order.cpp), where the sample rule says the
  /// numbering is not local (trial = true): the same figures of the local block in degree order
  /// (rows and owned columns renamed by partition::degree_order of the whole rows, as the GPU's
  /// order does) and, where rcm_trial, in rcm order (partition::rcm_order of the block, which the
  /// GPU's equals), and for blocks of at least trial_panel_nnz local nonzeros the formats the
  /// trial times in each order (trial_formats of the block's row statistics; empty: the block is
  /// smaller and the trial times only the selector's pick, the same in every order). rcm's figures
  /// are computed for those large blocks (where the trial can keep panel in rcm order) and where
  /// rcm is requested: rcm costs the model as much as the rest of a block's figures.
  bool trial = false, rcm_trial = false;
  offset_type degree_x_lines = 0, degree_panel_lines = 0;
  offset_type rcm_x_lines = 0, rcm_panel_lines = 0;
  std::vector<std::string> none_formats, degree_formats, rcm_formats;
  /// The halo block's trial on the GPU (dist/matrix_order.cpp's halo_trial): true where it times
  /// panel beside the selector's pick `halo_pick` (halo blocks of at least halo_panel_trial_nnz
  /// nonzeros, irregular, with values, rows averaging panel_min_mean_length or more, x windows not
  /// fitting). halo_x_lines: the halo block's x_lines, the distinct 64-byte lines of the ghost
  /// vector each 32 consecutive halo rows read, with the ghosts in the order order_halo_block gives
  /// them (most used first within each owner's group; the halo rows keep their order).
  /// halo_panel_lines: the halo block's panel_lines (panels as plan_panels cuts its rows, the
  /// ghosts in that order), the line term of its panel candidate.
  bool halo_trial = false;
  std::string halo_pick;
  offset_type halo_x_lines = 0;
  offset_type halo_panel_lines = 0;
  /// The local block's format as the program picks it: select_format on the block's
  /// compute_row_statistics (the real rule, local_kernels/format_selector.cpp), computed where the
  /// local block is built (panel figures, the order's trial, or CSR's bytes past l2_resident_bytes,
  /// which rule 2a needs before it picks sell-w); empty elsewhere.
  std::string pick;
  /// Where the pick is sell-w (x windows, rule 2a): the bytes the selector prices it at
  /// (format_bytes_per_nonzero's sell_windows x the block's nonzeros: capped slots, the spill with
  /// spill_row_bytes a spilled row, the row permutation) and x's windows the kernel stages in
  /// shared memory (8 bytes a column of each 2048-row block whose columns span a window that fits).
  double sell_w_bytes = 0;
  offset_type window_bytes = 0;
};

/// Panel lines are counted from this many local nonzeros (a forced `--format panel` on a
/// smaller block is predicted from x_lines).
constexpr offset_type panel_figures_nnz = offset_type{1} << 20;
/// rank_figures::panel_lines' unit: 128 bytes of x, the L1 and L2 caches' line (16 doubles).
constexpr offset_type panel_line_doubles = 16;

/// `--order auto`'s sample rule at P ranks: partition/locality.hpp's sample_locality on the first
/// sample_rows rows of each rank's read range, summed as dist's choose_order sums them, and
/// judge_locality on the sum.
struct order_rule {
  offset_type entries = 0, near_diagonal = 0, on_top_diagonals = 0, tile_sectors = 0, random_sectors_x1000 = 0;
  bool local = true;  ///< the numbering is already local: none, no trial
  std::string reason;
};
order_rule sample_order_rule(const pattern& a, int ranks);

/// Per rank figures of the partition `part` (row -> rank in [0, ranks)), hosts of
/// `gpus_per_host` consecutive ranks.
/// With `order_trial` (the sample rule says not local), each rank's trial figures too; with
/// `rcm_everywhere` (`--order rcm`) rcm's on every rank (rank_figures::rcm_trial).
std::vector<rank_figures> halo_figures(const pattern& a, const std::vector<int>& part, int ranks, int gpus_per_host,
                                       bool order_trial = false, bool rcm_everywhere = false);

/// The partitioners of a real run, for P ranks, in this process: "block", "lp", "metis" (exactly
/// what a P-rank run computes) or "ptscotch" (PT-Scotch in one process with P parts: the same
/// graph and library, not the same partition as P processes).
class partitioner {
 public:
  partitioner(const pattern& a, std::string method, int seed);
  std::vector<int> parts(int ranks) const;
  const std::string& method() const { return method_; }

 private:
  const pattern& a_;
  std::string method_;
  int seed_;
  struct graph_holder;
  std::shared_ptr<graph_holder> graph_;  ///< the symmetrised graph (lp, metis), built once
};

/// The machine description (jobs/machines/*.json; docs/performance.md describes the fields).
struct exchange_figures {
  double latency_us = 0;         ///< one exchange with one neighbour, nothing to send
  double per_neighbour_us = 0;   ///< each further neighbour
  double bandwidth_gbps = 1;     ///< GB/s per GPU, the larger of its sent and received bytes
  double overlap = 0;            ///< fraction of the exchange that the local SpMV hides
};
struct spmv_class {
  double floor_us = 0;  ///< one GPU, one apply of an empty matrix
  double row_ns = 0;    ///< each row (its pointer, its y, its share of the launch)
  double max_row_ns = 0;  ///< each entry of the rank's longest row (its critical path)
  double rate_gbps = 1; ///< CSR-equivalent bytes (nnz * 12 + rows * 24, double) per second
  /// The class's own rate of x_lines' gathers (0: the machine's gather_gbps).
  double gather_gbps = 0;
  /// Panels: x's 128-byte lines per panel (rank_figures::panel_lines) per second, in place of the
  /// gathers of x_lines; 0: no such term (x_lines at the gather rate instead).
  double line_gbps = 0;
  /// Where the order's trial times this class alone in each order (no trial format of its own):
  /// degree order's change of x_lines, 64 * (degree_x_lines - x_lines), at this rate (the marginal
  /// cost of a line between two orders of one block, fitted on the trials' own timings:
  /// jobs/model_check.py order); 0: the model keeps the read order there.
  double order_gather_gbps = 0;
  /// The format's own bytes per second (sell-w: rank_figures::sell_w_bytes + window_bytes, + 12 a
  /// halo nonzero where the halo block is not predicted on its own), in place of the CSR-equivalent
  /// bytes at rate_gbps and of x_lines' gathers (the windows stage x); 0: no such term. A block
  /// without those figures (sell_w_bytes 0) falls back to rate_gbps and the gathers.
  double format_bytes_gbps = 0;
};
struct machine {
  std::string file, description;
  double multi_rank_floor_us = 0;  ///< the floor of an apply on several ranks (two streams)
  double gather_gbps = 0;          ///< x's 64-byte lines gathered (rank_figures::x_lines) per second; 0: free
  std::vector<std::pair<std::string, spmv_class>> classes;  ///< a format's name, or diagonal / general
  std::vector<std::pair<std::string, exchange_figures>> transports;
  /// Exchange entries: on one host when all ranks are on one (auto's peer-put), on one host when the
  /// job spans several (auto's nccl), and across hosts.
  std::string single_host = "peer-put", on_host = "nccl", across_hosts = "network";
  const spmv_class& spmv(const std::string& cls) const;
  const exchange_figures& transport(const std::string& name) const;
};
machine read_machine(const std::string& path);

/// One rank's predicted times (µs) and what bounds them.
struct prediction {
  double local_us = 0, exchange_us = 0, apply_us = 0;
  std::string bound;  ///< "local SpMV", "apply floor", "exchange latency" or "halo volume"
  std::string order = "none", format;  ///< the order and format predicted (predict_rank)
  std::string halo_format;  ///< the halo block's class where it was predicted on its own
  double halo_us = 0;       ///< the halo block's product (its share of the SpMV), µs
};
/// `transport_on_host`: empty for the machine's (single_host where ranks <= gpus_per_host).
/// `halo_cls`: empty, the halo block's product is the rank's SpMV's share halo_nnz / nnz (class
/// `cls`); else the halo block in that class on its own: halo_nnz * 12 bytes at its rate,
/// 64 * halo_x_lines at the class's own gather rate or else the machine's gather_gbps, or for a
/// class with a line rate (panels) 128 * halo_panel_lines at that rate. `order_us`: added to the local
/// block's SpMV (an order's change of gathers at the class's order_gather_gbps, predict_rank).
prediction predict(const machine& m, const rank_figures& r, int ranks, int gpus_per_host, const std::string& cls,
                   const std::string& transport_on_host = "", const std::string& halo_cls = "",
                   double order_us = 0);

/// The rank's apply with the order as `order` says: "none" (the figures as they are, class
/// `cls`), "degree" (the degree-order figures), or "auto" (where r.trial: the trial's candidates,
/// each predicted, an order kept only where it beats the read order by order_trial_margin, as
/// dist/matrix_order.cpp keeps it). A candidate format the description has no class for takes `cls`.
/// `follow_pick`: where the block's pick (rank_figures::pick) is sell-w and the description has a
/// sell-w class, the read order's candidate is sell-w instead of `cls` (`--format-class auto`).
prediction predict_rank(const machine& m, const rank_figures& r, int ranks, int gpus_per_host, const std::string& cls,
                        const std::string& order, const std::string& transport_on_host = "",
                        bool follow_pick = true);
using partition::order_trial_margin;

/// The format class from the pattern: "diagonal" where at most 32 diagonals hold 95% of a sample
/// of rows' entries (what HDIA takes), else "general" (the CSR family at large blocks).
std::string guess_class(const pattern& a);

/// The command line's options.
struct options {
  std::string source;
  std::string ranks = "8,16,32,64,128,256,512,1024";
  std::string partition = "block";
  int gpus_per_host = 8;
  std::string machine;       ///< empty: the committed description, where the build knows it
  std::string format_class = "auto";
  std::string transport;     ///< on one host (empty: the machine's)
  std::string order = "auto";  ///< auto (the program's default), none, rcm or degree
  std::string json;
  bool per_rank = false;     ///< --per-rank: every rank's figures in the JSON
  std::uint64_t seed = 1;    ///< generator seed
  int partition_seed = 1;    ///< METIS / lp seed (matrix_options::metis_seed)
};

int run_model(const options& o);

}  // namespace distspmv::model
