#!/usr/bin/env python3
"""PETSc's KSP (petsc4py) with a distspmv matrix as its operator.

    mpirun -np 2 python3 examples/python/petsc_ksp.py gen:poisson3d:32 --ksp-type cg --pc-type jacobi

A.as_petsc_mat() is a MATPYTHON shell matrix whose MatMult is distspmv's apply (and whose
MatGetDiagonal serves PCJACOBI). Its rows are distspmv's partitioned layout: b is made there
with to_partitioned, and the solution comes back to the file's row order with from_partitioned.
"""
import argparse
import sys

import numpy as np
import petsc4py

petsc4py.init(sys.argv[:1])
from petsc4py import PETSc  # noqa: E402

import distspmv  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matrix", nargs="?", default="gen:poisson3d:32")
    parser.add_argument("--ksp-type", default="cg")
    parser.add_argument("--pc-type", default="jacobi")
    parser.add_argument("--rtol", type=float, default=1e-8)
    parser.add_argument("--backend", default="host")
    args = parser.parse_args()

    A = distspmv.Matrix(distspmv.MPI.COMM_WORLD, args.matrix, backend=args.backend)
    mat = A.as_petsc_mat()
    b, x = mat.createVecs("left"), mat.createVecs("right")
    b.getArray()[:] = A.to_partitioned(np.ones(A.caller_rows))
    ksp = PETSc.KSP().create(comm=mat.getComm())
    ksp.setOperators(mat)
    ksp.setType(args.ksp_type)
    ksp.getPC().setType(args.pc_type)
    ksp.setTolerances(rtol=args.rtol, atol=0.0, max_it=10000)
    ksp.setFromOptions()
    ksp.solve(b, x)
    r = b.duplicate()
    mat.mult(x, r)
    r.aypx(-1.0, b)  # r = b - A x
    rel = r.norm() / b.norm()
    solution = A.from_partitioned(x.getArray(readonly=True))  # this rank's rows in the file's order
    if A.rank == 0:
        print(f"{args.matrix}: {A.shape[0]} rows on {A.ranks} rank(s), distspmv format {A.format}")
        print(f"KSP {ksp.getType()} + PC {ksp.getPC().getType()}: {ksp.getIterationNumber()} iterations, "
              f"reason {ksp.getConvergedReason()}, relative residual {rel:.3e}; x[0] = {solution[0]:.6g}")
    return 0 if ksp.getConvergedReason() > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
