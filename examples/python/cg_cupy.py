#!/usr/bin/env python3
"""Conjugate gradients from Python on GPUs: a distspmv matrix on the CUDA backend, CuPy vectors.

    mpirun -np 2 python3 examples/python/cg_cupy.py gen:poisson3d:128

One rank per GPU (each rank takes GPU local rank % GPUs, A.device). A CG written here with CuPy
and A @ p (device arrays used in place, enqueued on CuPy's current stream), then distspmv.solve
on the same CuPy vectors; both print iterations and the true relative residual.
"""
import argparse
import sys

import cupy as cp
import numpy as np

import distspmv


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matrix", nargs="?", default="gen:poisson3d:64")
    parser.add_argument("--rtol", type=float, default=1e-8)
    parser.add_argument("--maxiter", type=int, default=10000)
    args = parser.parse_args()

    MPI = distspmv.MPI
    comm = MPI.COMM_WORLD if MPI is not None else None
    A = distspmv.Matrix(comm, args.matrix, backend="cuda")
    cp.cuda.Device(A.device).use()  # the GPU distspmv chose for this rank
    root = A.rank == 0
    if root:
        print(f"{args.matrix}: {A.shape[0]} rows, {A.nnz} nonzeros on {A.ranks} GPU(s); "
              f"format {A.format}, transport {A.transport}")
    b = cp.asarray(A.to_partitioned(np.ones(A.caller_rows)))

    def allsum(v):
        return v if comm is None else comm.allreduce(v)

    def dot(u, v):
        return allsum(float(cp.dot(u, v)))  # float(): waits for the stream

    ok = True
    if comm is not None or A.ranks == 1:
        inv_diag = cp.asarray(1.0 / A.diagonal())
        x = cp.zeros_like(b)
        r = b.copy()
        z = inv_diag * r
        p = z.copy()
        q = cp.empty_like(b)
        rz, b_norm = dot(r, z), dot(b, b) ** 0.5
        for it in range(1, args.maxiter + 1):
            A.apply(p, q)  # q = A p on the current stream
            alpha = rz / dot(p, q)
            x += alpha * p
            r -= alpha * q
            if dot(r, r) ** 0.5 <= args.rtol * b_norm:
                break
            z = inv_diag * r
            rz_new = dot(r, z)
            p *= rz_new / rz
            p += z
            rz = rz_new
        res = b - A @ x
        rel = (dot(res, res) / dot(b, b)) ** 0.5
        ok = rel <= 10 * args.rtol
        if root:
            print(f"CG in CuPy (A @ p):      {it} iterations, relative residual {rel:.3e}")
    x, info = distspmv.solve(A, b, method="cg", rtol=args.rtol, maxiter=args.maxiter)
    res = b - A @ x
    rel = (dot(res, res) / dot(b, b)) ** 0.5
    ok = ok and info.converged
    if root:
        print(f"distspmv.solve (C++ CG): {info.iterations} iterations, relative residual {rel:.3e} "
              f"({info.seconds_per_iteration * 1e6:.1f} us per iteration)")
        print("converged" if ok else "NOT converged")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
