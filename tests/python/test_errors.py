# Bad inputs raise distspmv's exceptions with the library's message; setup errors are raised on
# every rank alike (collective), so the tests also check that no rank is left waiting.
import numpy as np
import pytest

import distspmv
from conftest import all_true


@pytest.fixture(scope="module")
def A(comm):
    return distspmv.Matrix(comm, "gen:poisson3d:8", backend="host")


def test_wrong_dtype(A):
    with pytest.raises(distspmv.ArrayTypeError, match="dtype float32, expected float64"):
        A.apply(np.ones(A.local_rows, dtype=np.float32))
    with pytest.raises(TypeError):  # ArrayTypeError is a TypeError
        A @ np.ones(A.local_rows, dtype=np.int64)
    with pytest.raises(distspmv.ArrayTypeError, match="expected a NumPy array"):
        A @ ([1.0] * A.local_rows)


def test_wrong_length(A):
    with pytest.raises(distspmv.ArgumentError, match=f"has 3 entries, expected {A.local_rows}"):
        A @ np.ones(3)
    with pytest.raises(ValueError):
        A.apply(np.ones(A.local_rows), np.ones(A.local_rows + 1))
    with pytest.raises(distspmv.ArgumentError, match="to_partitioned: v: has"):
        A.to_partitioned(np.ones(A.caller_rows + 2))  # agreed: every rank raises it


def test_non_contiguous_and_2d(A):
    with pytest.raises(distspmv.ArrayTypeError, match="not contiguous"):
        A @ np.ones(2 * A.local_rows)[::2]
    with pytest.raises(distspmv.ArrayTypeError, match="2-D"):
        A @ np.ones((A.local_rows, 1))


def test_read_only_and_aliased_y(A):
    y = np.zeros(A.local_rows)
    y.flags.writeable = False
    with pytest.raises(distspmv.ArrayTypeError, match="read-only"):
        A.apply(np.ones(A.local_rows), y)
    x = np.ones(A.local_rows)
    with pytest.raises(distspmv.ArgumentError, match="same array"):
        A.apply(x, x)
    with pytest.raises(distspmv.ArgumentError, match="beta != 0 needs y"):
        A.apply(x, beta=1.0)


def test_device_array_on_host_backend(A):
    class FakeDeviceArray:  # never dereferenced: refused before
        __cuda_array_interface__ = {"shape": (A.local_rows,), "typestr": "<f8", "data": (8, False),
                                    "version": 3, "strides": None, "stream": 1}
    with pytest.raises(distspmv.ArrayTypeError, match="host backend"):
        A @ FakeDeviceArray()


def test_cupy_views_follow_the_array(A, monkeypatch):
    """The binding keeps the views of the last CuPy arrays by identity (weak references): a new
    array, even at a dead one's address, is read again. A stand-in for CuPy where it is absent
    (the binding remembers CuPy's ndarray type for the process)."""
    import importlib.util
    import sys
    import types
    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("CuPy is installed: tests/python/test_cupy.py covers it")

    class Pointer:
        def __init__(self, ptr):
            self.ptr = ptr

    class ndarray:  # the attributes the binding reads of a CuPy array
        def __init__(self, size):
            self.dtype, self.ndim, self.size, self.strides = np.dtype(np.float64), 1, size, (8,)
            self.data = Pointer(8)

    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(ndarray=ndarray))
    for size in (3, 3, 5, 7, 7):
        x = ndarray(size)  # the previous one dies here: its address may come again
        for _ in range(2):
            with pytest.raises(distspmv.ArgumentError, match=f"has {size} entries, expected {A.local_rows}"):
                A @ x
    with pytest.raises(distspmv.ArrayTypeError, match="host backend"):
        A @ ndarray(A.local_rows)


def test_bad_file_is_collective(comm):
    with pytest.raises(distspmv.BadInputError, match="no such file") as e:
        distspmv.Matrix(comm, "/nonexistent/A.mtx", backend="host")
    assert e.value.collective


def test_bad_generator_and_options(comm):
    with pytest.raises(distspmv.BadInputError, match="gen:poisson3d:x"):
        distspmv.Matrix(comm, "gen:poisson3d:x", backend="host")
    with pytest.raises(distspmv.ArgumentError, match="precision='quad'"):
        distspmv.Matrix(comm, "gen:poisson3d:4", precision="quad")
    with pytest.raises(distspmv.ArgumentError, match="backend='gpu'"):
        distspmv.Matrix(comm, "gen:poisson3d:4", backend="gpu")
    with pytest.raises(distspmv.Error):
        distspmv.Matrix(comm, "gen:poisson3d:4", partition="magic", backend="host")


def test_error_on_one_rank_is_raised_everywhere(comm, world):
    rank, size = world
    a, b = rank * 10 // size, (rank + 1) * 10 // size  # rows [a, b) of the identity
    indptr, cols = np.arange(b - a + 1), np.arange(a, b)
    data = np.ones(b - a, dtype=np.complex128 if rank == size - 1 else np.float64)
    with pytest.raises(distspmv.ArrayTypeError, match="data") as e:
        distspmv.Matrix.from_csr(comm, indptr, cols, data, backend="host")
    assert e.value.collective
    if size > 1:
        assert f"(on rank {size - 1})" in str(e.value)


def test_bad_csr_contents(comm, world):
    rank, size = world
    n = 4 * size
    indptr = np.arange(5, dtype=np.int64)
    cols = np.arange(4, dtype=np.int64) + 4 * rank
    if rank == 0:
        cols[1] = n + 5  # out of range
    with pytest.raises(distspmv.BadInputError) as e:
        distspmv.Matrix.from_csr(comm, indptr, cols, np.ones(4), backend="host")
    assert e.value.collective
    with pytest.raises(distspmv.ArgumentError, match="square"):
        distspmv.Matrix.from_csr(comm, indptr, cols, np.ones(4), global_shape=(n, n + 1), backend="host")


def test_closed_communicator(comm):
    if comm is None:
        pytest.skip("no mpi4py")
    dup = comm.Dup()
    dup.Free()
    with pytest.raises(distspmv.ArgumentError, match="MPI_COMM_NULL"):
        distspmv.Matrix(dup, "gen:poisson3d:4", backend="host")
    with pytest.raises(distspmv.ArrayTypeError, match="mpi4py communicator"):
        distspmv.Matrix("world", "gen:poisson3d:4", backend="host")


def test_freed_matrix(comm):
    B = distspmv.Matrix(comm, "gen:poisson3d:4", backend="host")
    with B:
        pass
    assert B.freed and "freed" in repr(B)
    with pytest.raises(distspmv.ArgumentError, match="freed"):
        B @ np.ones(8)
    with pytest.raises(distspmv.ArgumentError, match="freed"):
        B.shape


def test_solve_arguments(comm, A):
    F = distspmv.Matrix(comm, "gen:poisson3d:4", precision="float", backend="host")
    with pytest.raises(distspmv.ArgumentError, match="double"):
        distspmv.solve(F, np.ones(F.local_rows, dtype=np.float32))
    with pytest.raises(distspmv.ArgumentError, match="method='lu'"):
        distspmv.solve(A, np.ones(A.local_rows), method="lu")
    with pytest.raises(distspmv.ArgumentError, match="has 1 entries"):
        distspmv.solve(A, np.ones(1))
    assert all_true(True)
