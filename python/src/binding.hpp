// Shared pieces of the Python module's C++ side (python/src): errors that become Python
// exceptions, communicators from mpi4py, views of NumPy and CUDA arrays, and the entry points that
// module.cpp calls to define the module's classes and functions.
#pragma once

#include <mpi.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <string>

namespace distspmv::python {

namespace py = pybind11;

/// The Python exception classes of the module (module.cpp creates them; __init__.py documents them).
enum class error_class : int {
  error = 0,     ///< distspmv.Error (RuntimeError): the base; unexpected failures
  argument,      ///< distspmv.ArgumentError (ValueError): wrong length or shape, freed matrix or communicator, bad option
  array_type,    ///< distspmv.ArrayTypeError (TypeError): wrong dtype or device, not contiguous, read-only, not an array
  bad_input,     ///< distspmv.BadInputError (ValueError): the library's bad_input (file, generator, CSR contents)
  mpi,           ///< distspmv.MPIError
  cuda,          ///< distspmv.CUDAError
  not_compiled,  ///< distspmv.NotCompiledError (NotImplementedError)
};

/// Thrown by the binding; module.cpp's translator raises the matching Python exception with
/// `collective` set as given (true: every rank of the communicator raised the same error).
struct python_error {
  error_class kind;
  std::string message;
  bool collective = false;
};

[[noreturn]] void raise_argument(const std::string& message);
[[noreturn]] void raise_array_type(const std::string& message);

/// The error class of the exception in flight (distspmv's hierarchy, python_error, std::bad_alloc
/// as error::error with "out of memory").
python_error classify_current_exception();

/// Sets the Python error for the exception in flight (what the module's translator does), for
/// functions called by CPython directly (fast_apply.cpp).
void set_error_from_current_exception() noexcept;

/// Collective over `comm`: runs `checks` on every rank, then agrees (one MPI_Allreduce): if it
/// threw on any rank, every rank throws the lowest failing rank's error, marked collective, so no
/// rank goes on into a setup the others have left. Mirrors the C API's agreement on arguments.
void agree(MPI_Comm comm, const std::function<void()>& checks);

/// MPI_COMM_WORLD for None; an mpi4py communicator through its Fortran handle (comm.py2f() and
/// MPI_Comm_f2c, so that nothing is compiled against mpi4py). Throws ArgumentError for a freed
/// communicator (MPI_COMM_NULL) or when MPI is finalized, ArrayTypeError for other objects.
MPI_Comm comm_from_python(py::handle comm);

/// A 1-D contiguous array from Python: NumPy (buffer in host memory) or any object with
/// __cuda_array_interface__ (device memory, e.g. CuPy).
struct array_view {
  void* data = nullptr;
  std::int64_t size = 0;
  bool device = false;
  bool readonly = false;
  std::uintptr_t stream = 0;  ///< the interface's "stream" entry (0: none given)
  bool cupy = false;          ///< a CuPy array read through its attributes (its stream: CuPy's current one)
};

/// The stream the array's library says its work is on: CuPy's current stream for a CuPy array,
/// else the __cuda_array_interface__'s "stream" entry (0: none).
std::uintptr_t array_stream(const array_view& v);

/// Element types the module checks arrays against.
enum class element { float64, float32, int64 };
const char* to_string(element e);

/// Views `obj` as a 1-D contiguous array of `type`, `expected` entries (-1: any); `name` names the
/// argument in messages, e.g. "Matrix.apply: x". Raises ArrayTypeError (dtype, device, layout,
/// read-only when `writable`) or ArgumentError (length).
array_view view_array(py::handle obj, element type, std::int64_t expected, const char* name, bool writable = false);

/// A CUDA stream from Python: None (0), an int, or an object with .ptr (CuPy) or .cuda_stream (PyTorch).
std::uintptr_t stream_from_python(py::handle stream);

/// A new uninitialised array of the same library, device, length and dtype as `like`: the
/// module that defines its type's empty_like (numpy, cupy, torch).
py::object empty_like(py::handle like);
py::object numpy_empty(std::int64_t n, element type);

/// Frees every live matrix's library object (collective, in creation order): at exit, before
/// MPI_Finalize, or before mpi4py finalizes MPI.
void release_all_matrices();

void bind_matrix(py::module_& m);
void bind_solvers(py::module_& m);

}  // namespace distspmv::python
