// Internal to partition/: the last step of building a symmetrised graph, shared by the METIS graph
// (one rank) and the PT-Scotch graph (each rank its own vertices).
#pragma once

#include <algorithm>
#include <vector>

namespace distspmv::partition::detail {

/// Sorts each vertex's neighbours, drops repeats (an entry and its transpose both present), and
/// compacts the lists in place: xadj[v]..xadj[v+1] is v's list before and after; adjncy shrinks.
template <typename Offset, typename Id>
void sort_unique_neighbours(std::vector<Offset>& xadj, std::vector<Id>& adjncy) {
  const std::size_t vertices = xadj.size() - 1;
  Offset out = 0;
  for (std::size_t v = 0; v < vertices; ++v) {
    const auto first = adjncy.begin() + xadj[v], last = adjncy.begin() + xadj[v + 1];
    std::sort(first, last);
    const auto end = std::unique(first, last);
    const Offset begin_out = out;
    for (auto it = first; it != end; ++it) adjncy[out++] = *it;
    xadj[v] = begin_out;
  }
  xadj[vertices] = out;
  adjncy.resize(static_cast<std::size_t>(out));
}

}  // namespace distspmv::partition::detail
