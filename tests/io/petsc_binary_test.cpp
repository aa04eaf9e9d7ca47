// Tests of the PETSc binary reader and writer (io/petsc_binary.hpp): the exact bytes of the
// format, round trips of the edge-case matrices whole and by row ranges at both index widths,
// vectors, what foreign files may hold (unsorted rows, a capped nz, a second object after the
// first), and one clear bad_input naming the file for each kind of damage. PETSc itself reads and
// writes these files in examples/petsc/petsc_binary_interop.cpp (label petsc).
#include "io/petsc_binary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "io/matrix_source.hpp"
#include "tests/support/file_test.hpp"
#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv::io {
namespace {

namespace fs = std::filesystem;
using test::expect_bad_input;

/// Big-endian bytes of a hand-made file.
class bytes {
 public:
  explicit bytes(int width = 4) : width_(width) {}
  bytes& integer(std::int64_t v) {
    for (int i = width_ - 1; i >= 0; --i) data_.push_back(static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff));
    return *this;
  }
  bytes& integers(const std::vector<std::int64_t>& vs) {
    for (const auto v : vs) integer(v);
    return *this;
  }
  bytes& real(double v) {
    std::uint64_t u;
    std::memcpy(&u, &v, 8);
    for (int i = 7; i >= 0; --i) data_.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    return *this;
  }
  bytes& reals(const std::vector<double>& vs) {
    for (const auto v : vs) real(v);
    return *this;
  }
  const std::string& str() const { return data_; }

 private:
  int width_;
  std::string data_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The 3 x 4 matrix [[1, 0, 2, 0], [0, 0, 0, 0], [0, 3, 0, -4.5]] as MatView writes it.
bytes small_matrix_file(int width = 4) {
  return bytes(width)
      .integers({1211216, 3, 4, 4})
      .integers({2, 0, 2})
      .integers({0, 2, 1, 3})
      .reals({1.0, 2.0, 3.0, -4.5});
}

csr_matrix<double> small_matrix() {
  csr_matrix<double> a;
  a.rows = 3;
  a.cols = 4;
  a.row_ptr = {0, 2, 2, 4};
  a.col_idx = {0, 2, 1, 3};
  a.values = {1.0, 2.0, 3.0, -4.5};
  return a;
}

class PetscBinaryTest : public test::temp_dir_test {
 protected:
  PetscBinaryTest() : temp_dir_test("petsc-binary") {}
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(file(name), std::ios::binary) << content;
    return file(name);
  }

  /// A damaged matrix file must fail read_petsc_matrix and read_matrix, naming it and `needles`.
  void expect_bad_matrix(const std::string& name, const std::string& content, const std::vector<std::string>& needles) {
    SCOPED_TRACE(name);
    const std::string path = write(name, content);
    expect_bad_input([&] { read_petsc_matrix(path); }, path, needles);
    expect_bad_input([&] { read_matrix(path); }, path, needles);
  }
};

// ---- the format ------------------------------------------------------------------------------

TEST_F(PetscBinaryTest, WritesTheBytesMatViewWrites) {
  write_petsc_matrix(file("a.petsc"), small_matrix());
  EXPECT_EQ(read_file(file("a.petsc")), small_matrix_file().str());
  petsc_write_options wide;
  wide.index64 = true;
  write_petsc_matrix(file("a64.petsc"), small_matrix(), wide);
  EXPECT_EQ(read_file(file("a64.petsc")), small_matrix_file(8).str());

  write_petsc_vector(file("x.petsc"), {0.5, -2.0, 1e300});
  EXPECT_EQ(read_file(file("x.petsc")), bytes().integers({1211214, 3}).reals({0.5, -2.0, 1e300}).str());
  write_petsc_vector(file("x64.petsc"), {7.0}, wide);
  EXPECT_EQ(read_file(file("x64.petsc")), bytes(8).integers({1211214, 1}).real(7.0).str());
  // No temporary file is left beside them.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 4);
}

TEST_F(PetscBinaryTest, ReadsHandMadeFilesOfBothWidths) {
  for (const int width : {4, 8}) {
    SCOPED_TRACE(width);
    const std::string path = write("m" + std::to_string(width), small_matrix_file(width).str());
    const petsc_info info = describe_petsc(path);
    EXPECT_EQ(info.object, petsc_object::matrix);
    EXPECT_EQ(info.index_bytes, width);
    EXPECT_EQ(info.rows, 3);
    EXPECT_EQ(info.cols, 4);
    EXPECT_EQ(info.nnz, 4);
    EXPECT_EQ(read_petsc_matrix(path), small_matrix());
    EXPECT_EQ(read_petsc_matrix_rows(path, {1, 3}), slice_rows(small_matrix(), {1, 3}));
    EXPECT_EQ(read_petsc_row_ptr(path), small_matrix().row_ptr);
    // Found by content through the common entry point, whatever the name.
    EXPECT_EQ(detect_format(path), source_format::petsc_binary);
    EXPECT_EQ(describe_source(path).kind, "petsc-binary");
    EXPECT_EQ(read_matrix(path), small_matrix());
  }
}

// ---- round trips -----------------------------------------------------------------------------

TEST_F(PetscBinaryTest, EdgeCaseMatricesRoundTripWholeAndByRows) {
  for (const auto& [name, local] : test::edge_case_matrices()) {
    const auto a = convert_csr<double, global_index_type>(local);
    for (const bool index64 : {false, true}) {
      SCOPED_TRACE(name + (index64 ? " int64" : " int32"));
      const std::string path = file(name + ".petsc");
      petsc_write_options options;
      options.index64 = index64;
      write_petsc_matrix(path, a, options);
      const petsc_info info = describe_petsc(path, petsc_object::matrix);
      EXPECT_EQ(info.index_bytes, index64 ? 8 : 4);
      EXPECT_EQ(info.rows, a.rows);
      EXPECT_EQ(info.cols, a.cols);
      EXPECT_EQ(info.nnz, a.nnz());
      EXPECT_EQ(read_petsc_matrix(path), a);
      EXPECT_EQ(read_petsc_row_ptr(path), a.row_ptr);
      const global_index_type n = a.rows;
      // Ranges near either end take their offset from the shorter side.
      for (const row_range r : {row_range{0, n}, row_range{0, n / 3}, row_range{n / 3, 2 * n / 3},
                                row_range{2 * n / 3, n}, row_range{n, n}, row_range{n / 2, n / 2},
                                row_range{n > 0 ? n - 1 : 0, n}}) {
        EXPECT_EQ(read_petsc_matrix_rows(path, r), slice_rows(a, r)) << "[" << r.begin << ", " << r.end << ")";
      }
    }
  }
}

TEST_F(PetscBinaryTest, VectorsRoundTripWholeAndByRanges) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1001}}) {
    const auto x = test::random_vector<double>(n, 3);
    for (const bool index64 : {false, true}) {
      SCOPED_TRACE(std::to_string(n) + (index64 ? " int64" : " int32"));
      petsc_write_options options;
      options.index64 = index64;
      write_petsc_vector(file("x.petsc"), x, options);
      const petsc_info info = describe_petsc(file("x.petsc"), petsc_object::vector);
      EXPECT_EQ(info.object, petsc_object::vector);
      EXPECT_EQ(info.rows, static_cast<global_index_type>(n));
      EXPECT_EQ(read_petsc_vector(file("x.petsc")), x);
      const auto end = static_cast<global_index_type>(n);
      EXPECT_EQ(read_petsc_vector_rows(file("x.petsc"), {end / 3, end}),
                std::vector<double>(x.begin() + end / 3, x.end()));
      EXPECT_THROW(read_petsc_vector_rows(file("x.petsc"), {0, end + 1}), error);
    }
  }
}

// ---- what foreign files may hold -------------------------------------------------------------

TEST_F(PetscBinaryTest, UnsortedRowsAreSortedAndRepeatedColumnsSummed) {
  const std::string path = write("unsorted", bytes()
                                                 .integers({1211216, 2, 5, 5})
                                                 .integers({3, 2})
                                                 .integers({4, 1, 4, 2, 0})
                                                 .reals({1.0, 2.0, 0.5, 3.0, 4.0})
                                                 .str());
  csr_matrix<double> expected;
  expected.rows = 2;
  expected.cols = 5;
  expected.row_ptr = {0, 2, 4};
  expected.col_idx = {1, 4, 0, 2};
  expected.values = {2.0, 1.5, 4.0, 3.0};
  EXPECT_EQ(read_petsc_matrix(path), expected);
  EXPECT_EQ(read_petsc_matrix_rows(path, {1, 2}), slice_rows(expected, {1, 2}));
}

TEST_F(PetscBinaryTest, AMatrixFollowedByAVectorReads) {
  // PETSc programs often MatView and VecView into one file: the vector after the matrix is ignored.
  const std::string path = write("system.dat", small_matrix_file().str() + bytes().integers({1211214, 2}).reals({1, 2}).str());
  EXPECT_EQ(read_matrix(path), small_matrix());
}

TEST_F(PetscBinaryTest, A32BitNzCappedAtIntMaxIsTakenFromTheRowLengths) {
  auto capped = small_matrix_file().str();
  const std::string max32 = bytes().integer(std::numeric_limits<std::int32_t>::max()).str();
  capped.replace(12, 4, max32);
  const std::string path = write("capped.petsc", capped);
  EXPECT_EQ(describe_petsc(path).nnz, 4);
  EXPECT_EQ(read_petsc_matrix(path), small_matrix());
  EXPECT_EQ(read_petsc_matrix_rows(path, {2, 3}), slice_rows(small_matrix(), {2, 3}));
}

TEST_F(PetscBinaryTest, NonFiniteValuesNeedAllowNonfinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  auto a = small_matrix();
  a.values[2] = nan;
  write_petsc_matrix(file("nan.petsc"), a);  // stored as it is: the reader decides
  expect_bad_input([&] { read_petsc_matrix(file("nan.petsc")); }, file("nan.petsc"), {"values", "non-finite", "row 2"});
  expect_bad_input([&] { read_matrix_rows(file("nan.petsc"), {2, 3}); }, file("nan.petsc"), {"non-finite"});
  EXPECT_EQ(read_petsc_matrix_rows(file("nan.petsc"), {0, 2}), slice_rows(a, {0, 2}));  // not in these rows
  petsc_read_options lenient;
  lenient.allow_nonfinite = true;
  EXPECT_TRUE(std::isnan(read_petsc_matrix(file("nan.petsc"), lenient).values[2]));

  write_petsc_vector(file("inf.petsc"), {1.0, inf});
  expect_bad_input([&] { read_petsc_vector(file("inf.petsc")); }, file("inf.petsc"), {"values", "non-finite", "entry 1"});
  EXPECT_EQ(read_petsc_vector_rows(file("inf.petsc"), {0, 1}), std::vector<double>{1.0});
  EXPECT_EQ(read_petsc_vector(file("inf.petsc"), lenient)[1], inf);
}

TEST_F(PetscBinaryTest, RepeatedColumnsSummingToInfinityNeedAllowNonfinite) {
  // Found by tests/fuzz/fuzz_hdf5 in the reader code the PETSc reader shares: every value is
  // finite, but row 1's two entries of column 0 add up to Inf.
  const std::string path = write("overflow.petsc", bytes()
                                                       .integers({1211216, 2, 2, 3})
                                                       .integers({1, 2})
                                                       .integers({1, 0, 0})
                                                       .reals({1.0, 1e308, 1e308})
                                                       .str());
  expect_bad_input([&] { read_petsc_matrix(path); }, path, {"values", "row 1, column 0", "add up to inf"});
  expect_bad_input([&] { read_petsc_matrix_rows(path, {1, 2}); }, path, {"row 1, column 0"});
  petsc_read_options lenient;
  lenient.allow_nonfinite = true;
  EXPECT_EQ(read_petsc_matrix(path, lenient).values[1], std::numeric_limits<double>::infinity());
}

// ---- bad files -------------------------------------------------------------------------------

TEST_F(PetscBinaryTest, TruncatedFilesAreReportedAtEveryCut) {
  const std::string whole = small_matrix_file().str();
  // Cuts in the header, the row lengths, the columns and the values.
  for (const std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{6}, std::size_t{15}, std::size_t{20},
                                std::size_t{30}, std::size_t{40}, whole.size() - 1}) {
    const std::vector<std::string> needles =
        cut < 4 ? std::vector<std::string>{"not a PETSc binary file"} : std::vector<std::string>{"truncated"};
    const std::string name = "cut" + std::to_string(cut) + ".petsc";  // by name: content cannot tell
    expect_bad_matrix(name, whole.substr(0, cut), needles);
  }
  const std::string vector = bytes().integers({1211214, 3}).reals({1, 2, 3}).str();
  const std::string path = write("short_vector.petsc", vector.substr(0, vector.size() - 8));
  expect_bad_input([&] { read_petsc_vector(path); }, path, {"truncated", "vector of length 3"});
}

TEST_F(PetscBinaryTest, WrongClassIdsAreRefused) {
  expect_bad_matrix("is.petsc", bytes().integers({1211218, 2, 0, 1}).str(), {"header", "class id 1211218"});
  const std::string vector = write("x.petsc", bytes().integers({1211214, 1}).real(1).str());
  expect_bad_input([&] { read_petsc_matrix(vector); }, vector, {"holds a PETSc vector, not a matrix"});
  expect_bad_input([&] { describe_source(vector); }, vector, {"holds a PETSc vector, not a matrix"});
  const std::string matrix = write("a.petsc", small_matrix_file().str());
  expect_bad_input([&] { read_petsc_vector(matrix); }, matrix, {"holds a PETSc matrix, not a vector"});
  // Without the extension, neither class id: not recognized at all.
  const std::string other = write("other.dat", bytes().integers({1211218, 2, 0, 1}).str());
  expect_bad_input([&] { read_matrix(other); }, other, {"unknown matrix format"});
}

TEST_F(PetscBinaryTest, NegativeSizesAreRefused) {
  expect_bad_matrix("rows.petsc", bytes().integers({1211216, -3, 4, 0}).str(), {"header", "negative size"});
  expect_bad_matrix("nz.petsc", bytes().integers({1211216, 0, 4, -1}).str(), {"header", "negative size"});
  const std::string path = write("n.petsc", bytes().integers({1211214, -1}).str());
  expect_bad_input([&] { read_petsc_vector(path); }, path, {"header", "negative length -1"});
}

TEST_F(PetscBinaryTest, ColumnsOutOfRangeAreRefused) {
  for (const std::int64_t column : {std::int64_t{4}, std::int64_t{-1}}) {
    const std::string content =
        bytes().integers({1211216, 3, 4, 4}).integers({2, 0, 2}).integers({0, 2, 1, column}).reals({1, 2, 3, 4}).str();
    expect_bad_matrix("col" + std::to_string(column) + ".petsc", content,
                      {"column indices", "column index " + std::to_string(column) + " of row 2", "out of range [0, 4)"});
  }
}

TEST_F(PetscBinaryTest, RowLengthsMustAddUpToNz) {
  // A range read checks the lengths it reads (no negative one, none past nz); only the whole read
  // and the row pointer see them all and check their sum.
  const auto fewer = bytes().integers({1211216, 3, 4, 4}).integers({1, 0, 2}).integers({0, 2, 1, 3}).reals({1, 2, 3, 4});
  expect_bad_matrix("fewer.petsc", fewer.str(), {"row lengths", "nz = 4", "add up to 3"});
  expect_bad_input([&] { read_petsc_row_ptr(file("fewer.petsc")); }, file("fewer.petsc"), {"row lengths", "add up to 3"});
  const auto more = bytes().integers({1211216, 3, 4, 4}).integers({2, 1, 2}).integers({0, 2, 1, 3}).reals({1, 2, 3, 4});
  expect_bad_matrix("more.petsc", more.str(), {"row lengths", "rows 0 to 2 alone hold more than nz = 4"});
  const auto huge = bytes().integers({1211216, 3, 4, 4}).integers({2, 9, 2}).integers({0, 2, 1, 3}).reals({1, 2, 3, 4});
  const std::string path = write("huge.petsc", huge.str());
  expect_bad_input([&] { read_petsc_matrix_rows(path, {1, 2}); }, path, {"row lengths", "more than nz = 4"});
  const auto negative = bytes().integers({1211216, 3, 4, 4}).integers({2, -1, 3}).integers({0, 2, 1, 3}).reals({1, 2, 3, 4});
  expect_bad_matrix("negative.petsc", negative.str(), {"row lengths", "row 1 has negative length -1"});
}

TEST_F(PetscBinaryTest, OtherScalarTypesAreNamed) {
  const auto head = bytes().integers({1211216, 1, 2, 2}).integers({2}).integers({0, 1});
  std::string single = head.str() + std::string(8, '\0');  // two 4-byte floats
  expect_bad_matrix("single.petsc", single, {"values", "single precision"});
  std::string complex = head.str() + bytes().reals({1, 0, 2, 0}).str();  // two complex values
  expect_bad_matrix("complex.petsc", complex, {"values", "complex"});
}

TEST_F(PetscBinaryTest, FailedWritesLeaveNoFile) {
  auto bad = small_matrix();
  bad.col_idx[1] = 9;
  EXPECT_THROW(write_petsc_matrix(file("bad.petsc"), bad), bad_input);
  EXPECT_THROW(write_petsc_matrix(file("missing/a.petsc"), small_matrix()), bad_input);
  EXPECT_THROW(write_petsc_vector(file("missing/x.petsc"), {1.0}), bad_input);
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace distspmv::io
