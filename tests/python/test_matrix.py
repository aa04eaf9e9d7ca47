# Every method of distspmv.Matrix against SciPy's product, on the generators and the shared
# matrices (host backend), at 1 rank and under mpirun at 2.
import numpy as np
import pytest

import distspmv
from conftest import (all_true, allmax, caller_slice, reference, relative_error, shared_square_matrices, vector)

GENERATORS = ["gen:poisson3d:12", "gen:stencil27:9"]


def check_products(A, S, tol):
    """apply with alpha and beta, A @ x, the moves and the diagonal, against SciPy's S."""
    n = S.shape[0]
    x, y0 = vector(n, 1), vector(n, 2)
    xp = A.to_partitioned(caller_slice(A, x))
    yp = A.to_partitioned(caller_slice(A, y0))
    A.apply(xp, yp, alpha=1.25, beta=-0.75)
    want = 1.25 * (S @ x) - 0.75 * y0
    assert relative_error(A.from_partitioned(yp), caller_slice(A, want)) <= tol
    assert relative_error(A.from_partitioned(A @ xp), caller_slice(A, S @ x)) <= tol
    # beta = 0 overwrites y, NaN included
    y = np.full(A.local_rows, np.nan, dtype=A.dtype)
    A.apply(xp, y)
    assert relative_error(A.from_partitioned(y), caller_slice(A, S @ x)) <= tol
    diag = S.diagonal()[A.owned_caller_ids()]
    assert relative_error(A.diagonal(), diag) <= tol


@pytest.mark.parametrize("source", GENERATORS + shared_square_matrices())
def test_matches_scipy(comm, source):
    S = reference(source)
    with distspmv.Matrix(comm, source, backend="host") as A:
        assert A.shape == S.shape
        assert A.nnz == S.nnz
        check_products(A, S, 1e-12)


@pytest.mark.parametrize("partition,order", [("block", "none"), ("metis", "rcm")])
def test_partitions_and_orders(comm, partition, order):
    S = reference("gen:poisson3d:12")
    A = distspmv.Matrix(comm, "gen:poisson3d:12", partition=partition, order=order, backend="host")
    check_products(A, S, 1e-12)
    # the moves are each other's inverse
    v = caller_slice(A, vector(S.shape[0], 3))
    assert all_true(np.array_equal(A.from_partitioned(A.to_partitioned(v)), v))
    A.free()


def test_float_precision(comm):
    S = reference("gen:stencil27:9")
    A = distspmv.Matrix(comm, "gen:stencil27:9", precision="float", backend="host")
    assert A.dtype == np.float32 and A.precision == "float"
    n = S.shape[0]
    x = vector(n, 1).astype(np.float32)
    y = A.from_partitioned(A @ A.to_partitioned(caller_slice(A, x)))
    assert relative_error(y.astype(np.float64), caller_slice(A, S @ x.astype(np.float64))) <= 1e-5


def test_mixed_precision(comm):
    S = reference("gen:poisson3d:12")
    A = distspmv.Matrix(comm, "gen:poisson3d:12", precision="mixed", backend="host")
    assert A.dtype == np.float64
    check_products(A, S, 1e-6)


def random_matrix(n, seed):
    sp = pytest.importorskip("scipy.sparse")
    R = sp.random(n, n, density=4.0 / n, random_state=seed, format="csr")
    return (R + sp.identity(n) * 4.0).tocsr()


@pytest.mark.parametrize("partition", ["block", "metis"])
def test_from_csr_scipy(comm, world, partition):
    rank, size = world
    S = random_matrix(501, 7)
    bounds = [0, 200, 501] if size == 2 else np.linspace(0, 501, size + 1).astype(int)
    a, b = int(bounds[rank]), int(bounds[rank + 1])
    A = distspmv.Matrix.from_csr(comm, S[a:b], partition=partition, backend="host")
    assert A.caller_first_row == a and A.caller_rows == b - a and A.shape == (501, 501)
    check_products(A, S, 1e-12)


def test_from_csr_arrays_and_update_values(comm, world):
    rank, size = world
    S = random_matrix(333, 11)
    n = S.shape[0]
    a, b = rank * n // size, (rank + 1) * n // size
    local = S[a:b]
    A = distspmv.Matrix.from_csr(comm, local.indptr.astype(np.int32), local.indices, local.data,
                                 first_row=a, global_shape=(n, n), backend="host")
    check_products(A, S, 1e-12)
    # new values, same pattern: 2 S
    A.update_values(2.0 * local.data)
    check_products(A, 2.0 * S, 1e-12)


def test_from_csr_rank_without_rows(comm, world):
    rank, size = world
    S = random_matrix(40, 3)
    rows = S if rank == 0 else S[0:0]
    A = distspmv.Matrix.from_csr(comm, rows, backend="host")
    assert A.shape == (40, 40)
    check_products(A, S, 1e-12)


def test_queries_and_report(comm, world):
    rank, size = world
    A = distspmv.Matrix(comm, "gen:poisson3d:12", backend="host")
    assert (A.rank, A.ranks) == (rank, size)
    assert A.backend == "host" and A.device == -1 and A.precision == "double"
    assert A.transport == ("none" if size == 1 else "mpi-host")
    assert MPI_sum(A.local_rows) == 12 ** 3
    r = A.report()
    assert r["matrix"] == {"source": "gen:poisson3d:12", "rows": 1728, "nnz": A.nnz}
    assert r["ranks"] == size and r["backend"] == "host" and r["precision"] == "double"
    assert len(r["per_rank"]) == size and r["per_rank"][rank]["rows"] == A.local_rows
    assert r["per_rank"][rank]["format"] == A.format
    assert r["transport"] == A.transport
    assert "setup_seconds" in r and "partition" in r and "host_peak_gib" in r
    assert "Matrix" in repr(A) and "1728x1728" in repr(A)
    if A.comm is not None:
        assert A.comm.size == size


def MPI_sum(v):
    M = distspmv.MPI
    return v if M is None else M.COMM_WORLD.allreduce(v)


@pytest.mark.parametrize("method", ["cg", "gmres"])
def test_solve(comm, method):
    S = reference("gen:poisson3d:12")
    A = distspmv.Matrix(comm, "gen:poisson3d:12", backend="host")
    n = S.shape[0]
    b = A.to_partitioned(caller_slice(A, vector(n, 5)))
    x, info = distspmv.solve(A, b, method=method, rtol=1e-10, maxiter=500)
    assert info.converged and info.relative_residual <= 1e-10 and info.iterations > 0
    assert len(info.residual_history) == info.iterations + 1
    # the true residual, from SciPy
    xg = np.zeros(n)
    if distspmv.MPI is not None:
        parts = distspmv.MPI.COMM_WORLD.allgather((A.caller_first_row, A.from_partitioned(x)))
    else:
        parts = [(0, A.from_partitioned(x))]
    for first, part in parts:
        xg[first:first + len(part)] = part
    bg = vector(n, 5)
    assert np.linalg.norm(bg - S @ xg) <= 1e-9 * np.linalg.norm(bg)
    # an initial guess is used and overwritten
    x0 = x.copy()
    x1, info1 = distspmv.solve(A, b, method=method, rtol=1e-10, x=x0)
    assert x1 is x0 and info1.iterations <= 1


def test_solve_not_converged(comm):
    A = distspmv.Matrix(comm, "gen:poisson3d:12", backend="host")
    b = np.ones(A.local_rows)
    x, info = distspmv.solve(A, b, rtol=1e-12, maxiter=3)
    assert not info.converged and info.iterations == 3


def test_linear_operator(comm, world):
    if world[1] != 1:
        A = distspmv.Matrix(comm, "gen:poisson3d:6", backend="host")
        with pytest.raises(distspmv.ArgumentError):
            A.as_linear_operator()
        return
    pytest.importorskip("scipy.sparse.linalg")
    from scipy.sparse.linalg import cg
    S = reference("gen:poisson3d:12")
    A = distspmv.Matrix(comm, "gen:poisson3d:12", order="rcm", backend="host")
    op = A.as_linear_operator()
    x = vector(S.shape[0], 1)
    assert relative_error(op @ x, S @ x) <= 1e-12
    b = vector(S.shape[0], 2)
    sol, status = cg(op, b, atol=0, tol=1e-10) if _scipy_has_tol() else cg(op, b, atol=0, rtol=1e-10)
    assert status == 0 and np.linalg.norm(b - S @ sol) <= 1e-9 * np.linalg.norm(b)


def _scipy_has_tol():
    import inspect
    from scipy.sparse.linalg import cg
    return "tol" in inspect.signature(cg).parameters
