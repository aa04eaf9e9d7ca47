// `distspmv model` (apps/model, issue 39) against real runs, at whatever number of ranks ctest
// starts (2, 3, 4, 8): label propagation computed in one process gives the labels that the ranks
// compute together, and the model's halo figures per rank (rows, nonzeros, ghosts, sends,
// neighbours, boundary rows, halo nonzeros) are what each rank's distributed matrix reports, for
// the block, lp and (where built) METIS partitions. Host backend; small generated matrices.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "apps/model/model.hpp"
#include "dist/distributed_matrix.hpp"
#include "dist/setup/order.hpp"
#include "distspmv/config.hpp"
#include "io/matrix_source.hpp"
#include "partition/partition.hpp"

namespace distspmv::model {
namespace {

int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}
int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

const std::vector<std::string> matrices = {"gen:rmat:11:8", "gen:poisson3d:12", "gen:lognormal:3000:2:1:60"};

TEST(Model, LabelPropagationInOneProcessEqualsTheRanks) {
  const int p = world_size(), me = world_rank();
  for (const auto& source : matrices) {
    const auto a = read_pattern(source, 1);
    const auto ranges = read_ranges(a, p);
    const auto mine = io::read_matrix_rows(source, row_range{ranges[me], ranges[me + 1]});
    const auto labels = partition::partition_label_propagation(MPI_COMM_WORLD, ranges[me], mine, a.rows, p, 1);
    std::vector<int> counts(p), displs(p + 1, 0), all(static_cast<std::size_t>(a.rows));
    for (int q = 0; q < p; ++q) {
      counts[q] = static_cast<int>(ranges[q + 1] - ranges[q]);
      displs[q + 1] = displs[q] + counts[q];
    }
    MPI_Allgatherv(labels.data(), static_cast<int>(labels.size()), MPI_INT, all.data(), counts.data(), displs.data(),
                   MPI_INT, MPI_COMM_WORLD);
    const partitioner lp(a, "lp", 1);
    EXPECT_EQ(lp.parts(p), all) << source << " at " << p << " ranks";
  }
}

TEST(Model, HaloFiguresAreWhatTheRanksReport) {
  const int p = world_size();
  std::vector<std::pair<std::string, ::distspmv::partitioner>> methods = {{"block", ::distspmv::partitioner::block},
                                                                   {"lp", ::distspmv::partitioner::lp}};
  if (DISTSPMV_HAVE_METIS) methods.emplace_back("metis", ::distspmv::partitioner::metis);
  for (const auto& source : matrices) {
    const auto a = read_pattern(source, 1);
    for (const auto& [name, method] : methods) {
      ::distspmv::matrix_options o;
      o.where = ::distspmv::backend::host;
      o.format = "csr";
      o.partition = method;
      // The model takes the rows where the partitioner puts them; `--order auto` (the default since
      // 01d00e4) may move a few between ranks (gen:rmat:11:8 on 2 ranks: 1025 / 1023), which it
      // does not model.
      o.order = ::distspmv::row_order::none;
      const auto m = ::distspmv::distributed_matrix<double>::from_source(MPI_COMM_WORLD, source, o);
      const auto& s = m.summary();
      const std::int64_t mine[7] = {s.rows, s.nnz, s.ghosts, s.sends, s.neighbours, s.boundary_rows, s.halo_nnz};
      std::vector<std::int64_t> real(7 * static_cast<std::size_t>(p));
      MPI_Allgather(mine, 7, MPI_INT64_T, real.data(), 7, MPI_INT64_T, MPI_COMM_WORLD);
      const auto f = halo_figures(a, partitioner(a, name, 1).parts(p), p, 2);
      for (int q = 0; q < p; ++q) {
        const std::int64_t* r = &real[7 * static_cast<std::size_t>(q)];
        const std::vector<std::int64_t> model = {f[q].rows,       f[q].nnz,           f[q].ghosts,  f[q].sends,
                                                 f[q].neighbours, f[q].boundary_rows, f[q].halo_nnz};
        EXPECT_EQ(model, std::vector<std::int64_t>(r, r + 7))
            << source << ", " << name << ", rank " << q << " of " << p
            << " (rows, nnz, ghosts, sends, neighbours, boundary rows, halo nnz)";
      }
    }
  }
}

// `--order auto`'s sample rule as the model computes it at P ranks (sample_order_rule) is the one
// the ranks apply (dist/setup/order.cpp: sample_locality of the first rows of each read range,
// choose_order on the sums): the same sums and the same verdict.
TEST(Model, OrderRuleIsTheRanks) {
  const int p = world_size(), me = world_rank();
  for (const auto& source : {"gen:rmat:11:8", "gen:poisson3d:12", "gen:lognormal:3000:2:1:60", "gen:lognormal:3000:2:1:3000"}) {
    const auto a = read_pattern(source, 1);
    const auto ranges = read_ranges(a, p);
    const row_range first{ranges[me], std::min(ranges[me + 1], ranges[me] + ::distspmv::dist::locality_sample::sample_rows)};
    const auto mine = ::distspmv::dist::sample_locality(io::read_matrix_rows(source, first), first.begin, a.rows);
    std::string reason;
    const auto order = ::distspmv::dist::choose_order(MPI_COMM_WORLD, mine, reason);
    const std::int64_t counts[5] = {mine.entries, mine.near_diagonal, mine.on_top_diagonals, mine.tile_sectors,
                                    mine.random_sectors_x1000};
    std::int64_t sums[5];
    MPI_Allreduce(counts, sums, 5, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    const auto rule = sample_order_rule(a, p);
    EXPECT_EQ(std::vector<std::int64_t>(sums, sums + 5),
              (std::vector<std::int64_t>{rule.entries, rule.near_diagonal, rule.on_top_diagonals, rule.tile_sectors,
                                         rule.random_sectors_x1000}))
        << source << " at " << p << " ranks";
    EXPECT_EQ(order == ::distspmv::row_order::none, rule.local) << source << ": " << reason << " / " << rule.reason;
  }
}

}  // namespace
}  // namespace distspmv::model
