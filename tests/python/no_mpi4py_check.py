# distspmv without mpi4py (DISTSPMV_NO_MPI4PY=1 hides it): the module initialises MPI itself, works
# at 1 and 2 ranks, and at exit frees a matrix left alive before it finalizes MPI (exit code 0).
import os
import sys

os.environ["DISTSPMV_NO_MPI4PY"] = "1"
import numpy as np  # noqa: E402

import distspmv  # noqa: E402

assert distspmv.MPI is None and "mpi4py.MPI" not in sys.modules, "mpi4py was imported"
A = distspmv.Matrix(None, "gen:poisson3d:10", backend="host")
assert A.comm is None
y = A @ np.ones(A.local_rows)
x, info = distspmv.solve(A, A.to_partitioned(np.ones(A.caller_rows)), rtol=1e-10)
assert info.converged and info.relative_residual <= 1e-10, info
try:
    distspmv.Matrix(None, "/nonexistent.mtx", backend="host")
    raise AssertionError("no error")
except distspmv.BadInputError as e:
    assert e.collective
kept = distspmv.Matrix(None, "gen:poisson3d:6", backend="host")  # freed at exit, before MPI_Finalize
print(f"rank {A.rank}/{A.ranks}: without mpi4py, CG converged in {info.iterations} iterations")
