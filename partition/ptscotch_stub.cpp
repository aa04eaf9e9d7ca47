// Compiled when CMake did not find PT-Scotch: the partitioner exists and says why it cannot run.
#include "partition/partition.hpp"

namespace distspmv::partition {

std::vector<int> partition_ptscotch(MPI_Comm, global_index_type, const csr_matrix<double>& rows, global_index_type,
                                    int parts, int) {
  if (parts == 1) return std::vector<int>(static_cast<std::size_t>(rows.rows), 0);
  DSPMV_NOT_COMPILED("PTSCOTCH");
}

}  // namespace distspmv::partition
