// Tests of the unified matrix source: dispatch by "gen:" prefix and extension, sniffing of
// unknown extensions, errors for missing files and unknown formats, and write/read round trips
// through every writable extension.
#include "io/matrix_source.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/generators.hpp"
#include "io/hdf5_io.hpp"
#include "tests/support/file_test.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv::io {
namespace {

namespace fs = std::filesystem;

class MatrixSource : public test::temp_dir_test {
 protected:
  MatrixSource() : temp_dir_test("matrix-source") {}
  std::string path(const std::string& name) const { return file(name); }
  void write_text(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
  }
  /// A small matrix with random values, empty-free rows and off-diagonal entries.
  static csr_matrix<double> sample() { return generate("gen:lognormal:60:1.5:0.7:5", 7); }

};

/// Runs `f`, expects bad_input, and returns its message ("" when nothing was thrown).
template <typename F>
std::string bad_input_message(F&& f) {
  try {
    f();
  } catch (const bad_input& e) {
    return e.what();
  }
  ADD_FAILURE() << "no bad_input thrown";
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- generators -----------------------------------------------------------------------------

TEST_F(MatrixSource, GeneratorsDispatchWithTheSeed) {
  const auto info = describe_source("gen:poisson3d:3");
  EXPECT_EQ(info.kind, "generator");
  EXPECT_EQ(info.rows, 27);
  EXPECT_EQ(info.cols, 27);
  EXPECT_EQ(info.nnz, 7 * 27 - 6 * 9);
  EXPECT_EQ(read_matrix("gen:poisson3d:3"), generate("gen:poisson3d:3"));
  EXPECT_EQ(read_matrix_rows("gen:stencil27:3", {5, 11}), generate_rows("gen:stencil27:3", {5, 11}));

  source_options seeded;
  seeded.seed = 5;
  EXPECT_EQ(read_matrix("gen:rmat:6:4", seeded), generate("gen:rmat:6:4", 5));
  EXPECT_EQ(read_matrix_rows("gen:rmat:6:4", {3, 40}, seeded), generate_rows("gen:rmat:6:4", {3, 40}, 5));
  EXPECT_FALSE(read_matrix("gen:rmat:6:4", seeded) == read_matrix("gen:rmat:6:4"));
}

TEST_F(MatrixSource, BadGeneratorSpecsAreBadInput) {
  EXPECT_TRUE(contains(bad_input_message([] { describe_source("gen:nothing:3"); }), "gen:nothing:3"));
  EXPECT_THROW(read_matrix("gen:poisson3d:0"), bad_input);
  EXPECT_THROW(read_matrix_rows("gen:poisson3d:2", {0, 9}), bad_input);
}

// ---- files: round trips ---------------------------------------------------------------------

TEST_F(MatrixSource, WriteAndReadBackThroughEveryExtension) {
  const auto a = sample();
  for (const std::string name : {"a.mtx", "a.mtx.gz", "a.h5", "a.hdf5", "a.petsc", "a.dat"}) {
    SCOPED_TRACE(name);
    const std::string file = path(name);
    write_matrix(file, a);
    const auto info = describe_source(file);
    EXPECT_EQ(info.kind, contains(name, ".mtx") ? "matrix-market"
                         : contains(name, ".h") ? "hdf5"
                                                : "petsc-binary");
    EXPECT_EQ(info.rows, a.rows);
    EXPECT_EQ(info.cols, a.cols);
    EXPECT_EQ(info.nnz, a.nnz());
    EXPECT_EQ(read_matrix(file), a);  // 17 significant digits in .mtx: exact
    for (const row_range r : {row_range{0, 60}, row_range{10, 33}, row_range{59, 60}, row_range{20, 20}}) {
      EXPECT_EQ(read_matrix_rows(file, r), slice_rows(a, r));
    }
    EXPECT_THROW(read_matrix_rows(file, {0, 61}), bad_input);
    EXPECT_THROW(read_matrix_rows(file, {5, 4}), bad_input);
  }
  // The gzip file is compressed (it starts with the gzip magic bytes).
  std::ifstream gz(path("a.mtx.gz"), std::ios::binary);
  EXPECT_EQ(gz.get(), 0x1f);
  EXPECT_EQ(gz.get(), 0x8b);
}

TEST_F(MatrixSource, ExtensionsAreCaseInsensitiveOnReading) {
  const auto a = sample();
  write_matrix(path("a.mtx"), a);
  write_matrix(path("a.h5"), a);
  fs::copy_file(path("a.mtx"), path("A.MTX"));
  fs::copy_file(path("a.h5"), path("A.HDF5"));
  EXPECT_EQ(read_matrix(path("A.MTX")), a);
  EXPECT_EQ(read_matrix(path("A.HDF5")), a);
}

TEST_F(MatrixSource, SymmetricMatrixMarketNnzIsEstimatedFromTheHeader) {
  const std::string file = test::test_data_dir() + "/symmetric_real_4x4.mtx";
  const auto info = describe_source(file);
  EXPECT_EQ(info.kind, "matrix-market");
  EXPECT_EQ(info.rows, 4);
  EXPECT_EQ(info.nnz, 14);  // 2 * 7 stored entries (exactly 10 once read)
  EXPECT_EQ(read_matrix(file).nnz(), 10);
}

TEST_F(MatrixSource, OptionsReachTheReaders) {
  write_text("nan.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 1\n");
  EXPECT_THROW(read_matrix(path("nan.mtx")), bad_input);
  source_options lenient;
  lenient.allow_nonfinite = true;
  EXPECT_EQ(read_matrix(path("nan.mtx"), lenient).nnz(), 2);

  const auto a = sample();
  h5_write_options other_group;
  other_group.group = "/B";
  write_hdf5(path("b.h5"), a, other_group);
  source_options group_b;
  group_b.h5_group = "/B";
  EXPECT_EQ(read_matrix(path("b.h5"), group_b), a);
  EXPECT_EQ(describe_source(path("b.h5"), group_b).nnz, a.nnz());
  source_options group_c;
  group_c.h5_group = "/C";
  EXPECT_THROW(read_matrix(path("b.h5"), group_c), bad_input);
}

// ---- files: sniffing and errors -------------------------------------------------------------

TEST_F(MatrixSource, UnknownExtensionsAreSniffed) {
  const auto a = sample();
  write_matrix(path("a.mtx"), a);
  write_matrix(path("a.mtx.gz"), a);
  write_matrix(path("a.h5"), a);
  fs::copy_file(path("a.mtx"), path("plain.data"));
  fs::copy_file(path("a.mtx.gz"), path("packed.gz"));
  fs::copy_file(path("a.h5"), path("matrix.bin"));
  fs::copy_file(path("a.h5"), path("matrix"));
  write_matrix(path("a.petsc"), a);
  fs::copy_file(path("a.petsc"), path("petsc_matrix"));
  EXPECT_EQ(describe_source(path("petsc_matrix")).kind, "petsc-binary");
  EXPECT_EQ(read_matrix_rows(path("petsc_matrix"), {4, 9}), slice_rows(a, {4, 9}));
  EXPECT_EQ(describe_source(path("plain.data")).kind, "matrix-market");
  EXPECT_EQ(describe_source(path("packed.gz")).kind, "matrix-market");
  EXPECT_EQ(describe_source(path("matrix.bin")).kind, "hdf5");
  EXPECT_EQ(read_matrix(path("plain.data")), a);
  EXPECT_EQ(read_matrix(path("packed.gz")), a);
  EXPECT_EQ(read_matrix(path("matrix.bin")), a);
  EXPECT_EQ(read_matrix_rows(path("matrix"), {4, 9}), slice_rows(a, {4, 9}));
  // The banner is matched without regard to case, as readers of the format do.
  write_text("lower.txt", "%%matrixmarket matrix coordinate real general\n1 1 1\n1 1 2.5\n");
  EXPECT_EQ(describe_source(path("lower.txt")).kind, "matrix-market");
}

TEST_F(MatrixSource, MatFilesMustBeHdf5) {
  const auto a = sample();
  write_matrix(path("a.h5"), a);
  fs::copy_file(path("a.h5"), path("a.mat"));
  EXPECT_EQ(describe_source(path("a.mat")).kind, "hdf5");
  EXPECT_EQ(read_matrix(path("a.mat")), a);
  write_text("old.mat", std::string("MATLAB 5.0 MAT-file, Platform: GLNXA64") + std::string(200, ' '));
  const std::string message = bad_input_message([&] { read_matrix(path("old.mat")); });
  EXPECT_TRUE(contains(message, "v7.3")) << message;
  EXPECT_TRUE(contains(message, path("old.mat"))) << message;
}

TEST_F(MatrixSource, Hdf5SignatureAfterAUserBlockIsFound) {
  // MATLAB v7.3 files put a 512-byte user block before the HDF5 superblock.
  const auto a = sample();
  write_matrix(path("a.h5"), a);
  std::ifstream in(path("a.h5"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write_text("shifted.bin", std::string(512, 'u') + bytes);
  // HDF5 finds the superblock there too, so the file reads as it was written.
  EXPECT_EQ(describe_source(path("shifted.bin")).kind, "hdf5");
  EXPECT_EQ(read_matrix(path("shifted.bin")), a);
}

TEST_F(MatrixSource, MissingFilesAndUnknownFormatsAreBadInput) {
  for (const std::string name : {"missing.mtx", "missing.h5", "missing.data", "missing"}) {
    const std::string message = bad_input_message([&] { describe_source(path(name)); });
    EXPECT_TRUE(contains(message, "no such file")) << message;
    EXPECT_TRUE(contains(message, path(name))) << message;
    EXPECT_THROW(read_matrix(path(name)), bad_input);
    EXPECT_THROW(read_matrix_rows(path(name), {0, 1}), bad_input);
  }
  write_text("notes.txt", "this is not a matrix\n");
  write_text("empty.bin", "");
  for (const std::string name : {"notes.txt", "empty.bin"}) {
    const std::string message = bad_input_message([&] { read_matrix(path(name)); });
    EXPECT_TRUE(contains(message, "unknown matrix format, expected .mtx, .mtx.gz, .h5, a PETSc binary file or gen:KIND:ARGS")) << message;
    EXPECT_TRUE(contains(message, path(name))) << message;
  }
  EXPECT_THROW(describe_source(dir_), bad_input);  // a directory
  EXPECT_THROW(describe_source(""), bad_input);
}

TEST_F(MatrixSource, WritingNeedsAKnownExtension) {
  const auto a = sample();
  for (const std::string name : {"a.txt", "a.gz", "a", "a.mat", "a.MTX"}) {
    const std::string message = bad_input_message([&] { write_matrix(path(name), a); });
    EXPECT_TRUE(contains(message, "unknown output format")) << message;
    EXPECT_FALSE(fs::exists(path(name)));
  }
  EXPECT_THROW(write_matrix("gen:poisson3d:3", a), bad_input);
}

}  // namespace
}  // namespace distspmv::io
