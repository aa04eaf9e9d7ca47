#!/usr/bin/python3
"""Interoperability of our HDF5 layout with h5py + scipy (driven by tests/io/hdf5_test.cpp).

  h5py_check.py check FILE.h5 TRIPLETS.txt GROUP
      Opens a file written by distspmv::io::write_hdf5 with h5py, checks the attributes come back
      as Python str / int64 (what anndata and h5sparse expect), builds scipy.sparse.csr_matrix from
      the datasets and compares it exactly with the triplets our test wrote.
  h5py_check.py write FILE.h5 TRIPLETS.txt
      Writes a random scipy matrix the way Python users do, in three groups (canonical int32 /A;
      /B with reversed rows, split duplicates and fixed-length string attributes; /C with int64
      indices and float32 values), plus the canonical triplets, for our reader to check.

TRIPLETS.txt: "rows cols nnz" then one "row col value" line per entry in CSR order (17 digits).
Exits 77 (skip) when h5py, numpy or scipy cannot be imported.
"""
import sys

try:
    import h5py
    import numpy as np
    import scipy.sparse as sp
except ImportError as exc:  # run by a Python without the modules: let the test skip
    print(f"h5py_check.py: skipping, {exc}")
    sys.exit(77)


def fail(message):
    print(f"h5py_check.py: FAIL: {message}")
    sys.exit(1)


def read_triplets(path):
    with open(path) as f:
        rows, cols, nnz = (int(x) for x in f.readline().split())
        r = np.zeros(nnz, dtype=np.int64)
        c = np.zeros(nnz, dtype=np.int64)
        v = np.zeros(nnz, dtype=np.float64)
        for k in range(nnz):
            a, b, x = f.readline().split()
            r[k], c[k], v[k] = int(a), int(b), float(x)
    return rows, cols, r, c, v


def check(h5_path, triplets_path, group):
    rows, cols, r, c, v = read_triplets(triplets_path)
    with h5py.File(h5_path, "r") as f:
        g = f[group]
        for name, expected in (("encoding-type", "csr_matrix"), ("encoding-version", "0.1.0")):
            value = g.attrs[name]
            if not isinstance(value, str) or value != expected:
                fail(f"attribute {name} is {value!r} ({type(value).__name__}), expected str {expected!r}")
        shape = g.attrs["shape"]
        if shape.dtype != np.int64 or tuple(int(x) for x in shape) != (rows, cols):
            fail(f"attribute shape is {shape!r}, expected int64 ({rows}, {cols})")
        indptr, indices, data = g["indptr"][()], g["indices"][()], g["data"][()]
    if indptr.dtype != np.int64:
        fail(f"indptr dtype {indptr.dtype}, expected int64")
    if indices.dtype not in (np.int32, np.int64):
        fail(f"indices dtype {indices.dtype}, expected int32 or int64")
    if data.dtype not in (np.float32, np.float64):
        fail(f"data dtype {data.dtype}, expected float32 or float64")
    a = sp.csr_matrix((data, indices, indptr), shape=(rows, cols))
    a.check_format(full_check=True)
    if not a.has_canonical_format:
        fail("columns are not sorted and unique within rows")
    coo = a.tocoo()
    if coo.nnz != len(v):
        fail(f"{coo.nnz} entries, expected {len(v)}")
    if not (np.array_equal(coo.row, r) and np.array_equal(coo.col, c)):
        fail("pattern differs from the triplets")
    if not np.array_equal(coo.data.astype(np.float64), v):
        fail("values differ from the triplets")
    # The same through scipy's own triplet constructor (sums duplicates, sorts): no difference.
    b = sp.coo_matrix((v, (r, c)), shape=(rows, cols)).tocsr()
    if (a.astype(np.float64) != b).nnz != 0:
        fail("scipy.sparse matrix built from the triplets differs")
    print(f"h5py_check.py: {h5_path}:{group} OK ({rows} x {cols}, {len(v)} entries, "
          f"indices {indices.dtype}, data {data.dtype})")


def write(h5_path, triplets_path):
    rng = np.random.default_rng(12345)
    a = sp.random(120, 90, density=0.05, format="csr", random_state=rng, dtype=np.float64)
    a.data = np.round(a.data * 1000 - 500, 3)
    a.data[a.data == 0] = 1.0
    a.sort_indices()
    with h5py.File(h5_path, "w") as f:
        g = f.create_group("A")
        g.attrs["encoding-type"] = "csr_matrix"
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = np.array(a.shape)
        g["indptr"], g["indices"], g["data"] = a.indptr, a.indices, a.data  # int32 indptr

        # Rows reversed, and each row's first entry split into two halves (exact: v/2 + v/2 = v).
        indptr, indices, data = [0], [], []
        for i in range(a.shape[0]):
            cols = list(a.indices[a.indptr[i]:a.indptr[i + 1]])
            vals = list(a.data[a.indptr[i]:a.indptr[i + 1]])
            if cols:
                cols.append(cols[0])
                vals[0] /= 2
                vals.append(vals[0])
            indices += cols[::-1]
            data += vals[::-1]
            indptr.append(len(indices))
        g = f.create_group("B")
        g.attrs["encoding-type"] = np.bytes_("csr_matrix")  # fixed-length, as older writers did
        g.attrs["encoding-version"] = np.bytes_("0.1.0")
        g.attrs["shape"] = np.array(a.shape, dtype=np.int64)
        g["indptr"] = np.array(indptr, dtype=np.int64)
        g["indices"] = np.array(indices, dtype=np.int32)
        g["data"] = np.array(data, dtype=np.float64)

        g = f.create_group("C")
        g.attrs["encoding-type"] = "csr_matrix"
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = np.array(a.shape)
        g["indptr"] = a.indptr.astype(np.int64)
        g["indices"] = a.indices.astype(np.int64)
        g["data"] = a.data.astype(np.float32)
    coo = a.tocoo()
    with open(triplets_path, "w") as out:
        out.write(f"{a.shape[0]} {a.shape[1]} {coo.nnz}\n")
        for i, j, x in zip(coo.row, coo.col, coo.data):
            out.write(f"{i} {j} {float(x)!r}\n")
    print(f"h5py_check.py: wrote {h5_path} ({a.shape[0]} x {a.shape[1]}, {a.nnz} entries)")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3])
    else:
        print(__doc__)
        sys.exit(2)
