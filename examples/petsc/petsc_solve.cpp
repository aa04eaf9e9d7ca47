// PETSc KSP with distspmv as its operator (DESIGN.md §9), next to PETSc's own MPIAIJ of the same
// matrix: iteration counts, solution difference, MatMult difference (petsc_compare.hpp says how
// the two layouts are reconciled).
//
//   mpiexec -n 4 petsc_solve -matrix gen:poisson3d:32 [-partition metis|block] [-backend host|cuda]
//           [-format auto|csr|...] [-rtol 1e-12] [-max_it 20000] [-methods cg,gmres] [-json out.json]
//           [-check] [any PETSc option, e.g. -ksp_monitor]
//
// With -check the exit status is non-zero when the shell and the MPIAIJ disagree (iterations by
// more than 1, solutions by more than 1e-8 relative, MatMult by more than 1e-12).
#include <petscksp.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "examples/petsc/petsc_compare.hpp"

static const char help[] =
    "Solves A x = b with PETSc KSP (CG and GMRES, PCJACOBI) on a distspmv MATSHELL and on PETSc's MPIAIJ.\n"
    "  -matrix SOURCE        .mtx, .mtx.gz, .h5 or gen:KIND:ARGS (default gen:poisson3d:12)\n"
    "  -partition metis|block  distspmv's partitioner (default metis)\n"
    "  -backend host|cuda    distspmv's backend (default cuda when built with CUDA)\n"
    "  -format NAME          distspmv's local format (default auto)\n"
    "  -rtol R -max_it N     KSP tolerances (default 1e-12, 20000)\n"
    "  -methods LIST         KSP types, comma separated (default cg,gmres)\n"
    "  -json FILE            write the comparison as JSON (rank 0)\n"
    "  -check                exit non-zero when the two matrices disagree\n";

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, help));
  distspmv_example::compare_settings s;
  s.backend = distspmv_has_cuda() ? DISTSPMV_BACKEND_CUDA : DISTSPMV_BACKEND_HOST;
  char text[PETSC_MAX_PATH_LEN];
  PetscBool set = PETSC_FALSE, check = PETSC_FALSE;
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-matrix", text, sizeof text, &set));
  if (set) s.source = text;
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-partition", text, sizeof text, &set));
  if (set) {
    PetscCheck(!std::strcmp(text, "metis") || !std::strcmp(text, "block"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
               "-partition %s: expected metis or block", text);
    s.partitioner = std::strcmp(text, "block") == 0 ? DISTSPMV_PARTITION_BLOCK : DISTSPMV_PARTITION_METIS;
  }
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-backend", text, sizeof text, &set));
  if (set) {
    PetscCheck(!std::strcmp(text, "host") || !std::strcmp(text, "cuda"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
               "-backend %s: expected host or cuda", text);
    s.backend = std::strcmp(text, "host") == 0 ? DISTSPMV_BACKEND_HOST : DISTSPMV_BACKEND_CUDA;
  }
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-format", text, sizeof text, &set));
  if (set) s.format = text;
  PetscReal rtol = s.rtol;
  PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-rtol", &rtol, nullptr));
  s.rtol = rtol;
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-max_it", &s.max_it, nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-methods", text, sizeof text, &set));
  if (set) {
    s.methods.clear();
    std::stringstream list(text);
    for (std::string m; std::getline(list, m, ',');)
      if (!m.empty()) s.methods.push_back(m);
  }
  char json_path[PETSC_MAX_PATH_LEN] = "";
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-json", json_path, sizeof json_path, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-check", &check, nullptr));

  distspmv_example::comparison c;
  PetscCall(distspmv_example::compare_with_aij(PETSC_COMM_WORLD, s, &c));
  PetscCall(distspmv_example::print_comparison(PETSC_COMM_WORLD, c));
  const std::vector<std::string> failures = distspmv_example::check_comparison(c);
  for (const std::string& f : failures) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "DISAGREE: %s\n", f.c_str()));

  PetscMPIInt rank = 0;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  int write_failed = 0;
  if (json_path[0] && rank == 0) {
    std::ofstream f(json_path);
    f << distspmv_example::to_json(c, failures);
    f.close();
    write_failed = f.fail() ? 1 : 0;
    if (write_failed) std::fprintf(stderr, "petsc_solve: cannot write %s\n", json_path);
  }
  PetscCallMPI(MPI_Bcast(&write_failed, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscFinalize());
  if (write_failed) return 2;
  return (check && !failures.empty()) ? 1 : 0;
}
