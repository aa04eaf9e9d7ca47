// Coordinate triplets, the interchange form between readers/generators and CSR.
#pragma once

#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::io {

/// Unsorted triplets (0-based), duplicates allowed.
struct coo_matrix {
  global_index_type rows = 0;
  global_index_type cols = 0;
  std::vector<global_index_type> row;
  std::vector<global_index_type> col;
  std::vector<double> val;
};

/// CSR with columns sorted within rows and duplicates summed. Consumes the triplets.
/// Indices must already be in range (readers check them with file and line).
csr_matrix<double> coo_to_csr(coo_matrix&& coo);

}  // namespace distspmv::io
