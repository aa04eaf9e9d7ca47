// distspmv.Matrix's C++ object: a distributed_matrix of double or float values behind one type,
// with what the binding caches for the hot path (apply) and the registry of live matrices.
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "binding.hpp"
#include "dist/distributed_matrix.hpp"

namespace distspmv::python {

class matrix {
 public:
  using double_matrix = distributed_matrix<double>;
  using float_matrix = distributed_matrix<float>;

  matrix(std::unique_ptr<double_matrix> m, std::string source, std::string precision);
  matrix(std::unique_ptr<float_matrix> m, std::string source, std::string precision);
  matrix(const matrix&) = delete;
  matrix& operator=(const matrix&) = delete;
  /// Frees the library's object unless MPI is finalized already (then it is left: its destructor
  /// would call MPI).
  ~matrix();

  /// Collective: frees the library's object now; every later call raises ArgumentError.
  void free();
  bool freed() const { return std::holds_alternative<std::monostate>(m_); }

  /// Calls f(distributed_matrix<V>&) for the value type held; ArgumentError once freed.
  /// ArgumentError once freed.
  void require_alive() const {
    if (freed()) raise_argument("the matrix was freed (Matrix.free() or the end of a with block)");
  }

  template <typename F>
  decltype(auto) with(F&& f) const {
    require_alive();
    if (const auto* d = std::get_if<std::unique_ptr<double_matrix>>(&m_)) return f(**d);
    return f(*std::get<std::unique_ptr<float_matrix>>(m_));
  }

  /// Entries of the vectors: float64, or float32 with precision "float".
  element value_type() const { return value_type_; }
  bool cuda() const { return cuda_; }
  std::int64_t local_rows() const { return local_rows_; }
  std::int64_t caller_rows() const { return caller_rows_; }
  const std::string& source() const { return source_; }
  const std::string& precision() const { return precision_; }
  double_matrix* as_double() const;

 private:
  void registered();

  std::variant<std::monostate, std::unique_ptr<double_matrix>, std::unique_ptr<float_matrix>> m_;
  element value_type_ = element::float64;
  bool cuda_ = false;
  std::int64_t local_rows_ = 0, caller_rows_ = 0;
  std::string source_, precision_;
  std::uint64_t id_ = 0;
};

/// y = alpha A x + beta y (Matrix.apply; y None: a new array like x). The hot path: local checks
/// only, no communication before the library's apply.
py::object apply(const matrix& a, py::handle x, py::object y, double alpha, double beta, py::handle stream);

/// Defines Matrix.apply and Matrix.__matmul__ as plain CPython methods (fast_apply.cpp): their
/// arguments parsed by hand, a microsecond less per call than pybind11's dispatcher with keywords.
void install_fast_apply(py::class_<matrix>& cls);

}  // namespace distspmv::python
