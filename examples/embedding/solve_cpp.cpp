// Embedding distspmv in C++: each rank hands in its rows, CG solves, the answer comes back in the
// rows the rank handed in. Run: mpiexec -n 4 ./embed_solve_cpp
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "common/errors.hpp"
#include "dist/distributed_matrix.hpp"
#include "dist/solvers/cg.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, status = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    // This rank's rows [first, first + rows) of the 1-D Laplacian tridiag(-1, 2, -1): CSR with
    // 64-bit offsets and 64-bit global column ids, sorted within each row.
    const std::int64_t n = 1000, first = n * rank / size, rows = n * (rank + 1) / size - first;
    std::vector<std::int64_t> row_ptr{0}, cols;
    std::vector<double> vals;
    for (std::int64_t i = first; i < first + rows; ++i) {
      for (std::int64_t j : {i - 1, i, i + 1})
        if (j >= 0 && j < n) {
          cols.push_back(j);
          vals.push_back(j == i ? 2.0 : -1.0);
        }
      row_ptr.push_back(static_cast<std::int64_t>(cols.size()));
    }

    distspmv::matrix_options options;  // METIS, format "auto", automatic transport
    options.where = distspmv::backend::host;  // the default, backend::cuda, wants one GPU per rank
    auto A = distspmv::distributed_matrix<double>::from_csr(MPI_COMM_WORLD, n, first, rows, row_ptr.data(),
                                                            cols.data(), vals.data(), distspmv::memory_space::host,
                                                            options);

    // The solver works in the partitioned layout (METIS renumbered the rows): move b in, x out.
    // (On the CUDA backend bp and xp would be device arrays; to/from_partitioned take host ones.)
    std::vector<double> b(rows, 1.0), x(rows);
    std::vector<double> bp(A.local_rows()), xp(A.local_rows(), 0.0);
    A.to_partitioned(b.data(), bp.data());
    distspmv::solvers::solver_options so;
    so.rtol = 1e-10;  // Jacobi-preconditioned CG (so.jacobi = true)
    const distspmv::solvers::solve_result r = distspmv::solvers::cg(A, bp.data(), xp.data(), so);
    A.from_partitioned(xp.data(), x.data());

    // The exact solution of tridiag(-1, 2, -1) x = 1 is x_i = (i + 1)(n - i) / 2.
    double err = 0;
    for (std::int64_t i = 0; i < rows; ++i) {
      const double exact = 0.5 * double(first + i + 1) * double(n - first - i);
      err = std::max(err, std::abs(x[i] - exact) / exact);
    }
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("CG: %d iterations, converged %d, residual %.2e, max relative error %.2e\n", r.iterations,
                  int(r.converged), r.final_relative_residual, err);
    status = r.converged && err < 1e-6 ? 0 : 1;
  } catch (const distspmv::error& e) {  // bad input, MPI/CUDA failures: what() says what to fix
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    if (!e.collective()) MPI_Abort(MPI_COMM_WORLD, 1);  // only this rank failed: the others would wait
    status = 1;
  }
  MPI_Finalize();  // after A went out of scope: its destructor frees a communicator
  return status;
}
