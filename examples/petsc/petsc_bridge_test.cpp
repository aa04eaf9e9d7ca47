// ctest driver of the PETSc bridge (label petsc): the shell must match PETSc's own MPIAIJ of the
// same matrix. Argument: gen:KIND:ARGS, or the name of a file of the shared matrices folder
// (tests/support: $DISTSPMV_MATRICES or ../shared/matrices); exit 77 (skip) when that folder is
// absent. Host backend, METIS when the build has it.
#include <petscksp.h>

#include <cstdio>
#include <string>
#include <vector>

#include "examples/petsc/petsc_compare.hpp"
#include "tests/support/test_support.hpp"

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "gen:poisson3d:12";
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  distspmv_example::compare_settings s;
  s.backend = DISTSPMV_BACKEND_HOST;
  if (which.rfind("gen:", 0) == 0) {
    s.source = which;
  } else {
    const std::string dir = distspmv::test::shared_matrices_dir();
    if (dir.empty()) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SKIP: no shared matrices folder (set DISTSPMV_MATRICES) for %s\n",
                            which.c_str()));
      PetscCall(PetscFinalize());
      return 77;
    }
    s.source = dir + "/" + which;
  }
  distspmv_example::comparison c;
  PetscCall(distspmv_example::compare_with_aij(PETSC_COMM_WORLD, s, &c));
  PetscCall(distspmv_example::print_comparison(PETSC_COMM_WORLD, c));
  const std::vector<std::string> failures = distspmv_example::check_comparison(c, 1, 1e-8, 1e-12);
  for (const std::string& f : failures) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %s\n", f.c_str()));
  if (c.solves.size() != 2) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %zu solves, expected cg and gmres\n", c.solves.size()));
    PetscCall(PetscFinalize());
    return 1;
  }
  PetscCall(PetscFinalize());
  return failures.empty() ? 0 : 1;
}
