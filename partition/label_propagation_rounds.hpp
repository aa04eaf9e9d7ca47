// Internal to partition/: the rounds of size-constrained label propagation as one rank runs them,
// without any communication. The MPI driver (label_propagation.cpp) runs one lp_rank per process
// and agrees its figures with MPI; the in-process driver (label_propagation_in_process.cpp) runs P
// of them in lockstep in one process and agrees the same figures by summing them, so that both
// give the same labels for the same rank ranges, seed and options (tests/partition).
//
// One sub-round of one rank, whichever driver:
//   figures(up)   this rank's part weights and last demands -> summed over the ranks -> agreed
//   sweep(up, agreed)   moves this rank's vertices (ghost labels as last received)
//   <the driver refreshes label[n..] from the owners' labels>
//   ghosts_received()   wakes the vertices next to ghosts that moved
#pragma once

#include <cstdint>
#include <vector>

#include "common/types.hpp"
#include "partition/distributed_graph.hpp"
#include "partition/partition.hpp"

namespace distspmv::partition::detail {

/// The graph of one rank in local ids: its vertices 0..n-1, then its ghosts (vertices of other
/// ranks adjacent to one of them) n..n+ghosts-1 in global id order, hence grouped by owner rank.
struct lp_local_graph {
  global_index_type n = 0;
  std::vector<offset_type> xadj;
  std::vector<index_type> adjncy;           ///< local ids of the neighbours
  std::vector<offset_type> weight;          ///< vertex weights of the n own vertices (row nonzeros)
  std::vector<global_index_type> ghost_id;  ///< global id of each ghost
  /// Each ghost's neighbours among this rank's vertices (the graph is symmetric), to wake them
  /// when its label changes.
  std::vector<offset_type> ghost_xadj;
  std::vector<index_type> ghost_adjncy;
};

/// Local ids for the shared graph's global ones (this rank owns [first, first + n)). False (and
/// nothing built) where its vertices and ghosts would not fit 32-bit ids.
bool localise(distributed_graph&& g, global_index_type first, global_index_type n, lp_local_graph& l);

/// The block partition into `parts` by vertex weight: a vertex goes to the part in which the middle
/// of its weight falls. `before` is the weight of the vertices of the ranks before this one.
std::vector<int> block_labels(offset_type before, const std::vector<offset_type>& weight, int parts,
                              offset_type total_weight);

/// One rank's state through the rounds. Label: std::uint8_t up to 256 parts, std::uint16_t up to
/// 65536, else std::int32_t (labels are read per arc in no order: narrow ones stay in cache).
template <typename Label>
class lp_rank {
 public:
  /// `start`: the labels of this rank's n vertices; `me` of `p` ranks.
  lp_rank(const lp_local_graph& g, const std::vector<int>& start, int parts, offset_type total_weight, int seed,
          int me, int p, const label_propagation_options& options);

  /// Own labels (0..n-1), then the ghosts' (n..): the driver fills the ghosts' after each sweep.
  std::vector<Label> label;

  /// Remembers the ghosts' first labels (after the driver's first exchange).
  void ghosts_initialised();
  /// A fresh random order of the vertex chunks for `round` (the same for a given seed, rank, round).
  void start_round(int round);
  /// This rank's part weights, then its demands in direction `up` (2 * parts figures), to be summed
  /// over the ranks.
  void figures(int up, std::vector<offset_type>& out) const;
  /// Moves this rank's vertices in direction `up` (1: to higher parts, 0: lower) within the
  /// budgets that `agreed` (the summed figures) leaves; returns the number of moves.
  std::int64_t sweep(int up, const std::vector<offset_type>& agreed);
  /// After the driver refreshed the ghosts' labels: wakes the neighbours of ghosts that moved.
  void ghosts_received();
  /// The vertices (local ids) that the last sweep moved, each once.
  const std::vector<index_type>& moved() const { return moved_; }
  /// Ghost k's owner moved it to `to`: its label, and its neighbours here woken. For each ghost
  /// that moved this is what the driver's refresh and ghosts_received() do together (the
  /// in-process driver, which knows who moved, calls it instead of both).
  void ghost_moved(std::size_t k, Label to);
  /// The labels of this rank's vertices.
  std::vector<int> result() const;

 private:
  const lp_local_graph& g_;
  int parts_, seed_, me_, p_;
  offset_type max_weight_;
  std::vector<Label> ghost_label_;
  std::vector<offset_type> my_weight_, budget_, net_in_, connection_;
  std::vector<offset_type> demand_[2];
  std::vector<index_type> order_, moved_;
  std::vector<char> active_;
  std::vector<int> touched_;
};

extern template class lp_rank<std::uint8_t>;
extern template class lp_rank<std::uint16_t>;
extern template class lp_rank<std::int32_t>;

}  // namespace distspmv::partition::detail
