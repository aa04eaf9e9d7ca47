// From the repository root, after the cpu-release build: g++ -O2 -std=c++17 -fopenmp -I. FILE \
//   build/cpu-release/partition/libdistspmv_partition.a build/cpu-release/io/libdistspmv_io.a \
//   build/cpu-release/common/libdistspmv_common.a
// Host analysis: how much of an R-MAT block a 2048-row block's best x window of W columns
// would cover, in the caller's order, by degree and after RCM (rows and columns renumbered alike).
#include <algorithm>
#include <cstdio>
#include <vector>
#include "io/generators.hpp"
#include "partition/ordering.hpp"
using namespace distspmv;
using namespace distspmv::partition;
int main(int argc, char** argv) {
  const auto a = io::generate(argv[1]);
  const global_index_type n = a.rows;
  for (const char* name : {"none", "degree", "rcm"}) {
    std::vector<global_index_type> order;  // new -> old
    if (std::string(name) == "degree") order = degree_order(a.row_ptr);
    if (std::string(name) == "rcm") order = rcm_order(a, 0);
    std::vector<global_index_type> inv = order.empty() ? std::vector<global_index_type>() : inverse_permutation(order);
    auto nw = [&](global_index_type c) { return inv.empty() ? c : inv[c]; };
    double covered[3] = {0, 0, 0}; const long W[3] = {8192, 65536, 262144};
    double total = 0;
    std::vector<global_index_type> cols;
    for (global_index_type b = 0; b < n; b += 2048) {
      cols.clear();
      for (global_index_type i = b; i < std::min(n, b + 2048); ++i) {
        const global_index_type r = order.empty() ? i : order[i];
        for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) cols.push_back(nw(a.col_idx[k]));
      }
      std::sort(cols.begin(), cols.end());
      total += cols.size();
      for (int w = 0; w < 3; ++w) {  // best window [c, c + W) by a sliding pointer
        size_t best = 0, lo = 0;
        for (size_t hi = 0; hi < cols.size(); ++hi) {
          while (cols[hi] - cols[lo] >= W[w]) ++lo;
          best = std::max(best, hi - lo + 1);
        }
        covered[w] += best;
      }
    }
    std::printf("%s %s: best window of 8192 / 65536 / 262144 columns covers %.1f%% / %.1f%% / %.1f%% of the nonzeros\n",
                argv[1], name, 100 * covered[0] / total, 100 * covered[1] / total, 100 * covered[2] / total);
  }
}
