// Compiled when CMake did not find METIS: the METIS partitioner exists and says why it cannot run.
#include "partition/partition.hpp"

namespace distspmv::partition {

std::vector<int> partition_metis(const graph& g, int parts, int, const metis_options&) {
  if (parts == 1) return std::vector<int>(g.vertices, 0);
  DSPMV_NOT_COMPILED("METIS");
}

}  // namespace distspmv::partition
