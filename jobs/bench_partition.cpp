// bench_partition MATRIX [PARTS [SEED]]: where a METIS partition's time goes, on one process.
//
// Reads (or generates) MATRIX whole, then times the symmetrised graph (what dist/ builds on the
// rank that partitions), METIS k-way with its default options, with the faster options tried
// for issue 15 (fewer refinement iterations), with 4 cuts (the best of 4 partitionings) and with
// a tighter balance, and reports each partition's halo (distinct ghost columns summed over the
// parts), edge cut and nnz imbalance (partition/partition.hpp: evaluate_partition), beside the
// block partition's; on a matrix with diagonal structure also HDIA's slots per nonzero on the
// worst part (rows and columns in the caller's order inside the part, as dist/ numbers them).
//
//   build/cpu-release/jobs/bench_partition gen:rmat:20:8 2
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "io/matrix_source.hpp"
#include "local_kernels/hdia/hdia.hpp"
#include "partition/partition.hpp"

using namespace distspmv;

namespace {

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// HDIA's slots per nonzero on the worst part's block of owned rows and columns, numbered in the
/// caller's order inside the part (what the selector measures there); 0 when a hack has more
/// diagonals than HDIA takes.
double worst_hdia_padding(const csr_matrix<double>& a, const std::vector<int>& part, int parts) {
  // renumber_by_part keeps the caller's order inside each part: local id = new id - part start.
  const auto n = partition::renumber_by_part(part, parts);
  double worst = 1;
  for (int p = 0; p < parts; ++p) {
    csr_matrix<double, index_type> b;
    b.rows = b.cols = n.offsets[p + 1] - n.offsets[p];
    b.row_ptr.assign(1, 0);
    for (global_index_type r = 0; r < a.rows; ++r) {
      if (part[r] != p) continue;
      for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
        if (part[a.col_idx[k]] == p) {
          b.col_idx.push_back(static_cast<index_type>(n.new_id[a.col_idx[k]] - n.offsets[p]));
          b.values.push_back(a.values[k]);
        }
      b.row_ptr.push_back(static_cast<offset_type>(b.col_idx.size()));
    }
    const offset_type slots = hdia::hack_slots(b, hdia::hdia_params{});
    if (slots < 0) return 0;
    worst = std::max(worst, static_cast<double>(slots) / static_cast<double>(std::max<offset_type>(1, b.nnz())));
  }
  return worst;
}

void report(const char* name, double s, const csr_matrix<double>& a, const std::vector<int>& part, int parts,
            double base_halo, bool padding) {
  const auto q = partition::evaluate_partition(a, part, parts);
  const double halo = static_cast<double>(q.halo_entries_total);
  std::printf("%-30s %8.2f s  halo %10lld (%5.2fx block)  edge cut %11lld  nnz imbalance %.3f", name, s,
              static_cast<long long>(q.halo_entries_total), base_halo > 0 ? halo / base_halo : 1.0,
              static_cast<long long>(q.edge_cut), q.nnz_imbalance);
  if (padding) std::printf("  HDIA slots/nnz %.4f", worst_hdia_padding(a, part, parts));
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_partition MATRIX [PARTS [SEED]]\n");
    return 1;
  }
  const std::string spec = argv[1];
  const int parts = argc > 2 ? std::atoi(argv[2]) : 2;
  const int seed = argc > 3 ? std::atoi(argv[3]) : 1;
  csr_matrix<double> a;
  const double t_read = seconds([&] { a = io::read_matrix(spec); });
  std::printf("%s: %lld rows, %lld nonzeros, read in %.2f s; %d parts\n", spec.c_str(), static_cast<long long>(a.rows),
              static_cast<long long>(a.nnz()), t_read, parts);

  const auto block = partition::partition_block(a.row_ptr, parts);
  const double block_halo = static_cast<double>(partition::evaluate_partition(a, block, parts).halo_entries_total);
  // HDIA's padding per part only where the whole matrix has diagonal structure (a stencil).
  const offset_type whole_slots = hdia::hack_slots(a, hdia::hdia_params{});
  const bool padding = whole_slots > 0 && static_cast<double>(whole_slots) < 1.5 * static_cast<double>(a.nnz());
  report("block", 0, a, block, parts, block_halo, padding);

  partition::graph g;
  const double t_graph = seconds([&] { g = partition::symmetrised_graph(a); });
  std::printf("%-30s %8.2f s  (%lld arcs)\n", "symmetrised graph", t_graph, static_cast<long long>(g.xadj.back()));

  partition::metis_options four_cuts, tight;
  four_cuts.cuts = 4;
  tight.ufactor = 1;
  for (const auto& [name, options] : std::vector<std::pair<const char*, partition::metis_options>>{
           {"METIS k-way, defaults", {}},
           {"METIS k-way, fast options", partition::metis_options::fast()},
           {"METIS k-way, 4 cuts", four_cuts},
           {"METIS k-way, imbalance 1.001", tight}}) {
    std::vector<int> part;
    const double t = seconds([&] { part = partition::partition_metis(g, parts, seed, options); });
    report(name, t, a, part, parts, block_halo, padding);
  }
  return 0;
}
