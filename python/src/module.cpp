// The module distspmv._distspmv (issue 38): MPI start and end, the exception classes and the
// translation of C++ errors into them, communicators from mpi4py; the classes and functions are
// defined in matrix.cpp and solve.cpp. distspmv/__init__.py imports it and re-exports.
#include <climits>
#include <new>
#include <stdexcept>

#include "binding.hpp"
#include "common/errors.hpp"
#include "common/mpi_check.hpp"
#include "distspmv/config.hpp"

namespace distspmv::python {

namespace {

/// The exception classes, by error_class (owned by the module; never freed).
PyObject* error_types[7] = {};

void set_python_error(const python_error& e) {
  PyObject* type = error_types[static_cast<int>(e.kind)];
  py::object instance = py::reinterpret_steal<py::object>(PyObject_CallFunction(type, "s", e.message.c_str()));
  if (!instance) return;  // the call set its own error
  PyObject_SetAttrString(instance.ptr(), "collective", e.collective ? Py_True : Py_False);
  PyErr_SetObject(type, instance.ptr());
}

PyObject* new_error_type(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  const std::string qualified = std::string("distspmv.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (!type) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(type));
  return type;
}

bool mpi_initialized_here = false;

}  // namespace

[[noreturn]] void raise_argument(const std::string& message) { throw python_error{error_class::argument, message}; }
[[noreturn]] void raise_array_type(const std::string& message) { throw python_error{error_class::array_type, message}; }

python_error classify_current_exception() {
  try {
    throw;
  } catch (const python_error& e) {
    return e;
  } catch (const bad_input& e) {
    return {error_class::bad_input, e.what(), e.collective()};
  } catch (const mpi_error& e) {
    return {error_class::mpi, e.what(), e.collective()};
  } catch (const cuda_error& e) {
    return {error_class::cuda, e.what(), e.collective()};
  } catch (const not_compiled& e) {
    return {error_class::not_compiled, e.what(), e.collective()};
  } catch (const error& e) {
    // What DSPMV_REQUIRE throws: a violated precondition of a public entry point (the C API's
    // DISTSPMV_ERROR_INVALID_ARGUMENT).
    return {error_class::argument, e.what(), e.collective()};
  } catch (const std::bad_alloc&) {
    return {error_class::error, "out of memory", false};
  } catch (const py::error_already_set& e) {
    return {error_class::error, e.what(), false};
  } catch (const std::exception& e) {
    return {error_class::error, std::string("unexpected error: ") + e.what(), false};
  }
}

void set_error_from_current_exception() noexcept {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (...) {
    try {
      set_python_error(classify_current_exception());
    } catch (...) {
      PyErr_SetString(PyExc_RuntimeError, "distspmv: an error while raising an error");
    }
  }
}

void agree(MPI_Comm comm, const std::function<void()>& checks) {
  python_error mine{error_class::error, "", false};
  bool failed = false;
  try {
    checks();
  } catch (...) {
    failed = true;
    mine = classify_current_exception();
  }
  int rank = 0, ranks = 1;
  DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  DSPMV_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  const int me = failed ? rank : INT_MAX;
  int first = INT_MAX;
  DSPMV_MPI_CHECK(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return;
  int header[2] = {static_cast<int>(mine.kind), static_cast<int>(mine.message.size())};
  DSPMV_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first, comm));
  std::string text = rank == first ? mine.message : std::string(static_cast<std::size_t>(header[1]), ' ');
  if (header[1] > 0) DSPMV_MPI_CHECK(MPI_Bcast(&text[0], header[1], MPI_CHAR, first, comm));
  if (ranks > 1) text += " (on rank " + std::to_string(first) + ")";
  throw python_error{static_cast<error_class>(header[0]), text, true};
}

MPI_Comm comm_from_python(py::handle comm) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) raise_argument("MPI is finalized: distspmv needs MPI until its last matrix is freed");
  if (comm.is_none()) return MPI_COMM_WORLD;
  if (!py::hasattr(comm, "py2f"))
    raise_array_type("comm must be an mpi4py communicator or None (MPI_COMM_WORLD), not " +
                     std::string(py::str(py::type::handle_of(comm).attr("__name__"))));
  const auto fortran = comm.attr("py2f")().cast<MPI_Fint>();
  const MPI_Comm c = MPI_Comm_f2c(fortran);
  if (c == MPI_COMM_NULL) raise_argument("comm is MPI_COMM_NULL (a freed or closed communicator)");
  return c;
}

}  // namespace distspmv::python

PYBIND11_MODULE(_distspmv, m) {
  using namespace distspmv::python;
  m.doc() = "distspmv's C++ side; import distspmv, not this module.";

  PyObject* base = new_error_type(m, "Error", PyExc_RuntimeError,
                                  "Base of distspmv's exceptions. `collective` is True when every rank of the "
                                  "communicator raised this same error (it was agreed between them), so a program "
                                  "may go on or exit cleanly; False when it may be this rank's alone.");
  PyObject_SetAttrString(base, "collective", Py_False);
  error_types[static_cast<int>(error_class::error)] = base;
  // Bases (Error, a builtin): the new type keeps its own reference to the tuple.
  auto pair = [&](PyObject* other) { return py::reinterpret_steal<py::object>(PyTuple_Pack(2, base, other)); };
  error_types[static_cast<int>(error_class::argument)] = new_error_type(
      m, "ArgumentError", pair(PyExc_ValueError).ptr(),
      "A wrong argument: a vector of the wrong length, a freed matrix or communicator, an unknown option name.");
  error_types[static_cast<int>(error_class::array_type)] = new_error_type(
      m, "ArrayTypeError", pair(PyExc_TypeError).ptr(),
      "An array of the wrong dtype or device, not contiguous, read-only where written, or not an array.");
  error_types[static_cast<int>(error_class::bad_input)] = new_error_type(
      m, "BadInputError", pair(PyExc_ValueError).ptr(),
      "Bad input found by the library: a file, a generator spec or CSR contents (names the source and place).");
  error_types[static_cast<int>(error_class::mpi)] = new_error_type(m, "MPIError", base, "An MPI call failed.");
  error_types[static_cast<int>(error_class::cuda)] =
      new_error_type(m, "CUDAError", base, "A CUDA, cuSPARSE or NCCL call failed (out of GPU memory among them).");
  error_types[static_cast<int>(error_class::not_compiled)] = new_error_type(
      m, "NotCompiledError", pair(PyExc_NotImplementedError).ptr(),
      "The build lacks what was asked for (CUDA, METIS, PT-Scotch).");

  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const std::bad_alloc&) {
      throw;  // pybind11 raises MemoryError
    } catch (const py::error_already_set&) {
      throw;
    } catch (const python_error& e) {
      set_python_error(e);
    } catch (const distspmv::error&) {
      set_python_error(classify_current_exception());
    }
  });

  m.def("_init_mpi", [] {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (finalized) raise_argument("MPI was finalized before distspmv was imported");
    if (!initialized) {
      int provided = 0;
      DSPMV_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
      mpi_initialized_here = true;
    }
    return mpi_initialized_here;
  }, "Initialises MPI unless it is (mpi4py does on import); True when this call did.");
  m.def("_shutdown", [] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    release_all_matrices();
    if (mpi_initialized_here) {
      MPI_Finalize();
      mpi_initialized_here = false;
    }
  }, "At exit: frees the live matrices, then finalizes MPI where _init_mpi initialised it.");
  m.def("_abort", [](int code) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  });
  m.def("_world", [] {
    int initialized = 0, finalized = 0, rank = 0, size = 1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    return py::make_tuple(rank, size);
  }, "(rank, size) of MPI_COMM_WORLD; (0, 1) once MPI is finalized.");
  m.attr("__version__") = DISTSPMV_VERSION;
  m.attr("git_revision") = DISTSPMV_GIT_REVISION;
  m.attr("has_cuda") = static_cast<bool>(DISTSPMV_HAVE_CUDA);

  bind_matrix(m);
  bind_solvers(m);
}
