# Shared pieces of the Python tests (issue 38). They run on 1 rank (`python3 -m pytest`) and on
# several under mpirun (every rank runs pytest, the tests in the same order): every check is
# reduced over the ranks before it is asserted, so all ranks pass or fail together and none is
# left waiting in a collective.
import gzip
import os
import pathlib

import numpy as np
import pytest

import distspmv

MPI = distspmv.MPI
ROOT = pathlib.Path(__file__).resolve().parents[2]

# Every shared matrix with DISTSPMV_PY_ALL_MATRICES=1 (the GPU job); else those with at most this
# many entries in the file, so that CI stays within its time (SciPy's reader takes ~2 us/entry).
SMALL_MATRIX_ENTRIES = 60000


def pytest_configure(config):
    config.addinivalue_line("markers", "petsc: needs petsc4py (ctest label petsc)")
    config.addinivalue_line("markers", "cupy: needs CuPy and a GPU (jobs/python_gpu.sh)")


@pytest.fixture(scope="session")
def comm():
    return MPI.COMM_WORLD if MPI is not None else None


@pytest.fixture(scope="session")
def world():
    """(rank, size) of the world."""
    return (MPI.COMM_WORLD.rank, MPI.COMM_WORLD.size) if MPI is not None else (0, 1)


def allmax(value):
    """The largest value over the ranks (the value itself on one rank)."""
    if MPI is None or MPI.COMM_WORLD.size == 1:
        return value
    return MPI.COMM_WORLD.allreduce(value, op=MPI.MAX)


def all_true(flag):
    return allmax(0 if flag else 1) == 0


def shared_matrices_dir():
    env = os.environ.get("DISTSPMV_MATRICES")
    if env and os.path.isdir(env):
        return pathlib.Path(env)
    candidate = ROOT.parent / "shared" / "matrices"
    return candidate if candidate.is_dir() else None


def matrix_header(path):
    """(rows, cols, entries in the file) from a Matrix Market header."""
    with gzip.open(path, "rt") as f:
        for line in f:
            if not line.startswith("%"):
                rows, cols, entries = (int(v) for v in line.split()[:3])
                return rows, cols, entries
    return 0, 0, 0


def shared_square_matrices():
    """The square shared matrices this run checks (small ones only, unless DISTSPMV_PY_ALL_MATRICES=1)."""
    folder = shared_matrices_dir()
    if folder is None:
        return []
    every = os.environ.get("DISTSPMV_PY_ALL_MATRICES", "0") not in ("", "0")
    chosen = []
    for path in sorted(folder.glob("*.mtx.gz")):
        rows, cols, entries = matrix_header(path)
        if rows == cols and (every or entries <= SMALL_MATRIX_ENTRIES):
            chosen.append(str(path))
    return chosen


def generator_matrix(spec):
    """SciPy's matrix of gen:poisson3d:N (7 points: 6 and -1) or gen:stencil27:N (26 and -1) on an
    N^3 grid without periodic wrap; the sum of the axes' terms is the same in any axis order."""
    sp = pytest.importorskip("scipy.sparse")
    kind, n = spec.split(":")[1], int(spec.split(":")[2])
    eye = sp.identity(n, format="csr")
    if kind == "poisson3d":
        lap = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
        return (sp.kron(sp.kron(lap, eye), eye) + sp.kron(sp.kron(eye, lap), eye) +
                sp.kron(sp.kron(eye, eye), lap)).tocsr()
    if kind == "stencil27":
        ones = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(n, n), format="csr")
        cube = sp.kron(sp.kron(ones, ones), ones).tocsr()
        return (27.0 * sp.identity(n ** 3, format="csr") - cube).tocsr()
    raise ValueError(spec)


_references = {}


def reference(source):
    """The whole matrix as SciPy CSR (float64), read once per process."""
    if source not in _references:
        if source.startswith("gen:"):
            _references[source] = generator_matrix(source)
        else:
            scipy_io = pytest.importorskip("scipy.io")
            _references[source] = scipy_io.mmread(source).tocsr().astype(np.float64)
    return _references[source]


def vector(n, salt):
    """Deterministic entries in [-1, 1), the same on every rank."""
    return np.random.default_rng(1000 + salt).uniform(-1.0, 1.0, n)


def caller_slice(A, v):
    return np.ascontiguousarray(v[A.caller_first_row:A.caller_first_row + A.caller_rows])


def relative_error(got, want):
    """max |got - want| / max |want| over the ranks."""
    diff = float(np.max(np.abs(got - want))) if len(want) else 0.0
    scale = float(np.max(np.abs(want))) if len(want) else 0.0
    diff, scale = allmax(diff), allmax(scale)
    return diff / scale if scale > 0 else diff
