// The one interface dist/ and the command line see of a local storage format.
//
// A local_operator is built once from a rank's CSR block (local 32-bit columns) for one backend
// and then applied many times: y = alpha * A * x + beta * y, with beta == 0 overwriting y (NaN in
// y never leaks). apply allocates nothing and, on the CUDA backend, only launches on the caller's
// stream. Which format sits behind the interface is the registry's business (format_registry.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "common/types.hpp"

namespace distspmv {

/// Where an operator's arrays live and its SpMV runs.
enum class backend { host, cuda };

inline const char* to_string(backend b) { return b == backend::host ? "host" : "cuda"; }

/// What every builder reports (DESIGN.md §4).
struct format_stats {
  std::size_t stored_bytes = 0;  ///< bytes of every array the format stores
  double padding_ratio = 1.0;    ///< stored entries (with padding) / nnz
  /// PELLR paper, eq. 1: sum over warps of the longest row in the warp (iterations of a
  /// warp-synchronous ELL kernel); eq. 2: N_p = N_iter * 32 - nnz (idle thread iterations).
  offset_type n_iter = 0;
  offset_type n_p = 0;
  std::string params;  ///< human-readable parameters, e.g. "T=4"
};

/// y = alpha * A * x + beta * y for one local block in one storage format.
/// @tparam ValueType float or double
template <typename ValueType>
class local_operator {
 public:
  using value_type = ValueType;
  virtual ~local_operator() = default;

  /// Registry name of the format variant, e.g. "ellr-t4".
  virtual std::string name() const = 0;
  virtual backend where() const = 0;
  virtual global_index_type rows() const = 0;
  virtual global_index_type cols() const = 0;
  virtual offset_type nnz() const = 0;
  virtual const format_stats& stats() const = 0;

  /// x has cols() entries and y rows() entries, both in the operator's memory space (host
  /// pointers for backend::host, device pointers for backend::cuda). `stream` is ignored on the host.
  virtual void apply(ValueType alpha, const ValueType* x, ValueType beta, ValueType* y,
                     cuda_stream_t stream = nullptr) const = 0;
};

/// Bytes an SpMV must move at the least, with the CSR layout as the yardstick so that every
/// format is judged on the same work (DESIGN.md §10): values and 32-bit columns once, one 64-bit
/// offset per row, x once, y written once and read once more when beta != 0.
template <typename ValueType>
double csr_model_bytes(global_index_type rows, global_index_type cols, offset_type nnz, bool beta_nonzero) {
  const double v = sizeof(ValueType);
  return static_cast<double>(nnz) * (v + sizeof(index_type)) + static_cast<double>(rows + 1) * sizeof(offset_type) +
         static_cast<double>(cols) * v + static_cast<double>(rows) * v * (beta_nonzero ? 2.0 : 1.0);
}

}  // namespace distspmv
