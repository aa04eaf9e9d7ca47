// Arrays from Python without copies: NumPy arrays through pybind11's array type, device arrays
// through the CUDA Array Interface (version 2 or 3: CuPy, PyTorch, Numba; its "stream" entry is
// read for the stream rules of Matrix.apply). Only 1-D contiguous arrays of the exact dtype are
// accepted: a silent conversion would copy, and on the CUDA backend a copy defeats the point.
#include <pybind11/numpy.h>

#include <array>
#include <unordered_map>
#include <vector>

#include "binding.hpp"

namespace distspmv::python {

namespace {

struct dtype_facts {
  char kind;
  int itemsize;
  const char* typestr;  ///< the CUDA Array Interface's name (little-endian)
};

dtype_facts facts(element e) {
  switch (e) {
    case element::float64: return {'f', 8, "<f8"};
    case element::float32: return {'f', 4, "<f4"};
    case element::int64: return {'i', 8, "<i8"};
  }
  return {'f', 8, "<f8"};
}

std::string type_name(py::handle obj) {
  const py::handle type = py::type::handle_of(obj);
  return py::str(type.attr("__module__")).cast<std::string>() + "." + py::str(type.attr("__name__")).cast<std::string>();
}

/// Borrowed item of a dict, or null.
PyObject* item(PyObject* dict, const char* key) { return PyDict_GetItemString(dict, key); }

array_view view_numpy(const py::array& a, element type, const char* name, bool writable) {
  const dtype_facts want = facts(type);
  const py::dtype dt = a.dtype();
  const char order = dt.byteorder();
  if (dt.kind() != want.kind || dt.itemsize() != want.itemsize || order == '>')
    raise_array_type(std::string(name) + ": dtype " + py::str(dt.ptr()).cast<std::string>() + ", expected " + to_string(type) +
                     " (convert with numpy.asarray(v, dtype=numpy." + to_string(type) + "))");
  if (a.ndim() != 1)
    raise_array_type(std::string(name) + ": a " + std::to_string(a.ndim()) + "-D array, expected a 1-D array");
  if (a.shape(0) > 1 && a.strides(0) != want.itemsize)
    raise_array_type(std::string(name) + ": not contiguous (stride " + std::to_string(a.strides(0)) +
                     " bytes); pass numpy.ascontiguousarray(v)");
  if (writable && !a.writeable()) raise_array_type(std::string(name) + ": the array is read-only");
  array_view v;
  v.data = const_cast<void*>(a.data());
  v.size = a.shape(0);
  v.readonly = !a.writeable();
  return v;
}

array_view view_cuda(PyObject* cai, element type, const char* name, bool writable) {
  if (!PyDict_Check(cai)) raise_array_type(std::string(name) + ": __cuda_array_interface__ is not a dict");
  const dtype_facts want = facts(type);
  PyObject* typestr = item(cai, "typestr");
  PyObject* shape = item(cai, "shape");
  PyObject* data = item(cai, "data");
  if (!typestr || !shape || !data || !PyUnicode_Check(typestr) || !PyTuple_Check(shape) || !PyTuple_Check(data) ||
      PyTuple_GET_SIZE(data) != 2)
    raise_array_type(std::string(name) + ": __cuda_array_interface__ lacks typestr, shape or data");
  const char* ts = PyUnicode_AsUTF8(typestr);
  if (!ts) throw py::error_already_set();
  if (std::string(ts) != want.typestr)
    raise_array_type(std::string(name) + ": typestr '" + ts + "', expected '" + want.typestr + "' (" + to_string(type) +
                     ")");
  if (PyTuple_GET_SIZE(shape) != 1)
    raise_array_type(std::string(name) + ": a " + std::to_string(PyTuple_GET_SIZE(shape)) +
                     "-D array, expected a 1-D array");
  array_view v;
  v.size = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, 0));
  if (PyObject* strides = item(cai, "strides"); strides && strides != Py_None) {
    if (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != 1)
      raise_array_type(std::string(name) + ": __cuda_array_interface__ strides is not a 1-tuple");
    const long long stride = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, 0));
    if (v.size > 1 && stride != want.itemsize)
      raise_array_type(std::string(name) + ": not contiguous (stride " + std::to_string(stride) +
                       " bytes); pass cupy.ascontiguousarray(v)");
  }
  if (PyObject* mask = item(cai, "mask"); mask && mask != Py_None)
    raise_array_type(std::string(name) + ": masked arrays are not supported");
  v.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLongMask(PyTuple_GET_ITEM(data, 0))));
  v.readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1)) == 1;
  if (writable && v.readonly) raise_array_type(std::string(name) + ": the array is read-only");
  if (PyObject* stream = item(cai, "stream"); stream && stream != Py_None)
    v.stream = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLongMask(stream));
  if (PyErr_Occurred()) throw py::error_already_set();
  v.device = true;
  return v;
}

array_view view_cuda_interface(py::handle obj, element type, const char* name, bool writable) {
  PyObject* cai = PyObject_GetAttrString(obj.ptr(), "__cuda_array_interface__");
  if (!cai) throw py::error_already_set();
  const py::object owner = py::reinterpret_steal<py::object>(cai);
  return view_cuda(cai, type, name, writable);
}

/// CuPy's ndarray type once cupy is imported (null before); leaked, like every cache here.
PyObject* cupy_ndarray_type() {
  static PyObject* type = nullptr;
  if (!type) {
    PyObject* cupy = PyImport_GetModule(py::str("cupy").ptr());
    if (cupy) {
      type = PyObject_GetAttrString(cupy, "ndarray");
      Py_DECREF(cupy);
    }
    if (!type) PyErr_Clear();
  }
  return type;
}

/// numpy.dtype of `e` (the builtin descriptors are singletons, so CuPy's dtype is this object).
PyObject* numpy_dtype(element e) {
  static PyObject* types[3] = {py::dtype::of<double>().release().ptr(), py::dtype::of<float>().release().ptr(),
                               py::dtype::of<std::int64_t>().release().ptr()};
  return types[static_cast<int>(e)];
}

/// Attribute names of the hot path, interned once: PyObject_GetAttrString makes and hashes a new
/// string on every call.
struct attribute_names {
  PyObject *dtype, *ndim, *size, *strides, *data, *ptr;
};
const attribute_names& names() {
  static const attribute_names n = [] {
    auto intern = [](const char* s) {
      PyObject* o = PyUnicode_InternFromString(s);
      if (!o) throw py::error_already_set();
      return o;  // leaked, like every cache here
    };
    return attribute_names{intern("dtype"), intern("ndim"), intern("size"), intern("strides"), intern("data"), intern("ptr")};
  }();
  return n;
}

long long long_attribute(PyObject* obj, PyObject* name) {
  PyObject* v = PyObject_GetAttr(obj, name);
  if (!v) throw py::error_already_set();
  const long long out = PyLong_AsLongLong(v);
  Py_DECREF(v);
  if (out == -1 && PyErr_Occurred()) throw py::error_already_set();
  return out;
}

/// A CuPy array through its attributes (data.ptr, dtype, ndim, size, strides): its
/// __cuda_array_interface__ builds a dict per call, 1-2 us of the apply's host time on H200.
/// False where it is not a plain 1-D contiguous array of `type`: the interface then says why.
bool view_cupy(PyObject* obj, element type, array_view& v) {
  const attribute_names& n = names();
  const py::object dtype = py::reinterpret_steal<py::object>(PyObject_GetAttr(obj, n.dtype));
  if (!dtype) throw py::error_already_set();
  if (dtype.ptr() != numpy_dtype(type) || long_attribute(obj, n.ndim) != 1) return false;
  v.size = long_attribute(obj, n.size);
  if (v.size > 1) {
    const py::object strides = py::reinterpret_steal<py::object>(PyObject_GetAttr(obj, n.strides));
    if (!strides || !PyTuple_Check(strides.ptr()) || PyTuple_GET_SIZE(strides.ptr()) != 1) return false;
    if (PyLong_AsLongLong(PyTuple_GET_ITEM(strides.ptr(), 0)) != facts(type).itemsize) return false;
  }
  const py::object data = py::reinterpret_steal<py::object>(PyObject_GetAttr(obj, n.data));
  if (!data) throw py::error_already_set();
  v.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(long_attribute(data.ptr(), n.ptr)));
  v.device = true;
  v.cupy = true;
  return true;
}

/// The views of the last CuPy arrays seen, by identity: a solver passes the same x and y every
/// iteration, and reading their attributes is most of the binding's time per apply. Sound because
/// a CuPy array's data pointer, size and dtype never change (read-only attributes; an in-place
/// reshape keeps the size and contiguity of a contiguous array), and because the entry holds a
/// weak reference: an array that dies, and a new one at its address, miss.
class cupy_view_cache {
 public:
  bool find(PyObject* obj, element type, array_view& v) const {
    for (const entry& e : entries_)
      if (e.ref && e.type == type && PyWeakref_GetObject(e.ref) == obj) {
        v = e.view;
        return true;
      }
    return false;
  }
  void add(PyObject* obj, element type, const array_view& v) {
    PyObject* ref = PyWeakref_NewRef(obj, nullptr);
    if (!ref) {  // not weakly referenceable (an older CuPy): no caching
      PyErr_Clear();
      return;
    }
    entry& e = entries_[next_];
    next_ = (next_ + 1) % entries_.size();
    Py_XDECREF(e.ref);
    e = {ref, type, v};
  }

 private:
  struct entry {
    PyObject* ref = nullptr;
    element type = element::float64;
    array_view view;
  };
  std::array<entry, 4> entries_{};  // x and y of two solvers at once
  std::size_t next_ = 0;
};

/// The module's cache (leaked, like every cache here; used under the GIL).
cupy_view_cache& cupy_views() {
  static auto* cache = new cupy_view_cache;
  return *cache;
}

}  // namespace

std::uintptr_t array_stream(const array_view& v) {
  if (!v.cupy) return v.stream;
  static PyObject* current = [] {
    PyObject* cuda = PyImport_ImportModule("cupy.cuda");
    PyObject* f = cuda ? PyObject_GetAttrString(cuda, "get_current_stream") : nullptr;
    Py_XDECREF(cuda);
    if (!f) throw py::error_already_set();
    return f;
  }();
  const py::object stream = py::reinterpret_steal<py::object>(PyObject_CallNoArgs(current));
  if (!stream) throw py::error_already_set();
  return static_cast<std::uintptr_t>(long_attribute(stream.ptr(), names().ptr));
}

const char* to_string(element e) {
  switch (e) {
    case element::float64: return "float64";
    case element::float32: return "float32";
    case element::int64: return "int64";
  }
  return "?";
}

array_view view_array(py::handle obj, element type, std::int64_t expected, const char* name, bool writable) {
  array_view v;
  PyObject* cupy = nullptr;
  if (py::isinstance<py::array>(obj)) {
    v = view_numpy(py::reinterpret_borrow<py::array>(obj), type, name, writable);
  } else if ((cupy = cupy_ndarray_type()) && PyObject_TypeCheck(obj.ptr(), reinterpret_cast<PyTypeObject*>(cupy))) {
    if (!cupy_views().find(obj.ptr(), type, v)) {
      if (view_cupy(obj.ptr(), type, v))
        cupy_views().add(obj.ptr(), type, v);
      else
        v = view_cuda_interface(obj, type, name, writable);  // says what is wrong with it
    }
  } else if (PyObject_HasAttrString(obj.ptr(), "__cuda_array_interface__")) {
    v = view_cuda_interface(obj, type, name, writable);
  } else {
    raise_array_type(std::string(name) + ": expected a NumPy array, or a device array with __cuda_array_interface__ "
                     "(CuPy), not " + type_name(obj));
  }
  if (expected >= 0 && v.size != expected)
    raise_argument(std::string(name) + ": has " + std::to_string(v.size) + " entries, expected " +
                   std::to_string(expected));
  return v;
}

std::uintptr_t stream_from_python(py::handle stream) {
  if (stream.is_none()) return 0;
  if (PyLong_Check(stream.ptr())) return stream.cast<std::uintptr_t>();
  if (PyObject* ptr = PyObject_GetAttr(stream.ptr(), names().ptr)) {  // CuPy: one lookup
    const auto out = PyLong_AsUnsignedLongLongMask(ptr);
    Py_DECREF(ptr);
    if (PyErr_Occurred()) throw py::error_already_set();
    return static_cast<std::uintptr_t>(out);
  }
  PyErr_Clear();
  if (py::hasattr(stream, "cuda_stream")) return stream.attr("cuda_stream").cast<std::uintptr_t>();
  raise_array_type("stream: expected None, an int (a cudaStream_t), or a stream object with .ptr (CuPy) or "
                   ".cuda_stream (PyTorch), not " + type_name(stream));
}

py::object empty_like(py::handle like) {
  if (py::isinstance<py::array>(like)) {
    const auto a = py::reinterpret_borrow<py::array>(like);
    return py::array(a.dtype(), std::vector<py::ssize_t>{a.shape(0)});
  }
  // The module's empty_like, looked up once per array type (A @ x in a solver's loop). Leaked on
  // purpose: freed at exit, after the modules it refers to, it would crash.
  static auto* found = new std::unordered_map<PyTypeObject*, py::object>;
  PyTypeObject* type = Py_TYPE(like.ptr());
  auto it = found->find(type);
  if (it == found->end()) {
    const std::string module = py::str(py::type::handle_of(like).attr("__module__")).cast<std::string>();
    const py::module_ lib = py::module_::import(module.substr(0, module.find('.')).c_str());
    if (!py::hasattr(lib, "empty_like"))
      raise_array_type("no empty_like in module " + module + " to make the output array: pass the output array");
    it = found->emplace(type, lib.attr("empty_like")).first;
  }
  return it->second(like);
}

py::object numpy_empty(std::int64_t n, element type) {
  switch (type) {
    case element::float32: return py::array_t<float>(static_cast<py::ssize_t>(n));
    case element::int64: return py::array_t<std::int64_t>(static_cast<py::ssize_t>(n));
    case element::float64: break;
  }
  return py::array_t<double>(static_cast<py::ssize_t>(n));
}

}  // namespace distspmv::python
