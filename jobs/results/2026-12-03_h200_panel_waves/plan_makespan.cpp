// Scratch host program behind the README's makespan table (not built): plan_panels with and
// without the wave fill on a generator's rows in the read, degree and rcm orders. Built against
// build/cpu-release's static libraries: mpicxx -std=c++17 -O2 -fopenmp -I. plan_makespan.cpp LIBS.
#include <algorithm>
#include <cstdio>
#include <queue>
#include <string>
#include <vector>
#include "io/generators.hpp"
#include "partition/ordering.hpp"
#include "local_kernels/panel/panel.hpp"
using namespace distspmv;
static void report(const char* name, const std::vector<offset_type>& rp, offset_type wave) {
  panel::panel_params p; p.wave_panels = wave;
  auto plan = panel::plan_panels(rp, p);
  std::vector<offset_type> e;
  const auto& prp = plan.panel_row_ptr(rp);
  for (size_t i = 0; i + 1 < plan.panel_row.size(); ++i) e.push_back(prp[plan.panel_row[i + 1]] - prp[plan.panel_row[i]]);
  std::vector<offset_type> s = e; std::sort(s.begin(), s.end());
  double cap = plan.params.panel_entries, sum = 0; int full = 0; for (auto x : e) { sum += x; full += x >= 0.9 * cap; }
  // list schedule in order onto 528 workers, cost = entries + 2048 (fixed overhead)
  std::priority_queue<double, std::vector<double>, std::greater<double>> q; for (int i = 0; i < 528; ++i) q.push(0);
  double mk = 0; for (auto x : e) { double t = q.top(); q.pop(); t += x + 2048; mk = std::max(mk, t); q.push(t); }
  std::printf("%-10s wave=%lld panels=%zu cap=%.0f piece=%d median/cap=%.2f full90=%.2f  makespan/ideal=%.2f makespan=%.0f\n", name, (long long)wave,
              e.size(), cap, plan.params.piece_entries, s[s.size() / 2] / cap, double(full) / e.size(), mk / ((sum + 2048.0 * e.size()) / 528), mk);
}
int main(int argc, char** argv) {
  auto a = io::generate(argv[1], std::stoull(argv[2]));
  const auto& rp = a.row_ptr;
  auto permuted = [&](const std::vector<global_index_type>& order) {
    std::vector<offset_type> r(1, 0);
    for (auto o : order) r.push_back(r.back() + rp[o + 1] - rp[o]);
    return r;
  };
  auto deg = permuted(partition::degree_order(rp));
  auto rcm = permuted(partition::rcm_order(a, 0));
  for (offset_type w : {0, 528}) { report("none", rp, w); report("degree", deg, w); report("rcm", rcm, w); }
}
