// distspmv.Matrix: creation from a file, a generator or each rank's CSR rows, the apply, vector
// moves, updates and queries, over dist/distributed_matrix.hpp. Setup calls agree on their
// arguments between the ranks (every rank raises the same error); apply checks locally (see
// python/README.md, "Errors").
#include "matrix.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <map>
#include <vector>

#include "common/mpi_check.hpp"
#include "dist/diagnostics.hpp"
#include "dist/gpu.hpp"
#include "dist/report.hpp"

namespace distspmv::python {

namespace {

/// Live matrices by creation order, freed in that order at exit (the same on every rank).
std::map<std::uint64_t, matrix*>& live() {
  static auto* m = new std::map<std::uint64_t, matrix*>;
  return *m;
}
std::uint64_t next_id = 1;

bool mpi_finalized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

/// The keyword options of Matrix() and Matrix.from_csr().
struct creation {
  std::string format = "auto", partition = "auto", order = "auto", backend = "auto", precision = "double",
              transport = "auto", h5_group;
  std::uint64_t seed = 1;
  int metis_seed = 1;
  bool allow_nonfinite = false, cuda_graphs = true;

  /// Local: the names parsed (library parsers; ArgumentError for the binding's own words).
  matrix_options parse() const {
    matrix_options o;
    o.format = format;
    o.partition = parse_partitioner(partition);
    o.order = parse_row_order(order);
    o.transport = parse_transport(transport);
    o.generator_seed = seed;
    o.metis_seed = metis_seed;
    o.allow_nonfinite = allow_nonfinite;
    o.cuda_graphs = cuda_graphs;
    o.h5_group = h5_group;
    o.float_values = precision == "mixed";
    if (precision != "double" && precision != "float" && precision != "mixed")
      raise_argument("precision='" + precision + "': expected 'double', 'float' or 'mixed'");
    if (backend != "auto" && backend != "cuda" && backend != "host")
      raise_argument("backend='" + backend + "': expected 'auto', 'cuda' or 'host'");
    return o;
  }
};

/// Collective: the options agreed on, the backend chosen (select_backend makes the rank's GPU
/// current), then `make` creates the matrix of the precision asked for, the GIL released.
template <typename Make>
std::unique_ptr<matrix> create(MPI_Comm comm, const creation& c, const std::string& source,
                               const std::function<void()>& more_checks, Make&& make) {
  matrix_options options;
  agree(comm, [&] {
    options = c.parse();
    if (more_checks) more_checks();
  });
  py::gil_scoped_release unlocked;
  options.where = dist::select_backend(c.backend, comm);
  if (c.precision == "float")
    return std::make_unique<matrix>(
        std::make_unique<distributed_matrix<float>>(make(static_cast<float*>(nullptr), options)), source, c.precision);
  return std::make_unique<matrix>(
      std::make_unique<distributed_matrix<double>>(make(static_cast<double*>(nullptr), options)), source, c.precision);
}

std::unique_ptr<matrix> from_source(py::handle comm_obj, const std::string& source, const creation& c) {
  const MPI_Comm comm = comm_from_python(comm_obj);
  return create(comm, c, source, nullptr, [&](auto* tag, const matrix_options& o) {
    using V = std::remove_pointer_t<decltype(tag)>;
    return distributed_matrix<V>::from_source(comm, source, o);
  });
}

std::unique_ptr<matrix> from_csr(py::handle comm_obj, py::handle indptr, py::handle indices, py::handle data,
                                 std::int64_t first_row, const std::vector<std::int64_t>& shape, const creation& c) {
  const MPI_Comm comm = comm_from_python(comm_obj);
  array_view p, i, v;
  std::int64_t rows = 0;
  const std::int64_t global_rows = shape.empty() ? -1 : shape[0];
  auto checks = [&] {
    if (shape.size() != 2 || shape[0] != shape[1])
      raise_argument("Matrix.from_csr: global_shape must be (N, N): distspmv's matrices are square");
    const element values = c.precision == "float" ? element::float32 : element::float64;
    p = view_array(indptr, element::int64, -1, "Matrix.from_csr: indptr");
    i = view_array(indices, element::int64, -1, "Matrix.from_csr: indices");
    v = view_array(data, values, i.size, "Matrix.from_csr: data");
    if (p.size < 1) raise_argument("Matrix.from_csr: indptr is empty; a rank without rows passes [0]");
    if (p.device != i.device || p.device != v.device)
      raise_array_type("Matrix.from_csr: indptr, indices and data must all be host (NumPy) or all device arrays");
    rows = p.size - 1;
    if (!p.device) {
      const auto* ptr = static_cast<const std::int64_t*>(p.data);
      if (ptr[0] != 0 || ptr[rows] != i.size)
        raise_argument("Matrix.from_csr: indptr runs from " + std::to_string(ptr[0]) + " to " +
                       std::to_string(ptr[rows]) + ", expected 0 to len(indices) = " + std::to_string(i.size));
    }
  };
  // Checked on every rank and agreed inside create() before any rank goes on.
  std::function<void()> more = checks;
  return create(comm, c, "csr", more, [&](auto* tag, const matrix_options& o) {
    using V = std::remove_pointer_t<decltype(tag)>;
    global_index_type first = first_row, total = global_rows;
    if (first < 0 || total < 0) {
      global_index_type before = 0, all = 0;
      DSPMV_MPI_CHECK(MPI_Exscan(&rows, &before, 1, MPI_INT64_T, MPI_SUM, comm));
      DSPMV_MPI_CHECK(MPI_Allreduce(&rows, &all, 1, MPI_INT64_T, MPI_SUM, comm));
      int rank = 0;
      DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &rank));
      if (first < 0) first = rank == 0 ? 0 : before;
      if (total < 0) total = all;
    }
    return distributed_matrix<V>::from_csr(comm, total, first, rows, static_cast<const offset_type*>(p.data),
                                           static_cast<const global_index_type*>(i.data),
                                           static_cast<const V*>(v.data),
                                           p.device ? memory_space::device : memory_space::host, o);
  });
}

/// to_partitioned (forward) or from_partitioned: host arrays, agreed between the ranks.
py::object move(const matrix& a, py::handle v, py::object out, bool forward) {
  const char* fn = forward ? "Matrix.to_partitioned" : "Matrix.from_partitioned";
  const std::int64_t in_n = forward ? a.caller_rows() : a.local_rows();
  const std::int64_t out_n = forward ? a.local_rows() : a.caller_rows();
  array_view iv, ov;
  const MPI_Comm comm = a.with([](auto& m) { return m.comm(); });
  agree(comm, [&] {
    iv = view_array(v, a.value_type(), in_n, (std::string(fn) + ": v").c_str());
    if (iv.device)
      raise_array_type(std::string(fn) + ": v is a device array; the moves take host (NumPy) arrays (cupy.asnumpy(v))");
    if (out.is_none()) out = numpy_empty(out_n, a.value_type());
    ov = view_array(out, a.value_type(), out_n, (std::string(fn) + ": out").c_str(), true);
    if (ov.device) raise_array_type(std::string(fn) + ": out is a device array; pass a NumPy array");
  });
  py::gil_scoped_release unlocked;
  a.with([&](auto& m) {
    using V = typename std::remove_reference_t<decltype(m)>::value_type;
    if (forward)
      m.to_partitioned(static_cast<const V*>(iv.data), static_cast<V*>(ov.data));
    else
      m.from_partitioned(static_cast<const V*>(iv.data), static_cast<V*>(ov.data));
  });
  return out;
}

void update_values(const matrix& a, py::handle data) {
  array_view dv;
  const MPI_Comm comm = a.with([](auto& m) { return m.comm(); });
  const std::int64_t nnz = a.with([](auto& m) { return static_cast<std::int64_t>(m.caller_nnz()); });
  agree(comm, [&] {
    dv = view_array(data, a.value_type(), nnz, "Matrix.update_values: data");
    if (dv.device && !a.cuda())
      raise_array_type("Matrix.update_values: data is a device array, but the matrix is on the host backend");
  });
  py::gil_scoped_release unlocked;
  a.with([&](auto& m) {
    using V = typename std::remove_reference_t<decltype(m)>::value_type;
    m.update_values(static_cast<const V*>(dv.data), dv.device ? memory_space::device : memory_space::host);
  });
}

template <typename T>
py::array to_numpy(const std::vector<T>& v) {
  py::array_t<T> out(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), out.mutable_data());
  return std::move(out);
}

/// The command line's timing of apply (apps/run_distributed.cpp, time_collective) in C++ on the
/// given arrays, for jobs/python_apply_timing.py: per iteration a barrier, then CUDA events around
/// the apply on `stream` and a synchronisation (the wall clock on the host backend). Returns this
/// rank's microseconds per timed iteration, and its host time to enqueue each apply.
py::tuple time_apply(const matrix& a, py::handle x, py::handle y, int iters, int warmup, py::handle stream) {
  const array_view xv = view_array(x, a.value_type(), a.local_rows(), "Matrix._time_apply: x");
  const array_view yv = view_array(y, a.value_type(), a.local_rows(), "Matrix._time_apply: y", true);
  const auto s = reinterpret_cast<cuda_stream_t>(stream_from_python(stream));
  std::vector<double> gpu_us, host_us;
  {
    py::gil_scoped_release unlocked;
    a.with([&](auto& m) {
      using V = typename std::remove_reference_t<decltype(m)>::value_type;
      const auto* xp = static_cast<const V*>(xv.data);
      auto* yp = static_cast<V*>(yv.data);
      dist::gpu::event_ptr start, stop;
      if (a.cuda()) {
        start = dist::gpu::make_event(true);
        stop = dist::gpu::make_event(true);
      }
      for (int i = 0; i < warmup + iters; ++i) {
        DSPMV_MPI_CHECK(MPI_Barrier(m.comm()));
        if (a.cuda()) dist::gpu::record(start.get(), s);
        const double t0 = MPI_Wtime();
        m.apply(V(1), xp, V(0), yp, s);
        const double t1 = MPI_Wtime();
        double us = 1e6 * (t1 - t0);
        if (a.cuda()) {
          dist::gpu::record(stop.get(), s);
          dist::gpu::synchronize(s);
          us = 1e3 * dist::gpu::elapsed_ms(start.get(), stop.get());
        }
        if (i >= warmup) {
          gpu_us.push_back(us);
          host_us.push_back(1e6 * (t1 - t0));
        }
      }
    });
  }
  return py::make_tuple(to_numpy(gpu_us), to_numpy(host_us));
}

}  // namespace

/// y = alpha A x + beta y: the hot path. Local checks only (no communication before the
/// library's apply); the GIL is kept while enqueueing on device arrays, released where the call
/// waits for MPI (host arrays).
py::object apply(const matrix& a, py::handle x, py::object y, double alpha, double beta, py::handle stream) {
  a.require_alive();
  const std::int64_t n = a.local_rows();
  const array_view xv = view_array(x, a.value_type(), n, "Matrix.apply: x");
  if (xv.device && !a.cuda())
    raise_array_type("Matrix.apply: x is a device array, but the matrix is on the host backend: pass NumPy arrays");
  if (y.is_none()) {
    if (beta != 0.0) raise_argument("Matrix.apply: beta != 0 needs y");
    y = empty_like(x);
  }
  const array_view yv = view_array(y, a.value_type(), n, "Matrix.apply: y", true);
  if (n > 0 && xv.data == yv.data)
    raise_argument("Matrix.apply: x and y are the same array (y = alpha*A*x + beta*y needs distinct x and y)");
  if (yv.device && !a.cuda())
    raise_array_type("Matrix.apply: y is a device array, but the matrix is on the host backend: pass NumPy arrays");
  std::uintptr_t s = 0;
  if (!stream.is_none())
    s = stream_from_python(stream);
  else {
    s = xv.device ? array_stream(xv) : 0;
    if (s == 0 && yv.device) s = array_stream(yv);
  }
  const auto cs = reinterpret_cast<cuda_stream_t>(s);
  const bool waits = !xv.device || !yv.device;
  a.with([&](auto& m) {
    using V = typename std::remove_reference_t<decltype(m)>::value_type;
    const auto* xp = static_cast<const V*>(xv.data);
    auto* yp = static_cast<V*>(yv.data);
    if (waits) {
      py::gil_scoped_release unlocked;
      m.apply(static_cast<V>(alpha), xp, static_cast<V>(beta), yp, cs);
    } else {
      m.apply(static_cast<V>(alpha), xp, static_cast<V>(beta), yp, cs);
    }
  });
  return y;
}

// ---- matrix ----------------------------------------------------------------------------------------

matrix::matrix(std::unique_ptr<double_matrix> m, std::string source, std::string precision)
    : m_(std::move(m)), source_(std::move(source)), precision_(std::move(precision)) {
  registered();
}

matrix::matrix(std::unique_ptr<float_matrix> m, std::string source, std::string precision)
    : m_(std::move(m)), value_type_(element::float32), source_(std::move(source)), precision_(std::move(precision)) {
  registered();
}

void matrix::registered() {
  with([&](auto& m) {
    cuda_ = m.where() == backend::cuda;
    local_rows_ = m.local_rows();
    caller_rows_ = m.caller_rows();
  });
  id_ = next_id++;
  live()[id_] = this;
}

matrix::~matrix() {
  live().erase(id_);
  if (mpi_finalized()) {
    // Too late to free: the destructors would call MPI. The process is ending anyway.
    std::visit([](auto& p) {
      if constexpr (!std::is_same_v<std::decay_t<decltype(p)>, std::monostate>) (void)p.release();
    }, m_);
    return;
  }
  m_ = std::monostate{};
}

void matrix::free() { m_ = std::monostate{}; }

matrix::double_matrix* matrix::as_double() const {
  require_alive();
  const auto* d = std::get_if<std::unique_ptr<double_matrix>>(&m_);
  return d ? d->get() : nullptr;
}

void release_all_matrices() {
  // Copy first: free() does not unregister, the destructor does.
  std::vector<matrix*> all;
  for (const auto& [id, m] : live()) all.push_back(m);
  for (matrix* m : all) m->free();
}

// ---- the class -----------------------------------------------------------------------------------

void bind_matrix(py::module_& mod) {
  using namespace pybind11::literals;
  py::class_<matrix> cls(mod, "Matrix", R"doc(A square sparse matrix distributed over the ranks of an MPI communicator.

Matrix(comm, source, format="auto", partition="auto", order="auto", backend="auto",
       precision="double", transport="auto", *, seed=1, metis_seed=1,
       allow_nonfinite=False, cuda_graphs=True, h5_group="")

Collective: every rank of `comm` (an mpi4py communicator, or None for MPI_COMM_WORLD) calls it.
`source` is a file (.h5, .mtx, .mtx.gz, .petsc) or a generator ("gen:poisson3d:32",
"gen:stencil27:N", "gen:rmat:SCALE:EF", "gen:lognormal:ROWS:MU:SIGMA:BAND"); each rank reads only
its nnz-balanced slice of rows (its "caller" rows). The options are the command line's:
format (auto, csr, ellr, hll, hdia, sell, ...), partition (auto, metis, ptscotch, lp, block),
order (auto: none where the numbering is already local, else on the GPU the fastest of none,
rcm and degree in a timed trial, on the host rcm; none, degree, rcm), backend (auto: CUDA when
every rank sees a GPU; cuda; host),
precision (double, float: float32 vectors; mixed: float64 vectors, float values where the
format can), transport (auto, peer-put, nvshmem, nccl, cuda-ipc, mpi-cuda, mpi-staged, mpi-host).

Vectors of apply() and the solvers are in the *partitioned* layout (local_rows entries on
each rank, rows first_row .. first_row + local_rows - 1 of the partitioned numbering);
to_partitioned() / from_partitioned() move vectors from and to the caller's layout (the file's
row order, caller_rows entries from caller_first_row).

Errors of setup are agreed between the ranks: every rank raises the same distspmv.Error
subclass with `collective` True. Use `with Matrix(...) as A:` or A.free() to free it
collectively at a known point; otherwise it is freed when collected, or at exit before MPI
is finalized.)doc");

  cls.def(py::init([](py::handle comm, const std::string& source, std::string format, std::string partition,
                      std::string order, std::string backend, std::string precision, std::string transport,
                      std::uint64_t seed, int metis_seed, bool allow_nonfinite, bool cuda_graphs,
                      std::string h5_group) {
            creation c{format, partition, order, backend, precision, transport, h5_group, seed, metis_seed,
                       allow_nonfinite, cuda_graphs};
            return from_source(comm, source, c);
          }),
          "comm"_a, "source"_a, "format"_a = "auto", "partition"_a = "auto", "order"_a = "auto", "backend"_a = "auto",
          "precision"_a = "double", "transport"_a = "auto", py::kw_only(), "seed"_a = 1, "metis_seed"_a = 1,
          "allow_nonfinite"_a = false, "cuda_graphs"_a = true, "h5_group"_a = "");

  cls.def_static(
      "_from_csr",
      [](py::handle comm, py::handle indptr, py::handle indices, py::handle data, std::int64_t first_row,
         std::vector<std::int64_t> global_shape, std::string format, std::string partition, std::string order, std::string backend,
         std::string precision, std::string transport, int metis_seed, bool allow_nonfinite, bool cuda_graphs) {
        creation c{format, partition, order, backend, precision, transport, "", 1, metis_seed, allow_nonfinite,
                   cuda_graphs};
        return from_csr(comm, indptr, indices, data, first_row, global_shape, c);
      },
      "comm"_a, "indptr"_a, "indices"_a, "data"_a, "first_row"_a, "global_shape"_a, "format"_a, "partition"_a,
      "order"_a, "backend"_a, "precision"_a, "transport"_a, "metis_seed"_a, "allow_nonfinite"_a, "cuda_graphs"_a,
      "Matrix.from_csr's C++ side: int64 indptr and indices, values of the precision (see Matrix.from_csr).");

  install_fast_apply(cls);
  cls.def("_time_apply", &time_apply, "x"_a, "y"_a, "iters"_a, "warmup"_a, "stream"_a = py::none(),
          "The command line's apply timing in C++ on these arrays (jobs/python_apply_timing.py): this rank's "
          "microseconds per iteration (CUDA events; wall clock on the host) and host enqueue times.");
  cls.def("to_partitioned", [](const matrix& a, py::handle v, py::object out) { return move(a, v, out, true); },
          "v"_a, "out"_a = py::none(),
          "Collective: a vector of the caller's layout (caller_rows entries, host) in the partitioned layout "
          "(local_rows entries); into `out` when given, else a new NumPy array.");
  cls.def("from_partitioned", [](const matrix& a, py::handle v, py::object out) { return move(a, v, out, false); },
          "v"_a, "out"_a = py::none(),
          "Collective: a vector of the partitioned layout (local_rows entries, host) in the caller's layout "
          "(caller_rows entries); into `out` when given, else a new NumPy array.");
  cls.def("update_values", &update_values, "data"_a,
          "Collective: new values for the pattern given at creation, in the caller's layout and entry order "
          "(caller_nnz entries: from_csr's data order; for a file or generator, this rank's rows as read, "
          "row-major with sorted columns). Host or (CUDA backend) device array. Rebuilds the local operators.");
  cls.def("diagonal", [](const matrix& a) {
    return a.with([](auto& m) { return to_numpy(m.diagonal()); });
  }, "The diagonal of the owned rows (partitioned layout, NumPy, local_rows entries; 0 where a row has none).");
  cls.def("owned_caller_ids", [](const matrix& a) {
    return a.with([](auto& m) { return to_numpy(m.owned_caller_ids()); });
  }, "Global row id in the caller's layout of each owned row (partitioned layout, int64): the permutation "
     "to_partitioned applies.");
  cls.def("report", [](const matrix& a) {
    const std::string text = a.with([&](auto& m) { return setup_report(m, a.source(), a.precision()).dump(); });
    return py::module_::import("json").attr("loads")(text);
  }, "Collective: a dict of what the command line's --json report holds apart from its timings: matrix, "
     "ranks, backend, precision, transport, partition and their reasons, halo and imbalance figures, setup "
     "seconds and memory, MPI library, hosts and GPUs, and per_rank (rows, nnz, ghosts, neighbours, "
     "format, ...). The same on every rank but setup_seconds' phases, which are the rank's own.");
  cls.def("free", &matrix::free,
          "Collective: frees the matrix (its communicator, device memory and transport) now. Later calls raise "
          "ArgumentError.");
  cls.def("__enter__", [](py::object self) { return self; });
  cls.def("__exit__", [](matrix& a, py::args) { a.free(); });

  cls.def_property_readonly("shape", [](const matrix& a) {
    const auto n = a.with([](auto& m) { return m.global_rows(); });
    return py::make_tuple(n, n);
  }, "(global rows, global columns).");
  cls.def_property_readonly("nnz", [](const matrix& a) { return a.with([](auto& m) { return m.global_nnz(); }); },
                            "Nonzeros of the whole matrix.");
  cls.def_property_readonly("local_rows", &matrix::local_rows, "Rows this rank owns (partitioned layout).");
  cls.def_property_readonly("first_row", [](const matrix& a) { return a.with([](auto& m) { return m.first_row(); }); },
                            "First owned row in the partitioned numbering.");
  cls.def_property_readonly("caller_rows", &matrix::caller_rows, "Rows of this rank in the caller's layout.");
  cls.def_property_readonly("caller_first_row",
                            [](const matrix& a) { return a.with([](auto& m) { return m.caller_first_row(); }); },
                            "First row of this rank in the caller's layout.");
  cls.def_property_readonly("caller_nnz",
                            [](const matrix& a) { return a.with([](auto& m) { return m.caller_nnz(); }); },
                            "Entries of this rank in the caller's layout (update_values' length).");
  cls.def_property_readonly("format", [](const matrix& a) {
    return a.with([](auto& m) { return m.summary().format; });
  }, "This rank's local storage format.");
  cls.def_property_readonly("transport", [](const matrix& a) {
    return a.with([](auto& m) { return std::string(m.ranks() == 1 ? "none" : to_string(m.transport())); });
  }, "How the halo travels: peer-put, nvshmem, nccl, cuda-ipc, mpi-cuda, mpi-staged, mpi-host; none on one rank.");
  cls.def_property_readonly("transport_reason", [](const matrix& a) {
    return a.with([](auto& m) { return m.transport_reason(); });
  });
  cls.def_property_readonly("backend", [](const matrix& a) { return std::string(a.cuda() ? "cuda" : "host"); });
  cls.def_property_readonly("precision", &matrix::precision, "double, float or mixed.");
  cls.def_property_readonly("dtype", [](const matrix& a) {
    return py::module_::import("numpy").attr("dtype")(to_string(a.value_type()));
  }, "dtype of the vectors: float64 (float32 with precision 'float').");
  cls.def_property_readonly("device", [](const matrix& a) {
    return a.with([](auto& m) { return m.placement()[static_cast<std::size_t>(m.rank())].device; });
  }, "This rank's CUDA device (cupy.cuda.Device(A.device).use() before making arrays); -1 on the host backend.");
  cls.def_property_readonly("rank", [](const matrix& a) { return a.with([](auto& m) { return m.rank(); }); });
  cls.def_property_readonly("ranks", [](const matrix& a) { return a.with([](auto& m) { return m.ranks(); }); });
  cls.def_property_readonly("cuda_graphs", [](const matrix& a) {
    return a.with([](auto& m) { return m.cuda_graphs(); });
  }, "'on', or 'off: why' (this rank).");
  cls.def_property_readonly("freed", &matrix::freed);
  cls.def_property_readonly("_comm_fortran", [](const matrix& a) {
    return static_cast<long>(MPI_Comm_c2f(a.with([](auto& m) { return m.comm(); })));
  });
  cls.def("__repr__", [](const matrix& a) {
    if (a.freed()) return std::string("<distspmv.Matrix (freed)>");
    return a.with([&](auto& m) {
      return "<distspmv.Matrix " + std::to_string(m.global_rows()) + "x" + std::to_string(m.global_rows()) + ", " +
             std::to_string(m.global_nnz()) + " nonzeros, " + a.precision() + ", rank " + std::to_string(m.rank()) +
             "/" + std::to_string(m.ranks()) + ": rows [" + std::to_string(m.first_row()) + ", " +
             std::to_string(m.first_row() + m.local_rows()) + "), " + m.summary().format + ", " +
             (a.cuda() ? "cuda" : "host") + ">";
    });
  });
}

}  // namespace distspmv::python
