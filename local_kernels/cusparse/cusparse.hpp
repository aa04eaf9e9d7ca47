// cuSPARSE baselines, measured in the same run as our kernels. Descriptors, the external buffer
// and the SpMV preprocessing are done once at construction; apply only calls cusparseSpMV on
// the caller's stream.
#pragma once

#include <memory>
#include <string>

#include "common/csr_matrix.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv::cusparse {

enum class algorithm { csr_default, csr_alg1, csr_alg2, sell };

/// A cuSPARSE-backed operator (backend must be cuda; bad_input otherwise).
template <typename ValueType>
std::unique_ptr<local_operator<ValueType>> make_operator(const std::string& name,
                                                         const csr_matrix<ValueType, index_type>& a,
                                                         algorithm alg, backend where);

/// The same on a device CSR block, whose arrays the operator takes over (CSR algorithms: no copy
/// where nnz < 2^31; 32-bit offsets, or 64-bit columns past that, are made on the GPU).
template <typename ValueType>
std::unique_ptr<local_operator<ValueType>> make_operator(const std::string& name, device_csr<ValueType>&& a,
                                                         algorithm alg);

}  // namespace distspmv::cusparse
