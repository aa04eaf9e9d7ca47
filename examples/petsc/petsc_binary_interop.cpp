// ctest driver (label petsc): PETSc binary files between PETSc itself and distspmv's reader and
// writer (io/petsc_binary.hpp), at any number of ranks.
//
//   petsc_binary_interop DIR
//
// 1. PETSc writes, with PetscViewerBinaryOpen + MatView / VecView, a rectangular MPIAIJ matrix of
//    known entries (empty rows included), a square one, a vector, and a matrix followed by a
//    vector in one file, into DIR.
// 2. distspmv reads them: each rank its PETSc ownership range of rows, rank 0 the whole matrices;
//    every entry must be the known one. distspmv's writer must produce the same bytes as MatView.
// 3. distspmv writes a matrix and a vector (rank 0); PETSc loads them with MatLoad / VecLoad and
//    every rank checks its rows and entries.
// Prints "FAILED: ..." per mismatch; exits 0 only when every rank found none. DIR/square.petsc is
// left for the CLI test that follows (distspmv info and a distributed run with --check).
#include <petscmat.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/matrix_source.hpp"
#include "io/petsc_binary.hpp"

#if PETSC_VERSION_LT(3, 19, 0)
#define DSPMV_PETSC_OK 0
#else
#define DSPMV_PETSC_OK PETSC_SUCCESS
#endif

namespace {

using distspmv::csr_matrix;
using distspmv::global_index_type;
using distspmv::row_range;

/// The known matrices: row i of a rows x cols matrix holds the columns j with (3i + 7j) % 5 < 2
/// (none in every sixth row), value 1 + i - j / 8 (exact in binary).
struct known_matrix {
  PetscInt rows, cols;
  bool has(PetscInt i, PetscInt j) const { return i % 6 != 4 && (3 * i + 7 * j) % 5 < 2; }
  static double value(PetscInt i, PetscInt j) { return 1.0 + static_cast<double>(i) - static_cast<double>(j) / 8.0; }
  /// The square one gets a dominant diagonal, so that it is a fair SpMV test matrix too.
  bool square() const { return rows == cols; }
  bool entry(PetscInt i, PetscInt j) const { return has(i, j) || (square() && i == j); }
  double at(PetscInt i, PetscInt j) const { return square() && i == j ? 100.0 + static_cast<double>(i) : value(i, j); }

  csr_matrix<double> csr() const {
    csr_matrix<double> a;
    a.rows = rows;
    a.cols = cols;
    for (PetscInt i = 0; i < rows; ++i) {
      for (PetscInt j = 0; j < cols; ++j) {
        if (!entry(i, j)) continue;
        a.col_idx.push_back(j);
        a.values.push_back(at(i, j));
      }
      a.row_ptr.push_back(static_cast<distspmv::offset_type>(a.col_idx.size()));
    }
    return a;
  }
};

double known_vector(PetscInt i) { return 0.5 * static_cast<double>(i) - 3.25; }

int failures = 0;

void fail(int rank, const std::string& what) {
  std::printf("FAILED (rank %d): %s\n", rank, what.c_str());
  std::fflush(stdout);
  ++failures;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

PetscErrorCode petsc_matrix(MPI_Comm comm, const known_matrix& k, Mat* a) {
  PetscInt begin = 0, end = 0;
  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, a));
  PetscCall(MatSetSizes(*a, PETSC_DECIDE, PETSC_DECIDE, k.rows, k.cols));
  PetscCall(MatSetType(*a, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*a, k.cols, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(*a, k.cols, nullptr, k.cols, nullptr));
  PetscCall(MatGetOwnershipRange(*a, &begin, &end));
  for (PetscInt i = begin; i < end; ++i) {
    std::vector<PetscInt> cols;
    std::vector<PetscScalar> vals;
    for (PetscInt j = k.cols - 1; j >= 0; --j) {  // in reverse: PETSc sorts them
      if (!k.entry(i, j)) continue;
      cols.push_back(j);
      vals.push_back(k.at(i, j));
    }
    PetscCall(MatSetValues(*a, 1, &i, static_cast<PetscInt>(cols.size()), cols.data(), vals.data(), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*a, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*a, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

PetscErrorCode petsc_vector(MPI_Comm comm, PetscInt n, Vec* x) {
  PetscInt begin = 0, end = 0;
  PetscFunctionBeginUser;
  PetscCall(VecCreate(comm, x));
  PetscCall(VecSetSizes(*x, PETSC_DECIDE, n));
  PetscCall(VecSetFromOptions(*x));
  PetscCall(VecGetOwnershipRange(*x, &begin, &end));
  for (PetscInt i = begin; i < end; ++i) PetscCall(VecSetValue(*x, i, known_vector(i), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(*x));
  PetscCall(VecAssemblyEnd(*x));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

/// Step 1: PETSc writes every file of the test.
PetscErrorCode petsc_writes(MPI_Comm comm, const std::string& dir, const known_matrix& rect, const known_matrix& square,
                            PetscInt n) {
  Mat a, s;
  Vec x;
  PetscViewer viewer;
  PetscFunctionBeginUser;
  PetscCall(petsc_matrix(comm, rect, &a));
  PetscCall(petsc_matrix(comm, square, &s));
  PetscCall(petsc_vector(comm, n, &x));
  PetscCall(PetscViewerBinaryOpen(comm, (dir + "/rect.petsc").c_str(), FILE_MODE_WRITE, &viewer));
  PetscCall(MatView(a, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(PetscViewerBinaryOpen(comm, (dir + "/square.petsc").c_str(), FILE_MODE_WRITE, &viewer));
  PetscCall(MatView(s, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(PetscViewerBinaryOpen(comm, (dir + "/x.petsc").c_str(), FILE_MODE_WRITE, &viewer));
  PetscCall(VecView(x, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  // A linear system in one file, as PETSc's KSP tutorials keep them (named .dat: found by content).
  PetscCall(PetscViewerBinaryOpen(comm, (dir + "/system.dat").c_str(), FILE_MODE_WRITE, &viewer));
  PetscCall(MatView(s, viewer));
  PetscCall(VecView(x, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(MatDestroy(&a));
  PetscCall(MatDestroy(&s));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

void expect_rows(int rank, const std::string& what, const csr_matrix<double>& got, const csr_matrix<double>& want) {
  if (!(got == want))
    fail(rank, what + ": " + std::to_string(got.rows) + " rows, " + std::to_string(got.nnz()) + " nonzeros read; " +
                   std::to_string(want.rows) + " rows, " + std::to_string(want.nnz()) + " nonzeros expected, or other entries");
}

/// Step 2: distspmv reads what PETSc wrote.
void distspmv_reads(MPI_Comm comm, const std::string& dir, const known_matrix& rect, const known_matrix& square,
                    PetscInt n) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (const known_matrix& k : {rect, square}) {
    const std::string path = dir + (k.square() ? "/square.petsc" : "/rect.petsc");
    const csr_matrix<double> want = k.csr();
    const auto info = distspmv::io::describe_source(path);
    if (info.kind != "petsc-binary" || info.rows != k.rows || info.cols != k.cols || info.nnz != want.nnz())
      fail(rank, path + ": describe_source says " + info.kind + " " + std::to_string(info.rows) + " x " +
                     std::to_string(info.cols) + ", " + std::to_string(info.nnz) + " nonzeros");
    // This rank's PETSc rows (PETSc's default layout: the first rows % size ranks get one more).
    const global_index_type per = k.rows / size, extra = k.rows % size;
    const global_index_type begin = rank * per + std::min<global_index_type>(rank, extra);
    const row_range mine{begin, begin + per + (rank < extra ? 1 : 0)};
    expect_rows(rank, path + " rows [" + std::to_string(mine.begin) + ", " + std::to_string(mine.end) + ")",
                distspmv::io::read_matrix_rows(path, mine), distspmv::slice_rows(want, mine));
    if (rank == 0) {
      expect_rows(rank, path + " whole", distspmv::io::read_matrix(path), want);
      // Our writer writes what MatView wrote, byte for byte.
      const std::string ours = dir + (k.square() ? "/square_ours.petsc" : "/rect_ours.petsc");
      distspmv::io::write_matrix(ours, want);
      if (file_bytes(ours) != file_bytes(path)) fail(rank, ours + " differs from " + path + " (MatView's bytes)");
    }
  }
  const auto x = distspmv::io::read_petsc_vector(dir + "/x.petsc");
  bool same = static_cast<PetscInt>(x.size()) == n;
  for (PetscInt i = 0; same && i < n; ++i) same = x[i] == known_vector(i);
  if (!same) fail(rank, dir + "/x.petsc: the vector read differs");
  if (rank == 0) {
    expect_rows(rank, dir + "/system.dat (matrix then vector)", distspmv::io::read_matrix(dir + "/system.dat"),
                square.csr());
    distspmv::io::write_petsc_vector(dir + "/x_ours.petsc", x);
    if (file_bytes(dir + "/x_ours.petsc") != file_bytes(dir + "/x.petsc"))
      fail(rank, "x_ours.petsc differs from x.petsc (VecView's bytes)");
  }
}

/// Step 3: PETSc loads what distspmv wrote.
PetscErrorCode petsc_loads(MPI_Comm comm, const std::string& dir, const known_matrix& k, PetscInt n) {
  int rank = 0;
  Mat a;
  Vec y;
  PetscViewer viewer;
  PetscInt rows = 0, cols = 0, begin = 0, end = 0;
  PetscFunctionBeginUser;
  MPI_Comm_rank(comm, &rank);
  PetscCall(MatCreate(comm, &a));
  PetscCall(MatSetType(a, MATAIJ));
  PetscCall(PetscViewerBinaryOpen(comm, (dir + "/written.petsc").c_str(), FILE_MODE_READ, &viewer));
  PetscCall(MatLoad(a, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(MatGetSize(a, &rows, &cols));
  if (rows != k.rows || cols != k.cols) fail(rank, "MatLoad: size " + std::to_string(rows) + " x " + std::to_string(cols));
  PetscCall(MatGetOwnershipRange(a, &begin, &end));
  for (PetscInt i = begin; i < end; ++i) {
    PetscInt ncols = 0;
    const PetscInt* c = nullptr;
    const PetscScalar* v = nullptr;
    PetscCall(MatGetRow(a, i, &ncols, &c, &v));
    PetscInt expected = 0;
    for (PetscInt j = 0; j < k.cols; ++j) expected += k.entry(i, j) ? 1 : 0;
    bool same = ncols == expected;
    for (PetscInt e = 0; same && e < ncols; ++e) same = k.entry(i, c[e]) && v[e] == k.at(i, c[e]);
    if (!same) fail(rank, "MatLoad: row " + std::to_string(i) + " differs");
    PetscCall(MatRestoreRow(a, i, &ncols, &c, &v));
  }
  PetscCall(VecCreate(comm, &y));
  PetscCall(PetscViewerBinaryOpen(comm, (dir + "/written_vector.petsc").c_str(), FILE_MODE_READ, &viewer));
  PetscCall(VecLoad(y, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(VecGetSize(y, &rows));
  if (rows != n) fail(rank, "VecLoad: length " + std::to_string(rows));
  const PetscScalar* values = nullptr;
  PetscCall(VecGetOwnershipRange(y, &begin, &end));
  PetscCall(VecGetArrayRead(y, &values));
  for (PetscInt i = begin; i < end; ++i)
    if (values[i - begin] != -known_vector(i)) fail(rank, "VecLoad: entry " + std::to_string(i) + " differs");
  PetscCall(VecRestoreArrayRead(y, &values));
  PetscCall(MatDestroy(&a));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

PetscErrorCode run(MPI_Comm comm, const std::string& dir) {
  int rank = 0;
  // Odd sizes, more columns than rows and the reverse, a row count no rank count divides.
  const known_matrix rect{37, 53}, square{61, 61}, written{45, 31};
  const PetscInt n = 37;
  PetscFunctionBeginUser;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::filesystem::create_directories(dir);
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(petsc_writes(comm, dir, rect, square, n));
  PetscCallMPI(MPI_Barrier(comm));
  try {
    distspmv_reads(comm, dir, rect, square, n);
    if (rank == 0) {
      distspmv::io::write_matrix(dir + "/written.petsc", written.csr());
      std::vector<double> y(static_cast<std::size_t>(n));
      for (PetscInt i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = -known_vector(i);
      distspmv::io::write_petsc_vector(dir + "/written_vector.petsc", y);
    }
  } catch (const std::exception& e) {
    fail(rank, std::string("distspmv: ") + e.what());
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(petsc_loads(comm, dir, written, n));
  PetscFunctionReturn(DSPMV_PETSC_OK);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  const std::string dir = argc > 1 && argv[1][0] != '-' ? argv[1] : ".";
  PetscCall(run(PETSC_COMM_WORLD, dir));
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d failures\n", total == 0 ? "passed" : "FAILED", total));
  PetscCall(PetscFinalize());
  return total == 0 ? 0 : 1;
}
