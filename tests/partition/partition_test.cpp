#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "distspmv/config.hpp"
#include "io/generators.hpp"
#include "io/matrix_market.hpp"
#include "partition/partition.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv::partition {
namespace {


TEST(BlockPartition, IsContiguousAndBalancesNonzeros) {
  const auto a = io::generate("gen:lognormal:20000:2.0:1.0:50");
  for (int parts : {1, 2, 3, 7}) {
    const auto part = partition_block(a.row_ptr, parts);
    ASSERT_EQ(static_cast<global_index_type>(part.size()), a.rows);
    EXPECT_TRUE(std::is_sorted(part.begin(), part.end()));
    const auto q = evaluate_partition(a, part, parts);
    EXPECT_LT(q.nnz_imbalance, 1.05) << parts << " parts";
  }
}

TEST(BlockPartition, MorePartsThanRowsLeavesSomeEmpty) {
  const auto a = io::generate("gen:poisson3d:1");  // one row
  const auto part = partition_block(a.row_ptr, 4);
  ASSERT_EQ(part.size(), 1u);
  EXPECT_GE(part[0], 0);
  EXPECT_LT(part[0], 4);
}

TEST(SymmetrisedGraph, DropsDiagonalAndAddsTranspose) {
  csr_matrix<double> a;  // [[1 1 0] [0 1 0] [1 0 1]]
  a.rows = a.cols = 3;
  a.row_ptr = {0, 2, 3, 5};
  a.col_idx = {0, 1, 1, 0, 2};
  a.values = {1, 1, 1, 1, 1};
  const auto g = symmetrised_graph(a);
  EXPECT_EQ(g.xadj, (std::vector<offset_type>{0, 2, 3, 4}));
  EXPECT_EQ(g.adjncy, (std::vector<global_index_type>{1, 2, 0, 0}));
  EXPECT_EQ(g.weight, (std::vector<offset_type>{2, 1, 2}));
}

TEST(SymmetrisedGraph, RejectsRectangularMatrix) {
  csr_matrix<double> a;
  a.rows = 2;
  a.cols = 3;
  a.row_ptr = {0, 0, 0};
  EXPECT_THROW(symmetrised_graph(a), bad_input);
}

TEST(PartitionQuality, CountsCutHaloAndNeighboursByHand) {
  // 4x4 path graph 0-1-2-3 split {0,1} {2,3}: cut entries (1,2) and (2,1)
  csr_matrix<double> p;
  p.rows = p.cols = 4;
  p.row_ptr = {0, 2, 5, 8, 10};
  p.col_idx = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
  p.values.assign(10, 1.0);
  const auto q = evaluate_partition(p, {0, 0, 1, 1}, 2);
  EXPECT_EQ(q.edge_cut, 2);
  EXPECT_EQ(q.halo_entries_total, 2);
  EXPECT_EQ(q.halo_entries_max, 1);
  EXPECT_EQ(q.neighbours_max, 1);
  EXPECT_EQ(q.nnz_per_part, (std::vector<offset_type>{5, 5}));
  EXPECT_DOUBLE_EQ(q.nnz_imbalance, 1.0);
}

TEST(Renumbering, IsAPermutationGroupedByPart) {
  const std::vector<int> part = {2, 0, 1, 0, 2, 2};
  const auto rn = renumber_by_part(part, 3);
  EXPECT_EQ(rn.offsets, (std::vector<global_index_type>{0, 2, 3, 6}));
  EXPECT_EQ(rn.new_id, (std::vector<global_index_type>{3, 0, 2, 1, 4, 5}));
}

TEST(MetisPartition, OnePartNeedsNoMetis) {
  const auto g = symmetrised_graph(io::generate("gen:poisson3d:4"));
  const auto part = partition_metis(g, 1);
  EXPECT_EQ(part, std::vector<int>(64, 0));
}

class MetisVersusBlock : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!DISTSPMV_HAVE_METIS) GTEST_SKIP() << "built without METIS";
  }
  /// Returns {block halo, metis halo} on a randomly relabelled copy.
  std::pair<offset_type, offset_type> halos(const csr_matrix<double>& a, int parts) {
    const auto b = test::randomly_relabelled(a, 42);
    const auto block = evaluate_partition(b, partition_block(b.row_ptr, parts), parts);
    const auto metis_part = partition_metis(symmetrised_graph(b), parts);
    const auto metis = evaluate_partition(b, metis_part, parts);
    EXPECT_LT(metis.nnz_imbalance, 1.10);
    return {block.halo_entries_total, metis.halo_entries_total};
  }
};

TEST_F(MetisVersusBlock, SmallerHaloOnPoisson) {
  const auto [block, metis] = halos(io::generate("gen:poisson3d:20"), 4);
  EXPECT_LT(metis, block);
}

TEST_F(MetisVersusBlock, SmallerHaloOnMeshAndWebMatricesFromSharedFolder) {
  const std::string dir = test::shared_matrices_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/matrices not found";
  for (const char* name : {"wing", "fe_4elt2", "cs4", "uk-2007-05@100000", "cage11"}) {
    const auto a = io::read_matrix_market(dir + "/" + name + ".mtx.gz");
    const auto [block, metis] = halos(a, 4);
    std::printf("%-20s halo entries, 4 parts after random relabelling: block %lld, METIS %lld\n", name,
                static_cast<long long>(block), static_cast<long long>(metis));
    EXPECT_LT(metis, block) << name;
  }
}

}  // namespace
}  // namespace distspmv::partition
