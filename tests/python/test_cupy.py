# distspmv on the CUDA backend with CuPy arrays (label: none in CI, where it skips; run by
# jobs/python_gpu.sh on the GPU machine at 1 and 2 ranks). The reference is the host backend of
# the same matrix (tested against SciPy in CI), and SciPy's product where SciPy is installed.
import numpy as np
import pytest

import distspmv
from conftest import caller_slice, relative_error, shared_square_matrices, vector

pytestmark = pytest.mark.cupy
cp = pytest.importorskip("cupy")
try:
    _gpus = cp.cuda.runtime.getDeviceCount()
except Exception:  # no driver
    _gpus = 0
if _gpus == 0 or not distspmv.has_cuda:
    pytest.skip("needs a GPU and distspmv built with CUDA", allow_module_level=True)

GENERATORS = ["gen:poisson3d:40", "gen:stencil27:20", "gen:rmat:12:8", "gen:lognormal:5000:2.0:1.0:500"]


def make_pair(comm, source, **kw):
    gpu = distspmv.Matrix(comm, source, backend="cuda", **kw)
    cp.cuda.Device(gpu.device).use()
    host = distspmv.Matrix(comm, source, backend="host", **kw)
    return gpu, host


def host_product(host, x, y0=None, alpha=1.0, beta=0.0):
    xp = host.to_partitioned(caller_slice(host, x))
    yp = host.to_partitioned(caller_slice(host, y0)) if y0 is not None else None
    return host.from_partitioned(host.apply(xp, yp, alpha=alpha, beta=beta))


def gpu_product(gpu, x, y0=None, alpha=1.0, beta=0.0, stream=None):
    xd = cp.asarray(gpu.to_partitioned(caller_slice(gpu, x)))
    yd = cp.asarray(gpu.to_partitioned(caller_slice(gpu, y0))) if y0 is not None else None
    out = gpu.apply(xd, yd, alpha=alpha, beta=beta, stream=stream)
    assert isinstance(out, cp.ndarray)
    return gpu.from_partitioned(cp.asnumpy(out))


@pytest.mark.parametrize("source", GENERATORS + shared_square_matrices())
def test_cupy_matches_host_and_scipy(comm, source):
    gpu, host = make_pair(comm, source)
    assert gpu.backend == "cuda" and gpu.device >= 0
    n = gpu.shape[0]
    x, y0 = vector(n, 1), vector(n, 2)
    want = host_product(host, x, y0, 1.25, -0.75)
    assert relative_error(gpu_product(gpu, x, y0, 1.25, -0.75), want) <= 1e-12
    if not source.startswith("gen:rmat") and not source.startswith("gen:lognormal"):
        try:
            from conftest import reference
            S = reference(source)
        except ImportError:
            return
        assert relative_error(gpu_product(gpu, x), caller_slice(gpu, S @ x)) <= 1e-12


def test_repeated_applies_graphs_and_streams(comm):
    gpu, host = make_pair(comm, "gen:poisson3d:40")
    n = gpu.shape[0]
    x = vector(n, 3)
    want = host_product(host, x)
    xd = cp.asarray(gpu.to_partitioned(caller_slice(gpu, x)))
    yd = cp.full(gpu.local_rows, cp.nan)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:  # CuPy's current stream: what __cuda_array_interface__ names
        for _ in range(5):  # the same arrays again: captured once into a CUDA graph, then launched
            gpu.apply(xd, yd)
    stream.synchronize()
    assert relative_error(gpu.from_partitioned(cp.asnumpy(yd)), want) <= 1e-12
    other = cp.cuda.Stream(non_blocking=True)
    yd2 = cp.zeros_like(xd)
    gpu.apply(xd, yd2, stream=other)  # an explicit stream
    other.synchronize()
    assert relative_error(gpu.from_partitioned(cp.asnumpy(yd2)), want) <= 1e-12
    y_host = gpu.apply(cp.asnumpy(xd))  # NumPy on the CUDA backend: staged, returns NumPy
    assert isinstance(y_host, np.ndarray)
    assert relative_error(gpu.from_partitioned(y_host), want) <= 1e-12


def test_cupy_bad_arrays(comm):
    gpu = distspmv.Matrix(comm, "gen:poisson3d:12", backend="cuda")
    cp.cuda.Device(gpu.device).use()
    n = gpu.local_rows
    with pytest.raises(distspmv.ArrayTypeError, match="typestr '<f4'"):
        gpu @ cp.ones(n, dtype=cp.float32)
    with pytest.raises(distspmv.ArrayTypeError, match="not contiguous"):
        gpu @ cp.ones(2 * n)[::2]
    with pytest.raises(distspmv.ArgumentError, match="entries"):
        gpu @ cp.ones(n + 1)
    with pytest.raises(distspmv.ArrayTypeError, match="device array"):
        gpu.to_partitioned(cp.ones(gpu.caller_rows))


def test_cupy_solve_float_and_update(comm, world):
    gpu, host = make_pair(comm, "gen:poisson3d:24")
    b = cp.asarray(gpu.to_partitioned(np.ones(gpu.caller_rows)))
    x, info = distspmv.solve(gpu, b, method="cg", rtol=1e-10)
    assert isinstance(x, cp.ndarray) and info.converged
    bh = host.to_partitioned(np.ones(host.caller_rows))
    xh, info_h = distspmv.solve(host, bh, method="cg", rtol=1e-10)
    assert abs(info.iterations - info_h.iterations) <= 1
    x2, info2 = distspmv.solve(gpu, b, method="gmres", rtol=1e-10)
    assert info2.converged
    # float vectors on the GPU
    f = distspmv.Matrix(comm, "gen:stencil27:16", backend="cuda", precision="float")
    fh = distspmv.Matrix(comm, "gen:stencil27:16", backend="host", precision="float")
    xv = vector(f.shape[0], 4).astype(np.float32)
    got = f.from_partitioned(cp.asnumpy(f @ cp.asarray(f.to_partitioned(caller_slice(f, xv)))))
    want = fh.from_partitioned(fh @ fh.to_partitioned(caller_slice(fh, xv)))
    assert relative_error(got.astype(np.float64), want.astype(np.float64)) <= 1e-5
    # from_csr with device arrays, update_values from the device (NumPy-made CSR: SciPy may be absent)
    rank, size = world
    n = 300
    rng = np.random.default_rng(5)
    dense = np.where(rng.random((n, n)) < 0.02, rng.uniform(-1, 1, (n, n)), 0.0) + 4 * np.eye(n)
    a, b_ = rank * n // size, (rank + 1) * n // size
    rows = dense[a:b_]
    indptr = np.concatenate([[0], np.cumsum(np.count_nonzero(rows, axis=1))]).astype(np.int64)
    cols = np.nonzero(rows)[1].astype(np.int64)
    vals = rows[np.nonzero(rows)]
    d = distspmv.Matrix.from_csr(comm, cp.asarray(indptr), cp.asarray(cols), cp.asarray(vals), first_row=a,
                                 global_shape=(n, n), backend="cuda")
    xv = vector(n, 6)
    got = d.from_partitioned(cp.asnumpy(d @ cp.asarray(d.to_partitioned(caller_slice(d, xv)))))
    assert relative_error(got, caller_slice(d, dense @ xv)) <= 1e-12
    d.update_values(cp.asarray(3.0 * vals))
    got = d.from_partitioned(cp.asnumpy(d @ cp.asarray(d.to_partitioned(caller_slice(d, xv)))))
    assert relative_error(got, caller_slice(d, 3.0 * (dense @ xv))) <= 1e-12
