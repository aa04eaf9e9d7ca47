// Matrix.apply and Matrix.__matmul__ as CPython methods (METH_FASTCALL): the apply is what a
// solver calls thousands of times, and pybind11's dispatcher with keyword arguments cost about a
// microsecond more per call than parsing the five arguments here (measured with NumPy on the
// host backend: 3.8 us against 2.5 us a call of a product that takes 0.7 us in C++).
#include <cstring>

#include "matrix.hpp"

namespace distspmv::python {

namespace {

const char* const apply_doc = R"doc(apply(x, y=None, alpha=1.0, beta=0.0, stream=None)
--

y = alpha * A @ x + beta * y in the partitioned layout; returns y.

x and y hold local_rows entries of the matrix's dtype (float64; float32 with precision
"float"), 1-D and contiguous: NumPy arrays, or on the CUDA backend device arrays with
__cuda_array_interface__ (CuPy, PyTorch, Numba) used in place, without copies. y=None makes a
new array like x (beta must be 0). beta == 0 overwrites y (NaN in y does not leak).

Collective: every rank calls it. Device arrays: the work is enqueued on `stream` (an int
cudaStream_t, or a CuPy/PyTorch stream object), else on the stream that x's
__cuda_array_interface__ names (CuPy: the current stream), else the default stream; the call
returns once enqueued, ordered after the work already on that stream, like the C API. Host
arrays (also on the CUDA backend, staged through the GPU): the call returns when y is complete.

The arguments are checked on this rank only (no communication): pass the same kinds of
arrays on every rank, or the ranks that passed good ones wait in the exchange (see Errors in
python/README.md).)doc";

const char* const matmul_doc = "A @ x: apply(x) into a new array like x.";

double as_double(PyObject* o, const char* name) {
  const double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    throw python_error{error_class::array_type, std::string("Matrix.apply: ") + name + " must be a real number"};
  }
  return v;
}

PyObject* apply_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[5] = {"x", "y", "alpha", "beta", "stream"};
  try {
    PyObject* slot[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
    if (nargs > 5) throw python_error{error_class::array_type, "Matrix.apply takes at most 5 arguments"};
    for (Py_ssize_t i = 0; i < nargs; ++i) slot[i] = args[i];
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
      if (!key) return nullptr;
      int j = 0;
      while (j < 5 && std::strcmp(key, names[j]) != 0) ++j;
      if (j == 5) throw python_error{error_class::array_type, std::string("Matrix.apply: no argument '") + key + "'"};
      if (slot[j]) throw python_error{error_class::array_type, std::string("Matrix.apply: '") + key + "' given twice"};
      slot[j] = args[nargs + k];
    }
    if (!slot[0]) throw python_error{error_class::array_type, "Matrix.apply: missing x"};
    const matrix& a = py::handle(self).cast<const matrix&>();
    py::object y = slot[1] ? py::reinterpret_borrow<py::object>(slot[1]) : py::none();
    const double alpha = slot[2] ? as_double(slot[2], "alpha") : 1.0;
    const double beta = slot[3] ? as_double(slot[3], "beta") : 0.0;
    return apply(a, slot[0], std::move(y), alpha, beta, slot[4] ? py::handle(slot[4]) : py::none()).release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

PyObject* matmul_method(PyObject* self, PyObject* x) {
  try {
    const matrix& a = py::handle(self).cast<const matrix&>();
    return apply(a, x, py::none(), 1.0, 0.0, py::none()).release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

PyMethodDef apply_def = {"apply", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&apply_method)),
                         METH_FASTCALL | METH_KEYWORDS, apply_doc};
PyMethodDef matmul_def = {"__matmul__", &matmul_method, METH_O, matmul_doc};

}  // namespace

void install_fast_apply(py::class_<matrix>& cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  for (PyMethodDef* def : {&apply_def, &matmul_def}) {
    PyObject* descr = PyDescr_NewMethod(type, def);
    if (!descr || PyObject_SetAttrString(cls.ptr(), def->ml_name, descr) != 0) {
      Py_XDECREF(descr);
      throw py::error_already_set();
    }
    Py_DECREF(descr);
  }
}

}  // namespace distspmv::python
