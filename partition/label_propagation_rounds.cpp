// The rounds of label propagation for one rank (label_propagation_rounds.hpp), moved here from
// label_propagation.cpp unchanged in what they compute, so that the MPI driver and the in-process
// driver run the same code.
#include "partition/label_propagation_rounds.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <random>

namespace distspmv::partition::detail {
namespace {

/// Global id -> local id of the ghosts, by open addressing (linear probing, Fibonacci hashing):
/// one pass over the arcs. Sorting the ghost arcs' ids and a binary search per arc took 0.6 s at
/// gen:rmat:20:8 on 2 ranks, this 0.17-0.19 s (dev VM).
class ghost_map {
 public:
  /// The local slot of `id`, given `next` if it is new (then `inserted` is set).
  index_type find_or_insert(global_index_type id, index_type next, bool& inserted) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    for (std::size_t at = slot(id);; at = (at + 1) & mask_) {
      if (keys_[at] == id) {
        inserted = false;
        return values_[at];
      }
      if (keys_[at] == empty) {
        keys_[at] = id;
        values_[at] = next;
        ++size_;
        inserted = true;
        return next;
      }
    }
  }

 private:
  static constexpr global_index_type empty = -1;
  std::size_t slot(global_index_type id) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow() {
    std::vector<global_index_type> keys = std::move(keys_);
    std::vector<index_type> values = std::move(values_);
    const std::size_t capacity = std::max<std::size_t>(1024, 2 * keys.size());
    keys_.assign(capacity, empty);
    values_.assign(capacity, 0);
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k] == empty) continue;
      std::size_t at = slot(keys[k]);
      while (keys_[at] != empty) at = (at + 1) & mask_;
      keys_[at] = keys[k];
      values_[at] = values[k];
    }
  }
  std::vector<global_index_type> keys_;
  std::vector<index_type> values_;
  std::size_t size_ = 0, mask_ = 0;
  int shift_ = 64;
};

/// Vertices are swept in chunks of this many consecutive ids.
constexpr global_index_type chunk = 64;

}  // namespace

bool localise(distributed_graph&& g, global_index_type first, global_index_type n, lp_local_graph& l) {
  l.n = n;
  const global_index_type end = first + n;
  if (n > INT_MAX) return false;
  // Ghosts numbered as met, then renumbered in global id order.
  l.adjncy.resize(g.adjncy.size());
  ghost_map map;
  for (std::size_t k = 0; k < g.adjncy.size(); ++k) {
    const global_index_type c = g.adjncy[k];
    if (c >= first && c < end) {
      l.adjncy[k] = static_cast<index_type>(c - first);
      continue;
    }
    if (n + static_cast<global_index_type>(l.ghost_id.size()) >= INT_MAX) return false;
    bool inserted = false;
    l.adjncy[k] = map.find_or_insert(c, static_cast<index_type>(n + l.ghost_id.size()), inserted);
    if (inserted) l.ghost_id.push_back(c);
  }
  g.adjncy = {};
  map = {};
  const std::size_t ghosts = l.ghost_id.size();
  std::vector<index_type> by_id(ghosts);
  std::iota(by_id.begin(), by_id.end(), index_type{0});
  std::sort(by_id.begin(), by_id.end(), [&](index_type x, index_type y) { return l.ghost_id[x] < l.ghost_id[y]; });
  std::vector<index_type> renumbered(ghosts);
  std::vector<global_index_type> sorted_ids(ghosts);
  for (std::size_t k = 0; k < ghosts; ++k) {
    renumbered[by_id[k]] = static_cast<index_type>(n + static_cast<global_index_type>(k));
    sorted_ids[k] = l.ghost_id[by_id[k]];
  }
  l.ghost_id = std::move(sorted_ids);
  l.ghost_xadj.assign(ghosts + 1, 0);
  for (auto& u : l.adjncy)
    if (u >= n) {
      u = renumbered[u - n];
      ++l.ghost_xadj[u - n + 1];
    }
  std::partial_sum(l.ghost_xadj.begin(), l.ghost_xadj.end(), l.ghost_xadj.begin());
  l.ghost_adjncy.resize(static_cast<std::size_t>(l.ghost_xadj.back()));
  std::vector<offset_type> fill(l.ghost_xadj.begin(), l.ghost_xadj.end() - 1);
  for (global_index_type v = 0; v < n; ++v)
    for (offset_type k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
      if (l.adjncy[k] >= n) l.ghost_adjncy[fill[l.adjncy[k] - n]++] = static_cast<index_type>(v);
  l.xadj = std::move(g.xadj);
  l.weight = std::move(g.weight);
  return true;
}

std::vector<int> block_labels(offset_type before, const std::vector<offset_type>& weight, int parts,
                              offset_type total_weight) {
  std::vector<int> label(weight.size());
  for (std::size_t v = 0; v < weight.size(); ++v) {
    const offset_type mid = before + weight[v] / 2;
    label[v] = static_cast<int>(std::min<offset_type>(parts - 1, mid * parts / std::max<offset_type>(1, total_weight)));
    before += weight[v];
  }
  return label;
}

template <typename Label>
lp_rank<Label>::lp_rank(const lp_local_graph& g, const std::vector<int>& start, int parts, offset_type total_weight,
                        int seed, int me, int p, const label_propagation_options& options)
    : label(static_cast<std::size_t>(g.n) + g.ghost_id.size()),
      g_(g),
      parts_(parts),
      seed_(seed),
      me_(me),
      p_(p),
      // A part may weigh (1 + imbalance) times the mean, as METIS's ufactor allows.
      max_weight_(static_cast<offset_type>((1.0 + options.imbalance) * static_cast<double>(total_weight) / parts)),
      my_weight_(parts, 0),
      budget_(parts),
      net_in_(parts),
      connection_(parts, 0),
      // Per direction (down, up): the weight this rank's vertices wanted to move into each part the
      // last time.
      demand_{std::vector<offset_type>(parts, 0), std::vector<offset_type>(parts, 0)},
      // Vertices to look at: all at first, then those a neighbour's move may have changed, and those
      // a budget or the direction held back.
      active_(static_cast<std::size_t>(g.n), 1) {
  const global_index_type n = g.n;
  std::copy(start.begin(), start.end(), label.begin());
  for (global_index_type v = 0; v < n; ++v) my_weight_[label[v]] += g.weight[v];
  // Vertices are visited in chunks of consecutive ids, the chunks in a random order: the arcs are
  // read nearly in sequence, and neighbours on one rank still see each other's moves in no fixed
  // order.
  order_.resize(static_cast<std::size_t>((n + chunk - 1) / chunk));
  std::iota(order_.begin(), order_.end(), index_type{0});
}

template <typename Label>
void lp_rank<Label>::ghosts_initialised() {
  ghost_label_.assign(label.begin() + g_.n, label.end());
}

template <typename Label>
void lp_rank<Label>::start_round(int round) {
  // A fresh random order every round, the same for a given seed, rank count and round.
  std::seed_seq seq{seed_, me_, round};
  std::mt19937_64 random(seq);
  std::shuffle(order_.begin(), order_.end(), random);
}

template <typename Label>
void lp_rank<Label>::figures(int up, std::vector<offset_type>& out) const {
  out.resize(2 * static_cast<std::size_t>(parts_));
  std::copy(my_weight_.begin(), my_weight_.end(), out.begin());
  std::copy(demand_[up].begin(), demand_[up].end(), out.begin() + parts_);
}

template <typename Label>
std::int64_t lp_rank<Label>::sweep(int up, const std::vector<offset_type>& agreed) {
  const global_index_type n = g_.n;
  const int parts = parts_;
  const lp_local_graph& g = g_;
  auto& demand = demand_;
  auto& active = active_;
  auto& connection = connection_;
  auto& touched = touched_;
  auto& net_in = net_in_;
  auto& budget = budget_;
  auto& my_weight = my_weight_;
  std::int64_t moves = 0;
  // A part's room is shared by the ranks in proportion to what their vertices wanted to move
  // into it the last time (equally at first), so that together they keep within it.
  for (int b = 0; b < parts; ++b) {
    const double room = static_cast<double>(std::max<offset_type>(0, max_weight_ - agreed[b]));
    const double share = static_cast<double>(demand[up][b] + 1) / static_cast<double>(agreed[parts + b] + p_);
    budget[b] = static_cast<offset_type>(room * share);
  }
  std::fill(net_in.begin(), net_in.end(), 0);
  std::fill(demand[up].begin(), demand[up].end(), 0);
  moved_.clear();
  for (index_type chunk_index : order_) {
    const global_index_type begin = chunk_index * chunk;
    const auto last = static_cast<index_type>(std::min<global_index_type>(n, begin + chunk));
    for (auto v = static_cast<index_type>(begin); v < last; ++v) {
      if (!active[v]) continue;
      const int from = label[v];
      const offset_type w = g.weight[v];
      for (offset_type k = g.xadj[v]; k < g.xadj[v + 1]; ++k) {
        const int b = label[g.adjncy[k]];
        if (connection[b]++ == 0) touched.push_back(b);
      }
      // The best part in this direction within its budget, and the best ignoring budgets and
      // direction (an improving move held back keeps the vertex active).
      int best = from, wanted = from, wanted_here = from;
      offset_type best_connection = connection[from], wanted_connection = connection[from],
                  wanted_here_connection = connection[from];
      for (int b : touched) {
        const offset_type c = connection[b];
        if (b == from) continue;
        if (c > wanted_connection) {
          wanted = b;
          wanted_connection = c;
        }
        if ((b > from) != (up == 1)) continue;
        if (c > wanted_here_connection) {
          wanted_here = b;
          wanted_here_connection = c;
        }
        if (c > best_connection && net_in[b] + w <= budget[b]) {
          best = b;
          best_connection = c;
        }
      }
      for (int b : touched) connection[b] = 0;
      touched.clear();
      if (wanted_here != from) demand[up][wanted_here] += w;
      if (best == from) {
        active[v] = wanted != from;
        continue;
      }
      label[v] = static_cast<Label>(best);
      net_in[best] += w;
      net_in[from] -= w;
      my_weight[best] += w;
      my_weight[from] -= w;
      ++moves;
      moved_.push_back(v);
      active[v] = 0;
      for (offset_type k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
        if (g.adjncy[k] < n) active[g.adjncy[k]] = 1;
    }
  }

  return moves;
}

template <typename Label>
void lp_rank<Label>::ghosts_received() {
  const global_index_type n = g_.n;
  // Wake this rank's neighbours of the ghosts that moved.
  for (std::size_t k = 0; k < ghost_label_.size(); ++k) {
    if (label[n + k] == ghost_label_[k]) continue;
    ghost_label_[k] = label[n + k];
    for (offset_type e = g_.ghost_xadj[k]; e < g_.ghost_xadj[k + 1]; ++e) active_[g_.ghost_adjncy[e]] = 1;
  }
}

template <typename Label>
void lp_rank<Label>::ghost_moved(std::size_t k, Label to) {
  label[g_.n + k] = to;
  for (offset_type e = g_.ghost_xadj[k]; e < g_.ghost_xadj[k + 1]; ++e) active_[g_.ghost_adjncy[e]] = 1;
}

template <typename Label>
std::vector<int> lp_rank<Label>::result() const {
  return std::vector<int>(label.begin(), label.begin() + g_.n);
}

template class lp_rank<std::uint8_t>;
template class lp_rank<std::uint16_t>;
template class lp_rank<std::int32_t>;

}  // namespace distspmv::partition::detail
