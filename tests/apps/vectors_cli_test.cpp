// `distspmv --x FILE --output FILE` and `distspmv solve --rhs FILE --output FILE` as a user runs
// them, at 1 and 2 ranks under mpirun: y read back from the file must be A x of the given x in the
// matrix file's row order, whatever the partitioner did to the rows (checked against a plain CSR
// product computed here), in each format; bad vectors end every rank with a message naming the
// file and the problem.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/matrix_source.hpp"
#include "io/vector_io.hpp"
#include "tests/support/file_test.hpp"

namespace distspmv {
namespace {

namespace fs = std::filesystem;

constexpr global_index_type n = 500;

/// A nonsymmetric, diagonally dominant matrix with far-off entries (so that two ranks exchange a
/// halo and METIS moves rows): a transposed or permuted product would not match.
csr_matrix<double> test_matrix() {
  csr_matrix<double> a;
  a.rows = a.cols = n;
  a.row_ptr.assign(1, 0);
  for (global_index_type i = 0; i < n; ++i) {
    std::map<global_index_type, double> row;
    row[i] += 4.0;
    row[(i + 1) % n] += -1.5;
    row[(7 * i + 3) % n] += 0.25 * static_cast<double>(i % 5 + 1);
    row[n - 1 - i] += 0.5;
    for (const auto& [c, v] : row) {
      a.col_idx.push_back(c);
      a.values.push_back(v);
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

std::vector<double> test_vector() {
  std::vector<double> x(n);
  for (global_index_type i = 0; i < n; ++i) x[i] = std::sin(0.37 * static_cast<double>(i)) + static_cast<double>(i) / n;
  return x;
}

/// y = A x, one row at a time.
std::vector<double> product(const csr_matrix<double>& a, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (global_index_type i = 0; i < a.rows; ++i)
    for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) y[i] += a.values[k] * x[a.col_idx[k]];
  return y;
}

double max_relative_difference(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return diff / scale;
}

struct run_result {
  int code = 0;
  std::string out, err;
};

class VectorsCli : public test::temp_dir_test {
 protected:
  VectorsCli() : temp_dir_test("vectors_cli") {}

  void SetUp() override {
    temp_dir_test::SetUp();
    a_ = test_matrix();
    x_ = test_vector();
    io::write_matrix(file("A.mtx"), a_);
  }

  /// Runs distspmv ARGS with `ranks` MPI ranks; exit code, stdout and stderr.
  run_result run(int ranks, const std::string& args) {
    const std::string command = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                                std::string(DISTSPMV_MPIEXEC) + " -n " + std::to_string(ranks) + " --oversubscribe " +
                                DISTSPMV_CLI + " " + args + " > " + file("out.txt") + " 2> " + file("err.txt");
    const int status = std::system(command.c_str());
    run_result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ostringstream out, err;
    out << std::ifstream(file("out.txt")).rdbuf();
    err << std::ifstream(file("err.txt")).rdbuf();
    r.out = out.str();
    r.err = err.str();
    return r;
  }

  /// Runs the product and returns the y it wrote.
  std::vector<double> run_product(int ranks, const std::string& x, const std::string& y, const std::string& more) {
    const run_result r =
        run(ranks, file("A.mtx") + " --backend host --iters 2 --warmup 1 --x " + x + " --output " + y + " " + more);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return io::read_vector(y);
  }

  csr_matrix<double> a_;
  std::vector<double> x_;
};

TEST_F(VectorsCli, OneRankNpyInNpyOut) {
  io::write_vector(file("x.npy"), x_);
  const auto y = run_product(1, file("x.npy"), file("y.npy"), "");
  ASSERT_EQ(y.size(), static_cast<std::size_t>(n));
  EXPECT_LT(max_relative_difference(y, product(a_, x_)), 1e-14);
  EXPECT_EQ(io::describe_vector(file("y.npy")).value_type, "float64");
}

TEST_F(VectorsCli, TwoRanksMetisHdf5InNamedDatasetOut) {
  io::vector_write_options as_x;
  as_x.default_dataset = "x";
  io::write_vector(file("x.h5"), x_, as_x);
  const auto y =
      run_product(2, file("x.h5"), file("y.h5") + ":/result/y", "--partition metis --json " + file("r.json"));
  ASSERT_EQ(y.size(), static_cast<std::size_t>(n));
  EXPECT_LT(max_relative_difference(y, product(a_, x_)), 1e-14);
  std::ostringstream json;
  json << std::ifstream(file("r.json")).rdbuf();
  EXPECT_NE(json.str().find("\"partition\": \"metis\""), std::string::npos) << "the rows were permuted";
  EXPECT_NE(json.str().find("\"output\":"), std::string::npos);
}

TEST_F(VectorsCli, TwoRanksPetscBinaryInAndOut) {
  io::write_vector(file("x.petsc"), x_);
  const auto y = run_product(2, file("x.petsc"), file("y.dat"), "--partition block");
  EXPECT_LT(max_relative_difference(y, product(a_, x_)), 1e-14);
}

TEST_F(VectorsCli, TwoRanksFloatPrecisionReadsFloat32AndWritesFloat32) {
  io::vector_write_options f32;
  f32.float32 = true;
  io::write_vector(file("x32.npy"), x_, f32);
  const auto y = run_product(2, file("x32.npy"), file("y32.npy"), "--precision float --partition metis");
  EXPECT_EQ(io::describe_vector(file("y32.npy")).value_type, "float32");
  EXPECT_LT(max_relative_difference(y, product(a_, io::read_vector(file("x32.npy")))), 1e-5);
}

TEST_F(VectorsCli, GeneratedXIsWrittenToo) {
  const run_result r = run(2, file("A.mtx") + " --backend host --iters 1 -o " + file("y.npy"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(io::describe_vector(file("y.npy")).length, n);
  EXPECT_NE(r.out.find("x: random entries"), std::string::npos) << r.out;
}

TEST_F(VectorsCli, WrongLengthEndsEveryRankWithOneMessage) {
  io::write_vector(file("short.npy"), std::vector<double>(10, 1.0));
  const run_result r =
      run(2, file("A.mtx") + " --backend host --iters 1 --x " + file("short.npy") + " -o " + file("y.npy"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("short.npy: has 10 entries, the matrix has 500 columns; expected 500"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("MPI_ABORT"), std::string::npos) << "every rank ends by itself: " << r.err;
  EXPECT_FALSE(fs::exists(file("y.npy")));
}

TEST_F(VectorsCli, DamagedOrUnknownFilesFailBeforeTheSetup) {
  std::ofstream(file("bad.npy")) << "not a numpy file";
  run_result r = run(2, file("A.mtx") + " --backend host --x " + file("bad.npy"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("bad.npy: header: bad magic"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("setup:"), std::string::npos) << r.out;

  r = run(2, file("A.mtx") + " --backend host --x " + file("missing.h5"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("missing.h5: no such file"), std::string::npos) << r.err;

  r = run(1, file("A.mtx") + " --backend host --output " + file("y.txt"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("y.txt: unknown vector output format"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(file("y.txt")));

  r = run(1, file("A.mtx") + " --backend host --format all --output " + file("y.npy"));
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--output: is not available with --format all"), std::string::npos) << r.err;
}

TEST_F(VectorsCli, HelpNamesTheOptions) {
  const run_result r = run(1, "--help");
  EXPECT_EQ(r.code, 0);
  for (const char* option : {"--x", "-o,--output", ".npy", "PETSc binary vector"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
}

TEST_F(VectorsCli, SolveReadsRhsAndWritesTheSolutionPerRank) {
  io::write_vector(file("b.npy"), product(a_, x_));
  const run_result r = run(2, "solve " + file("A.mtx") +
                                  " --method gmres --rtol 1e-12 --backend host --partition metis "
                                  "--history-every 0 --rhs " +
                                  file("b.npy") + " -o " + file("x.petsc"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_LT(max_relative_difference(io::read_vector(file("x.petsc")), x_), 1e-9);
}

}  // namespace
}  // namespace distspmv
