// See petsc_compare.hpp.
#include "examples/petsc/petsc_compare.hpp"

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "examples/petsc/distspmv_petsc.h"
#include "io/matrix_source.hpp"
#include "io/row_split.hpp"

#if PETSC_VERSION_LT(3, 19, 0)
#define DSPMV_PETSC_OK 0
#else
#define DSPMV_PETSC_OK PETSC_SUCCESS
#endif

namespace distspmv_example {
namespace {

/// x_true(g): smooth, away from zero, a function of the global (caller) row id only.
double x_true_of(PetscInt g) { return 1.0 + 0.5 * std::sin(0.37 * static_cast<double>(g)); }

/// Solves op x = b (x starts at 0) with `method` + PCJACOBI.
PetscErrorCode solve(MPI_Comm comm, Mat op, Vec b, Vec x, const compare_settings& s, const std::string& method,
                     PetscInt* its, KSPConvergedReason* reason, double* seconds) {
  KSP ksp;
  PC pc;
  PetscFunctionBeginUser;
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, op, op));
  PetscCall(KSPSetType(ksp, method.c_str()));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, s.rtol, PETSC_DEFAULT, PETSC_DEFAULT, s.max_it));
  PetscCall(KSPSetFromOptions(ksp));  // -ksp_monitor and friends, for both matrices alike
  PetscCall(VecSet(x, 0.0));
  PetscCall(PetscBarrier(reinterpret_cast<PetscObject>(ksp)));
  const double t0 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  *seconds = MPI_Wtime() - t0;
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

/// ||b - A x||_2 / ||b||_2.
PetscErrorCode true_residual(Mat a, Vec b, Vec x, Vec work, double* out) {
  PetscReal rn = 0, bn = 0;
  PetscFunctionBeginUser;
  PetscCall(MatMult(a, x, work));
  PetscCall(VecAYPX(work, -1.0, b));
  PetscCall(VecNorm(work, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  *out = bn > 0 ? rn / bn : rn;
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

/// ||a - b||_inf / ||b||_inf, `work` gets a - b.
PetscErrorCode rel_diff(Vec a, Vec b, Vec work, double* out) {
  PetscReal dn = 0, bn = 0;
  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(work, -1.0, b, a));
  PetscCall(VecNorm(work, NORM_INFINITY, &dn));
  PetscCall(VecNorm(b, NORM_INFINITY, &bn));
  *out = bn > 0 ? dn / bn : dn;
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

std::string reason_name(KSPConvergedReason r) { return KSPConvergedReasons[r]; }

}  // namespace

PetscErrorCode compare_with_aij(MPI_Comm comm, const compare_settings& s, comparison* out) {
  PetscMPIInt rank = 0, size = 1;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  *out = comparison{};
  out->source = s.source;
  out->ranks = size;

  // 1. This rank's rows of the caller's layout: an even split, read (or generated) here.
  distspmv::csr_matrix<double> rows;
  distspmv::row_range range;
  long long n = 0;
  std::string problem;
  try {
    const distspmv::io::source_info info = distspmv::io::describe_source(s.source);
    if (info.rows != info.cols)
      problem = s.source + ": the matrix is " + std::to_string(info.rows) + " x " + std::to_string(info.cols) +
                ", not square";
    n = info.rows;
    if (problem.empty()) {
      range = distspmv::io::split_rows_evenly(info.rows, size)[rank];
      rows = distspmv::io::read_matrix_rows(s.source, range);
    }
  } catch (const std::exception& e) {
    problem = e.what();
  }
  int bad = problem.empty() ? 0 : 1, any_bad = 0;
  PetscCallMPI(MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm));
  PetscCheck(!any_bad, comm, PETSC_ERR_FILE_READ, "%s",
             problem.empty() ? "reading the matrix failed on another rank" : problem.c_str());
  PetscCheck(n <= static_cast<long long>(PETSC_MAX_INT) && rows.nnz() <= static_cast<long long>(PETSC_MAX_INT), comm,
             PETSC_ERR_SUP, "%s: %lld rows do not fit this PETSc's 32-bit PetscInt", s.source.c_str(), n);

  // 2. distspmv from the same arrays, through the C API.
  distspmv_options opts;
  distspmv_options_default(&opts);
  opts.partitioner = s.partitioner;
  opts.backend = s.backend;
  opts.format = s.format.c_str();
  distspmv_matrix handle = nullptr;
  int rc = distspmv_create_csr(comm, n, range.begin, range.size(), rows.row_ptr.data(), rows.col_idx.data(),
                               rows.values.data(), DISTSPMV_MEMORY_HOST, &opts, &handle);
  if (rc == DISTSPMV_ERROR_NOT_COMPILED && opts.partitioner == DISTSPMV_PARTITION_METIS) {
    PetscCall(PetscPrintf(comm, "note: %s; using the block partitioner\n", distspmv_last_error()));
    opts.partitioner = DISTSPMV_PARTITION_BLOCK;
    rc = distspmv_create_csr(comm, n, range.begin, range.size(), rows.row_ptr.data(), rows.col_idx.data(),
                             rows.values.data(), DISTSPMV_MEMORY_HOST, &opts, &handle);
  }
  PetscCheck(rc == DISTSPMV_SUCCESS, comm, PETSC_ERR_LIB, "distspmv_create_csr failed (%s): %s",
             distspmv_status_name(rc), distspmv_last_error());
  out->partitioner = opts.partitioner == DISTSPMV_PARTITION_METIS ? "metis" : "block";
  {
    const char* name = nullptr;
    int64_t nnz = 0;
    PetscCheck(distspmv_transport_name(handle, &name) == DISTSPMV_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s",
               distspmv_last_error());
    out->transport = name;
    PetscCheck(distspmv_format_name(handle, &name) == DISTSPMV_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s",
               distspmv_last_error());
    out->format = name;
    PetscCheck(distspmv_global_nnz(handle, &nnz) == DISTSPMV_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s",
               distspmv_last_error());
    out->global_nnz = nnz;
    out->global_rows = n;
  }

  // 3. PETSc's MPIAIJ of the same rows, caller layout (MatCreateMPIAIJWithArrays copies).
  const PetscInt m = static_cast<PetscInt>(range.size());
  std::vector<PetscInt> ia(rows.row_ptr.begin(), rows.row_ptr.end());
  std::vector<PetscInt> ja(rows.col_idx.begin(), rows.col_idx.end());
  Mat aij, shell;
  PetscCall(MatCreateMPIAIJWithArrays(comm, m, m, static_cast<PetscInt>(n), static_cast<PetscInt>(n), ia.data(),
                                      ja.data(), rows.values.data(), &aij));
  rows = {};  // both matrices hold their copies now

  // 4. The shell, in the partitioned layout; it owns the handle from here on.
  PetscCall(DistspmvMatCreateShell(comm, handle, PETSC_TRUE, &shell));

  Vec xc, yc, wc, zc, xp, yp, wp;  // c: caller layout, p: partitioned layout
  PetscCall(MatCreateVecs(aij, &xc, &yc));
  PetscCall(VecDuplicate(yc, &wc));
  PetscCall(VecDuplicate(yc, &zc));
  PetscCall(MatCreateVecs(shell, &xp, &yp));
  PetscCall(VecDuplicate(yp, &wp));

  // 5. MatMult on a random vector, and the diagonals.
  PetscRandom rnd;
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 20240607));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(xc, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatMult(aij, xc, yc));
  PetscCall(DistspmvVecToPartitioned(handle, xc, xp));
  PetscCall(MatMult(shell, xp, yp));
  PetscCall(DistspmvVecFromPartitioned(handle, yp, wc));
  PetscCall(rel_diff(wc, yc, zc, &out->matmult_rel_diff));
  PetscCall(VecCopy(yp, wp));
  PetscCall(MatMultAdd(shell, xp, wp, wp));  // wp = A xp + A xp, in place
  PetscCall(DistspmvVecFromPartitioned(handle, wp, wc));
  PetscCall(VecScale(wc, 0.5));
  PetscCall(rel_diff(wc, yc, zc, &out->matmult_add_rel_diff));

  PetscCall(MatGetDiagonal(aij, yc));
  PetscCall(DistspmvVecToPartitioned(handle, yc, wp));
  PetscCall(MatGetDiagonal(shell, yp));
  PetscCall(VecAXPY(yp, -1.0, wp));
  PetscReal dd = 0;
  PetscCall(VecNorm(yp, NORM_INFINITY, &dd));
  out->diagonal_max_diff = dd;

  // 6. b = A x_true in the caller layout, solved on both matrices.
  Vec b = yc, bp = yp, xtrue = zc;
  {
    PetscInt lo = 0, hi = 0;
    PetscScalar* xa = nullptr;
    PetscCall(VecGetOwnershipRange(xtrue, &lo, &hi));
    PetscCall(VecGetArrayWrite(xtrue, &xa));
    for (PetscInt g = lo; g < hi; ++g) xa[g - lo] = x_true_of(g);
    PetscCall(VecRestoreArrayWrite(xtrue, &xa));
  }
  PetscCall(MatMult(aij, xtrue, b));
  PetscCall(DistspmvVecToPartitioned(handle, b, bp));
  Vec x_aij, x_shell_c;
  PetscCall(VecDuplicate(xc, &x_aij));
  PetscCall(VecDuplicate(xc, &x_shell_c));
  for (const std::string& method : s.methods) {
    solve_comparison r;
    r.ksp = method;
    r.pc = PCJACOBI;
    KSPConvergedReason reason_aij, reason_shell;
    PetscCall(solve(comm, aij, b, x_aij, s, method, &r.its_aij, &reason_aij, &r.seconds_aij));
    PetscCall(solve(comm, shell, bp, xp, s, method, &r.its_shell, &reason_shell, &r.seconds_shell));
    PetscCall(DistspmvVecFromPartitioned(handle, xp, x_shell_c));
    r.reason_aij = reason_name(reason_aij);
    r.reason_shell = reason_name(reason_shell);
    r.converged_aij = reason_aij > 0;
    r.converged_shell = reason_shell > 0;
    PetscCall(rel_diff(x_shell_c, x_aij, wc, &r.solution_rel_diff));
    PetscCall(rel_diff(x_shell_c, xtrue, wc, &r.error_shell));
    PetscCall(true_residual(aij, b, x_shell_c, wc, &r.true_residual_shell));
    PetscCall(true_residual(aij, b, x_aij, wc, &r.true_residual_aij));
    out->solves.push_back(r);
  }

  PetscCall(VecDestroy(&x_aij));
  PetscCall(VecDestroy(&x_shell_c));
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&yc));
  PetscCall(VecDestroy(&wc));
  PetscCall(VecDestroy(&zc));
  PetscCall(VecDestroy(&xp));
  PetscCall(VecDestroy(&yp));
  PetscCall(VecDestroy(&wp));
  PetscCall(MatDestroy(&shell));  // destroys the distspmv handle (collective)
  PetscCall(MatDestroy(&aij));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

std::vector<std::string> check_comparison(const comparison& c, PetscInt its_tolerance, double solution_tolerance,
                                          double matmult_tolerance) {
  std::vector<std::string> failures;
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", v);
    return std::string(buf);
  };
  if (!(c.matmult_rel_diff <= matmult_tolerance))
    failures.push_back("MatMult: shell and MPIAIJ differ by " + num(c.matmult_rel_diff) + " > " + num(matmult_tolerance));
  if (!(c.matmult_add_rel_diff <= matmult_tolerance))
    failures.push_back("MatMultAdd: shell and MPIAIJ differ by " + num(c.matmult_add_rel_diff) + " > " +
                       num(matmult_tolerance));
  if (!(c.diagonal_max_diff == 0))
    failures.push_back("MatGetDiagonal: shell and MPIAIJ differ by " + num(c.diagonal_max_diff));
  for (const solve_comparison& r : c.solves) {
    const std::string what = r.ksp + "+" + r.pc + ": ";
    if (!r.converged_aij) failures.push_back(what + "MPIAIJ did not converge (" + r.reason_aij + ")");
    if (!r.converged_shell) failures.push_back(what + "shell did not converge (" + r.reason_shell + ")");
    const PetscInt d = r.its_shell > r.its_aij ? r.its_shell - r.its_aij : r.its_aij - r.its_shell;
    if (d > its_tolerance)
      failures.push_back(what + "iterations " + std::to_string(r.its_shell) + " (shell) vs " +
                         std::to_string(r.its_aij) + " (MPIAIJ)");
    if (!(r.solution_rel_diff <= solution_tolerance))
      failures.push_back(what + "solutions differ by " + num(r.solution_rel_diff) + " > " + num(solution_tolerance));
  }
  return failures;
}

PetscErrorCode print_comparison(MPI_Comm comm, const comparison& c) {
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "%s: %lld rows, %lld nonzeros, %d ranks; distspmv partition %s, format %s, transport %s\n",
                        c.source.c_str(), c.global_rows, c.global_nnz, c.ranks, c.partitioner.c_str(),
                        c.format.c_str(), c.transport.c_str()));
  PetscCall(PetscPrintf(comm,
                        "MatMult shell vs MPIAIJ: relative difference %.3e (MatMultAdd %.3e); diagonal: max "
                        "difference %.3e\n",
                        c.matmult_rel_diff, c.matmult_add_rel_diff, c.diagonal_max_diff));
  PetscCall(PetscPrintf(comm, "%-7s %-7s %10s %10s %14s %14s %14s %10s %10s\n", "ksp", "pc", "its shell", "its aij",
                        "|dx|/|x_aij|", "res shell", "res aij", "s shell", "s aij"));
  for (const solve_comparison& r : c.solves)
    PetscCall(PetscPrintf(comm, "%-7s %-7s %10" PetscInt_FMT " %10" PetscInt_FMT " %14.3e %14.3e %14.3e %10.4f %10.4f\n",
                          r.ksp.c_str(), r.pc.c_str(), r.its_shell, r.its_aij, r.solution_rel_diff,
                          r.true_residual_shell, r.true_residual_aij, r.seconds_shell, r.seconds_aij));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

std::string to_json(const comparison& c, const std::vector<std::string>& failures) {
  nlohmann::json j;
  j["source"] = c.source;
  j["global_rows"] = c.global_rows;
  j["global_nnz"] = c.global_nnz;
  j["ranks"] = c.ranks;
  j["partitioner"] = c.partitioner;
  j["format"] = c.format;
  j["transport"] = c.transport;
  j["matmult_rel_diff"] = c.matmult_rel_diff;
  j["matmult_add_rel_diff"] = c.matmult_add_rel_diff;
  j["diagonal_max_diff"] = c.diagonal_max_diff;
  j["solves"] = nlohmann::json::array();
  for (const solve_comparison& r : c.solves)
    j["solves"].push_back({{"ksp", r.ksp},
                           {"pc", r.pc},
                           {"iterations_shell", r.its_shell},
                           {"iterations_aij", r.its_aij},
                           {"reason_shell", r.reason_shell},
                           {"reason_aij", r.reason_aij},
                           {"solution_rel_diff", r.solution_rel_diff},
                           {"error_vs_x_true_shell", r.error_shell},
                           {"true_residual_shell", r.true_residual_shell},
                           {"true_residual_aij", r.true_residual_aij},
                           {"seconds_shell", r.seconds_shell},
                           {"seconds_aij", r.seconds_aij}});
  j["failures"] = failures;
  j["ok"] = failures.empty();
  return j.dump(2) + "\n";
}

}  // namespace distspmv_example
