#!/usr/bin/env python3
"""Conjugate gradients from Python on a distspmv matrix, NumPy vectors, host backend.

    mpirun -np 2 python3 examples/python/cg.py gen:poisson3d:32
    mpirun -np 4 python3 examples/python/cg.py A.mtx --rtol 1e-10 --partition metis

Every rank runs this script (SPMD). The matrix is read (or generated) with each rank's slice of
rows; b = 1 is moved into the partitioned layout, where a CG written here in Python with A @ p
and mpi4py's allreduce solves A x = b (Jacobi-preconditioned), then distspmv.solve (the library's
CG) solves it again. Both print their iterations and the true relative residual ||b - A x|| / ||b||.
Without mpi4py it runs distspmv.solve only (PYTHONPATH=build/cpu-release/python; see python/README.md).
"""
import argparse
import sys

import numpy as np

import distspmv


def python_cg(A, b, comm, rtol, maxiter):
    """Jacobi-preconditioned CG with distspmv's A @ p; dot products reduced with mpi4py."""
    MPI = distspmv.MPI

    def dot(u, v):
        return comm.allreduce(float(np.dot(u, v)), op=MPI.SUM)

    inv_diag = 1.0 / A.diagonal()
    x = np.zeros_like(b)
    r = b.copy()
    z = inv_diag * r
    p = z.copy()
    q = np.empty_like(b)
    rz = dot(r, z)
    b_norm = dot(b, b) ** 0.5
    for it in range(1, maxiter + 1):
        A.apply(p, q)  # q = A p, collective
        alpha = rz / dot(p, q)
        x += alpha * p
        r -= alpha * q
        if dot(r, r) ** 0.5 <= rtol * b_norm:
            return x, it
        z = inv_diag * r
        rz_new = dot(r, z)
        p *= rz_new / rz
        p += z
        rz = rz_new
    return x, maxiter


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matrix", nargs="?", default="gen:poisson3d:32", help="file or gen:KIND:ARGS")
    parser.add_argument("--rtol", type=float, default=1e-8)
    parser.add_argument("--maxiter", type=int, default=10000)
    parser.add_argument("--partition", default="auto")
    parser.add_argument("--format", default="auto")
    args = parser.parse_args()

    comm = distspmv.MPI.COMM_WORLD if distspmv.MPI is not None else None
    A = distspmv.Matrix(comm, args.matrix, format=args.format, partition=args.partition, backend="host")
    root = A.rank == 0
    if root:
        print(f"{args.matrix}: {A.shape[0]} rows, {A.nnz} nonzeros on {A.ranks} rank(s); "
              f"format {A.format}, transport {A.transport}, partition {A.report()['partition']}")
    else:
        A.report()  # collective
    b = A.to_partitioned(np.ones(A.caller_rows))

    def residual(x):
        r = b - A @ x
        if comm is None:
            return np.linalg.norm(r) / np.linalg.norm(b)
        return (comm.allreduce(float(r @ r)) / comm.allreduce(float(b @ b))) ** 0.5

    ok = True
    if comm is not None:
        x, iterations = python_cg(A, b, comm, args.rtol, args.maxiter)
        rel = residual(x)
        ok = rel <= 10 * args.rtol
        if root:
            print(f"CG in Python (A @ p):   {iterations} iterations, relative residual {rel:.3e}")
    x, info = distspmv.solve(A, b, method="cg", rtol=args.rtol, maxiter=args.maxiter)
    rel = residual(x)
    ok = ok and info.converged
    if root:
        print(f"distspmv.solve (C++ CG): {info.iterations} iterations, relative residual {rel:.3e} "
              f"({info.seconds_per_iteration * 1e6:.1f} us per iteration)")
        print("converged" if ok else "NOT converged")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
