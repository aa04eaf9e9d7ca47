"""distspmv from Python: a sparse matrix distributed over MPI ranks, one GPU per rank.

    from mpi4py import MPI            # optional: without mpi4py, distspmv initialises MPI itself
    import numpy as np
    import distspmv

    A = distspmv.Matrix(MPI.COMM_WORLD, "gen:poisson3d:32", backend="host")
    b = A.to_partitioned(np.ones(A.caller_rows))      # the caller's layout -> the partitioned one
    x, info = distspmv.solve(A, b, method="cg", rtol=1e-8)
    y = A @ x                                         # y = A x, partitioned layout

Every call on a Matrix is collective over its communicator, as with MPI. Vectors of apply,
A @ x and solve are in the partitioned layout (A.local_rows entries): NumPy arrays on the host
backend; on the CUDA backend also device arrays with __cuda_array_interface__ (CuPy), used in
place. See python/README.md for the stream rules and how errors are shared between ranks.

Errors raise distspmv.Error subclasses carrying the library's message: BadInputError (a file,
generator or CSR contents), ArgumentError (a wrong length, a freed matrix or communicator),
ArrayTypeError (dtype, device, layout), MPIError, CUDAError, NotCompiledError; MemoryError when
the host runs out. `err.collective` is True when every rank raised it.
"""

import atexit as _atexit
import os as _os
import sys as _sys

# mpi4py, where present, initialises MPI (and finalizes it at exit); without it distspmv does
# both. DISTSPMV_NO_MPI4PY=1 ignores an installed mpi4py (tests of that path).
MPI = None
if _os.environ.get("DISTSPMV_NO_MPI4PY", "0") in ("", "0"):
    try:
        from mpi4py import MPI
    except ImportError:
        MPI = None

if MPI is None:
    # Open MPI loads its components with dlopen and expects libmpi's symbols to be global, which a
    # Python extension's dependencies are not by default (mpi4py loads libmpi the same way).
    _flags = _sys.getdlopenflags()
    _sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
    try:
        from . import _distspmv
    finally:
        _sys.setdlopenflags(_flags)
else:
    from . import _distspmv

from ._distspmv import (  # noqa: E402
    ArgumentError,
    ArrayTypeError,
    BadInputError,
    CUDAError,
    Error,
    Matrix,
    MPIError,
    NotCompiledError,
    __version__,
    git_revision,
    has_cuda,
)

for _cls in (Matrix, Error, ArgumentError, ArrayTypeError, BadInputError, MPIError, CUDAError, NotCompiledError):
    _cls.__module__ = "distspmv"

__all__ = [
    "Matrix", "solve", "SolveResult", "Error", "ArgumentError", "ArrayTypeError", "BadInputError",
    "MPIError", "CUDAError", "NotCompiledError", "has_cuda", "__version__", "git_revision", "MPI",
]

_initialised_mpi = _distspmv._init_mpi()


def _shutdown():
    # Live matrices are freed before MPI_Finalize (ours here, or mpi4py's after the interpreter's
    # end), in creation order, the same on every rank.
    _distspmv._shutdown()


_atexit.register(_shutdown)


# ---- an uncaught exception on one rank must not leave the others waiting ----------------------
_previous_excepthook = _sys.excepthook


def _excepthook(kind, value, traceback):
    """As the command line does: an error every rank raised (collective) ends the program on every
    rank like any exception; any other uncaught exception with more than one rank aborts the job
    (MPI_Abort), since the other ranks may be waiting for this one. DISTSPMV_ABORT_ON_ERROR=0
    turns this off."""
    _previous_excepthook(kind, value, traceback)
    rank, size = _distspmv._world()
    if size > 1 and not getattr(value, "collective", False) and \
            _os.environ.get("DISTSPMV_ABORT_ON_ERROR", "1") not in ("0", ""):
        _sys.stderr.write(f"distspmv: uncaught {kind.__name__} on rank {rank}: aborting all {size} ranks "
                          "(MPI_Abort), so that none waits for this one\n")
        _sys.stderr.flush()
        _distspmv._abort(1)


_sys.excepthook = _excepthook


# ---- Matrix.from_csr --------------------------------------------------------------------------
def _from_csr(cls, comm, indptr, indices=None, data=None, first_row=None, global_shape=None, *,
              format="auto", partition="auto", order="auto", backend="auto", precision="double",
              transport="auto", metis_seed=1, allow_nonfinite=False, cuda_graphs=True):
    """Collective: a Matrix from the rows each rank owns, in CSR.

    Either a SciPy sparse matrix or array of this rank's rows (rows x global columns; converted
    to CSR with sorted, summed duplicates), or three arrays: indptr (rows + 1 entries from 0),
    indices (global column ids, sorted and unique within a row) and data. Host arrays are
    converted to int64 indices and the matrix's dtype where needed (copies); device arrays
    (CUDA backend) must already be int64 / float64 (float32 with precision "float").

    first_row: this rank's first global row (None: the rows of the ranks before it, in rank
    order). global_shape: (N, N) (None: the sum of the ranks' rows). The ranks' rows must cover
    0 .. N-1 in rank order; the matrix must be square. Other options as Matrix().
    """
    import numpy as np
    if indices is None and data is None and hasattr(indptr, "tocsr"):
        csr = indptr.tocsr()
        if not csr.has_canonical_format:
            csr = csr.copy()
            csr.sum_duplicates()
        if global_shape is None:
            global_shape = (csr.shape[1], csr.shape[1])
        indptr, indices, data = csr.indptr, csr.indices, csr.data
    elif indices is None or data is None:
        raise ArgumentError("Matrix.from_csr: pass a SciPy sparse matrix, or indptr, indices and data")
    value_dtype = np.float32 if precision == "float" else np.float64

    def host(a, dtype, kinds):
        # Convert host arrays of a convertible kind; leave anything else for the C++ checks, which
        # every rank agrees on (an error raised here on one rank would leave the others waiting).
        if hasattr(a, "__cuda_array_interface__"):
            return a
        arr = np.asarray(a)
        return np.ascontiguousarray(arr, dtype=dtype) if arr.dtype.kind in kinds else arr

    indptr = host(indptr, np.int64, "iu")
    indices = host(indices, np.int64, "iu")
    data = host(data, value_dtype, "fiub")
    shape = (-1, -1) if global_shape is None else tuple(int(n) for n in global_shape)
    return Matrix._from_csr(comm, indptr, indices, data, -1 if first_row is None else int(first_row), shape,
                            format, partition, order, backend, precision, transport, metis_seed,
                            allow_nonfinite, cuda_graphs)


Matrix.from_csr = classmethod(_from_csr)


# ---- the communicator ---------------------------------------------------------------------------
def _comm(self):
    """The matrix's communicator (a duplicate of the one given) as an mpi4py communicator; None
    without mpi4py. Owned by the matrix: do not free it."""
    if MPI is None:
        return None
    return MPI.Intracomm(MPI.Comm.f2py(self._comm_fortran))


Matrix.comm = property(_comm)


# ---- solvers ------------------------------------------------------------------------------------
class SolveResult:
    """What distspmv.solve did: iterations, converged, relative_residual (||b - A x|| / ||b||,
    recomputed at the end), residual_history (one per iteration), total_seconds, setup_seconds,
    seconds_per_iteration, spmv_calls."""

    __slots__ = ("iterations", "converged", "relative_residual", "residual_history", "total_seconds",
                 "setup_seconds", "seconds_per_iteration", "spmv_calls")

    def __init__(self, fields):
        for k in self.__slots__:
            setattr(self, k, fields[k])

    def __repr__(self):
        return (f"SolveResult(converged={self.converged}, iterations={self.iterations}, "
                f"relative_residual={self.relative_residual:.3e}, total_seconds={self.total_seconds:.3g})")


def _zeros_like(b):
    module = _sys.modules.get(type(b).__module__.split(".")[0])
    if module is None or not hasattr(module, "zeros_like"):
        raise ArrayTypeError(f"distspmv.solve: cannot make x like b ({type(b).__name__}); pass x")
    return module.zeros_like(b)


def solve(A, b, method="cg", rtol=1e-8, maxiter=10000, *, x=None, restart=30, jacobi=True, stream=None):
    """Collective: solves A x = b with the library's CG (symmetric positive definite A) or
    restarted GMRES(restart), Jacobi-preconditioned unless jacobi=False. Returns (x, SolveResult).

    b and x are in the partitioned layout (A.local_rows entries, float64): NumPy arrays on the host
    backend, device arrays (CuPy) on the CUDA backend. x is the initial guess and is overwritten
    with the solution (None: zeros, a new array like b). The solve stops when the true residual
    ||b - A x|| <= rtol ||b||, or after maxiter iterations (then converged is False; no exception).
    Raises distspmv.Error on every rank when CG finds A not positive definite, or a residual
    becomes NaN. The matrix must have precision 'double' or 'mixed'.
    """
    if x is None:
        x = _zeros_like(b)
    fields = _distspmv._solve(A, b, x, method, float(rtol), int(maxiter), int(restart), bool(jacobi), stream)
    return x, SolveResult(fields)


# ---- SciPy and petsc4py -------------------------------------------------------------------------
def _as_linear_operator(self):
    """A scipy.sparse.linalg.LinearOperator of this matrix on one rank, in the caller's numbering
    (the file's or from_csr's row order), for SciPy's solvers: matvec(x) = A x on host arrays."""
    import numpy as np
    from scipy.sparse.linalg import LinearOperator
    if self.ranks != 1:
        raise ArgumentError(f"Matrix.as_linear_operator: the matrix has {self.ranks} ranks; SciPy's "
                            "LinearOperator is for one rank (use distspmv.solve or as_petsc_mat)")
    ids = self.owned_caller_ids()
    same_order = bool(np.array_equal(ids, np.arange(len(ids))))
    dtype = self.dtype

    def matvec(v):
        v = np.ascontiguousarray(np.asarray(v, dtype=dtype).reshape(-1))
        if same_order:
            return self @ v
        return self.from_partitioned(self @ self.to_partitioned(v))

    return LinearOperator(self.shape, matvec=matvec, dtype=dtype)


Matrix.as_linear_operator = _as_linear_operator


class _PetscShell:
    """The Python context of a petsc4py MATPYTHON matrix: mult and getDiagonal through distspmv."""

    def __init__(self, matrix):
        self.A = matrix

    def mult(self, mat, x, y):
        self.A.apply(x.getArray(readonly=True), y.getArray())

    def multAdd(self, mat, x, y, z):  # z = A x + y
        if z.handle != y.handle:
            y.copy(z)
        self.A.apply(x.getArray(readonly=True), z.getArray(), beta=1.0)

    def getDiagonal(self, mat, d):
        d.getArray()[:] = self.A.diagonal()


def _as_petsc_mat(self, comm=None):
    """A petsc4py shell matrix (MATPYTHON, PETSc.Mat().createPython) whose MatMult is this
    matrix's apply, for PETSc's KSP and friends. Its rows are the partitioned layout: rank r owns
    local_rows rows from first_row, so make vectors with mat.createVecs() and move them with
    to_partitioned / from_partitioned. It implements mult, multAdd and getDiagonal (PCJACOBI).
    Host (NumPy) vectors: PETSc's own vectors live in host memory, also on the CUDA backend (the
    apply stages them through the GPU). `comm`: an mpi4py or petsc4py communicator (default: the
    matrix's)."""
    from petsc4py import PETSc
    if self.precision == "float":
        raise ArgumentError("Matrix.as_petsc_mat: PETSc's scalars are double here: create the matrix with "
                            "precision 'double' or 'mixed'")
    n = self.local_rows
    N = self.shape[0]
    pcomm = comm if comm is not None else (self.comm if MPI is not None else PETSc.COMM_WORLD)
    mat = PETSc.Mat().createPython(((n, N), (n, N)), context=_PetscShell(self), comm=pcomm)
    mat.setUp()
    return mat


Matrix.as_petsc_mat = _as_petsc_mat
