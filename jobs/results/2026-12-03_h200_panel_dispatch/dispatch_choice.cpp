// Scratch host program behind the README's dispatch table (not built): panel::build on a
// generator's rows in the read, degree or rcm order (host orders), and whether the built panels
// are dispatched largest first. Built against build/cpu-release's static libraries:
// mpicxx -std=c++17 -O2 -fopenmp -I. dispatch_choice.cpp LIBS; run: ./a.out SPEC SEED none|degree|rcm.
#include <cstdio>
#include <string>
#include "io/generators.hpp"
#include "partition/ordering.hpp"
#include "local_kernels/panel/panel.hpp"
using namespace distspmv;
int main(int argc, char** argv) {
  auto a = io::generate(argv[1], std::stoull(argv[2]));
  csr_matrix<double, index_type> b; b.rows = a.rows; b.cols = a.cols;
  std::string ord = argv[3];
  std::vector<global_index_type> order;
  if (ord == "rcm") order = partition::rcm_order(a, 0); else if (ord == "degree") order = partition::degree_order(a.row_ptr);
  else for (global_index_type i = 0; i < a.rows; ++i) order.push_back(i);
  std::vector<global_index_type> inv(a.rows); for (global_index_type i = 0; i < a.rows; ++i) inv[order[i]] = i;
  b.row_ptr.assign(1, 0);
  for (auto o : order) { std::vector<std::pair<index_type,double>> row;
    for (auto k = a.row_ptr[o]; k < a.row_ptr[o+1]; ++k) row.push_back({(index_type)inv[a.col_idx[k]], a.values[k]});
    std::sort(row.begin(), row.end(), [](auto& x, auto& y){return x.first<y.first;});
    for (auto& [c,v] : row) { b.col_idx.push_back(c); b.values.push_back(v); } b.row_ptr.push_back(b.col_idx.size()); }
  auto m = panel::build(b, panel::panel_params{});
  size_t moved = 0; for (size_t i = 0; i < m.dispatch.size(); ++i) moved += m.dispatch[i] != (index_type)i;
  std::printf("%s %s: %s, dispatch %s (%zu moved)\n", argv[1], argv[3], m.stats.params.c_str(), moved ? "largest first" : "panel order", moved);
}
