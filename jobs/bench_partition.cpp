// bench_partition MATRIX [PARTS [SEED]]: where a METIS partition's time goes, on one process.
//
// Reads (or generates) MATRIX whole, then times the symmetrised graph (what dist/ builds on the
// rank that partitions), METIS k-way with its default options and with the faster options
// tried for issue 15 (one cut, fewer refinement iterations), and reports each partition's
// halo (distinct ghost columns summed over the parts), edge cut and nnz imbalance
// (partition/partition.hpp: evaluate_partition), beside the block partition's.
//
//   build/cpu-release/jobs/bench_partition gen:rmat:20:8 2
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "io/matrix_source.hpp"
#include "partition/partition.hpp"

using namespace distspmv;

namespace {

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void report(const char* name, double s, const csr_matrix<double>& a, const std::vector<int>& part, int parts,
            double base_halo) {
  const auto q = partition::evaluate_partition(a, part, parts);
  const double halo = static_cast<double>(q.halo_entries_total);
  std::printf("%-30s %8.2f s  halo %10lld (%5.2fx block)  edge cut %11lld  nnz imbalance %.3f\n", name, s,
              static_cast<long long>(q.halo_entries_total), base_halo > 0 ? halo / base_halo : 1.0,
              static_cast<long long>(q.edge_cut), q.nnz_imbalance);
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
  report("block", 0, a, block, parts, block_halo);

  partition::graph g;
  const double t_graph = seconds([&] { g = partition::symmetrised_graph(a); });
  std::printf("%-30s %8.2f s  (%lld arcs)\n", "symmetrised graph", t_graph, static_cast<long long>(g.xadj.back()));

  for (const auto& [name, options] : std::vector<std::pair<const char*, partition::metis_options>>{
           {"METIS k-way, defaults", {}}, {"METIS k-way, fast options", partition::metis_options::fast()}}) {
    std::vector<int> part;
    const double t = seconds([&] { part = partition::partition_metis(g, parts, seed, options); });
    report(name, t, a, part, parts, block_halo);
  }
  return 0;
}
