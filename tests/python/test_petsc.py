# petsc4py's KSP with distspmv's matrix as its operator (MATPYTHON) against KSP on PETSc's own AIJ
# matrix of the same rows: the same CG iterations and solution (label petsc).
import numpy as np
import pytest

import distspmv
from conftest import allmax, reference, vector

pytestmark = pytest.mark.petsc
petsc4py = pytest.importorskip("petsc4py")
from petsc4py import PETSc  # noqa: E402


def ksp_solve(mat, b, pc):
    ksp = PETSc.KSP().create(comm=mat.getComm())
    ksp.setOperators(mat)
    ksp.setType("cg")
    ksp.getPC().setType(pc)
    ksp.setTolerances(rtol=1e-10, atol=0.0, max_it=1000)
    x = b.duplicate()
    ksp.solve(b, x)
    return ksp.getIterationNumber(), ksp.getConvergedReason(), x


@pytest.mark.parametrize("pc", ["none", "jacobi"])
def test_ksp_cg_same_iterations_as_aij(comm, pc):
    source = "gen:poisson3d:12"
    S = reference(source)
    # block partition, no order: the partitioned rows are the caller's rows, so PETSc's AIJ of
    # those rows is the same operator in the same numbering
    A = distspmv.Matrix(comm, source, partition="block", backend="host")
    assert np.array_equal(A.owned_caller_ids(), np.arange(A.first_row, A.first_row + A.local_rows))
    shell = A.as_petsc_mat()
    a, b_ = A.first_row, A.first_row + A.local_rows
    local = S[a:b_]
    aij = PETSc.Mat().createAIJ(size=((A.local_rows, S.shape[0]), (A.local_rows, S.shape[0])),
                                csr=(local.indptr.astype(PETSc.IntType), local.indices.astype(PETSc.IntType),
                                     local.data), comm=shell.getComm())
    aij.assemble()
    bvec = shell.createVecs("left")
    bvec.getArray()[:] = vector(S.shape[0], 4)[a:b_]
    it_shell, reason_shell, x_shell = ksp_solve(shell, bvec, pc)
    it_aij, reason_aij, x_aij = ksp_solve(aij, bvec, pc)
    assert reason_shell > 0 and reason_aij > 0
    assert it_shell == it_aij
    diff = allmax(float(np.max(np.abs(x_shell.getArray() - x_aij.getArray()))))
    assert diff <= 1e-8 * allmax(float(np.max(np.abs(x_aij.getArray()))))
    # MatMult and MatMultAdd agree with AIJ's
    y1, y2 = aij.createVecs("left"), aij.createVecs("left")
    shell.mult(bvec, y1)
    aij.mult(bvec, y2)
    assert allmax(float(np.max(np.abs(y1.getArray() - y2.getArray())))) <= 1e-12 * 8
    shell.multAdd(bvec, y2, y1)
    aij.multAdd(bvec, y2, y2)
    assert allmax(float(np.max(np.abs(y1.getArray() - y2.getArray())))) <= 1e-12 * 16
