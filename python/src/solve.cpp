// distspmv.solve's C++ side: CG and GMRES(m) of dist/solvers on a Matrix of double vectors.
#include <pybind11/stl.h>

#include "dist/solvers/cg.hpp"
#include "dist/solvers/gmres.hpp"
#include "matrix.hpp"

namespace distspmv::python {

void bind_solvers(py::module_& mod) {
  using namespace pybind11::literals;
  mod.def(
      "_solve",
      [](const matrix& a, py::handle b, py::handle x, const std::string& method, double rtol, int maxiter,
         int restart, bool jacobi, py::handle stream) {
        array_view bv, xv;
        const MPI_Comm comm = a.with([](auto& m) { return m.comm(); });
        distributed_matrix<double>* m = nullptr;
        agree(comm, [&] {
          m = a.as_double();
          if (!m)
            raise_argument("distspmv.solve: the solvers work in double: create the matrix with precision 'double' "
                           "or 'mixed', not 'float'");
          if (method != "cg" && method != "gmres")
            raise_argument("distspmv.solve: method='" + method + "': expected 'cg' or 'gmres'");
          if (!(rtol > 0)) raise_argument("distspmv.solve: rtol must be positive");
          if (maxiter < 1 || restart < 1) raise_argument("distspmv.solve: maxiter and restart must be at least 1");
          bv = view_array(b, element::float64, a.local_rows(), "distspmv.solve: b");
          xv = view_array(x, element::float64, a.local_rows(), "distspmv.solve: x", true);
          if (bv.device != a.cuda() || xv.device != a.cuda())
            raise_array_type(std::string("distspmv.solve: on the ") + (a.cuda() ? "CUDA" : "host") +
                             " backend b and x must be " + (a.cuda() ? "device (CuPy)" : "host (NumPy)") + " arrays");
          if (a.local_rows() > 0 && bv.data == xv.data) raise_argument("distspmv.solve: b and x are the same array");
        });
        solvers::solver_options o;
        o.rtol = rtol;
        o.max_iters = maxiter;
        o.restart = restart;
        o.jacobi = jacobi;
        o.stream = reinterpret_cast<cuda_stream_t>(!stream.is_none() ? stream_from_python(stream) : array_stream(bv));
        solvers::solve_result r;
        {
          py::gil_scoped_release unlocked;
          const auto* bp = static_cast<const double*>(bv.data);
          auto* xp = static_cast<double*>(xv.data);
          r = method == "cg" ? solvers::cg(*m, bp, xp, o) : solvers::gmres(*m, bp, xp, o);
        }
        py::dict out;
        out["iterations"] = r.iterations;
        out["converged"] = r.converged;
        out["relative_residual"] = r.final_relative_residual;
        out["residual_history"] = r.residual_history;
        out["total_seconds"] = r.total_seconds;
        out["setup_seconds"] = r.setup_seconds;
        out["seconds_per_iteration"] = r.seconds_per_iteration();
        out["spmv_calls"] = r.spmv_calls;
        return out;
      },
      "A"_a, "b"_a, "x"_a, "method"_a, "rtol"_a, "maxiter"_a, "restart"_a, "jacobi"_a, "stream"_a,
      "distspmv.solve's C++ side (see distspmv.solve).");
}

}  // namespace distspmv::python
