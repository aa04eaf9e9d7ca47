// Check 12 (issue 39): the panel layout of a one-rank block, per panel, in the read order and in
// degree order (as apps/model/halo_figures.cpp renames a block for the order's trial). Not part of
// the build: compiled by hand against build/cpu-release's libraries (README.md, "Commands").
//   panel_waves SOURCE SEED OUT   ->  OUT_none.txt, OUT_degree.txt: one line per panel,
//   "rounds sectors rows entries" (rounds of 1024 stored entries, padding included, from
//   panel::build; the distinct 32-byte x sectors the panel reads; its panel rows; its nonzeros)
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/model/model.hpp"
#include "local_kernels/panel/panel.hpp"
#include "partition/ordering.hpp"

using namespace distspmv;

static void write(const std::string& file, const std::vector<offset_type>& rp, const std::vector<index_type>& col) {
  csr_matrix<double, index_type> b;
  b.rows = b.cols = static_cast<global_index_type>(rp.size()) - 1;
  b.row_ptr = rp;
  b.col_idx = col;
  b.values.assign(col.size(), 0.5);
  const auto m = panel::build<double>(b, panel::panel_params{});
  std::vector<std::int64_t> stamp(static_cast<std::size_t>(b.cols / 4 + 1), -1);
  FILE* f = std::fopen(file.c_str(), "w");
  for (std::size_t p = 0; p + 1 < m.panel_row.size(); ++p) {
    long long sectors = 0, entries = 0;
    for (auto k = m.panel_entry[p]; k < m.panel_entry[p + 1]; ++k) {
      if (m.slot[k] == panel::padding_slot) continue;
      ++entries;
      const auto s = static_cast<std::size_t>(m.col_idx[k] / 4);
      if (stamp[s] != static_cast<std::int64_t>(p)) {
        stamp[s] = static_cast<std::int64_t>(p);
        ++sectors;
      }
    }
    std::fprintf(f, "%lld %lld %lld %lld\n", static_cast<long long>((m.panel_entry[p + 1] - m.panel_entry[p]) / panel::round_entries),
                 sectors, static_cast<long long>(m.panel_row[p + 1] - m.panel_row[p]), entries);
  }
  std::fclose(f);
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  auto a = model::read_pattern(argv[1], std::stoull(argv[2]));
  const std::string out = argv[3];
  std::vector<offset_type> rp(a.row_ptr.begin(), a.row_ptr.end());
  std::vector<index_type> col(a.col.begin(), a.col.end());
  a = {};
  write(out + "_none.txt", rp, col);
  const auto n = rp.size() - 1;
  const auto order = partition::degree_order(rp);
  std::vector<index_type> new_of(n);
  for (std::size_t k = 0; k < n; ++k) new_of[static_cast<std::size_t>(order[k])] = static_cast<index_type>(k);
  std::vector<offset_type> d_ptr(n + 1, 0);
  std::vector<index_type> d_col(col.size());
  for (std::size_t k = 0; k < n; ++k) {
    const auto old = static_cast<std::size_t>(order[k]);
    auto at = d_ptr[k];
    for (offset_type e = rp[old]; e < rp[old + 1]; ++e) d_col[static_cast<std::size_t>(at++)] = new_of[col[e]];
    std::sort(d_col.begin() + d_ptr[k], d_col.begin() + at);
    d_ptr[k + 1] = at;
  }
  write(out + "_degree.txt", d_ptr, d_col);
}
