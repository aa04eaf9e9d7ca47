// HDF5 reader and writer: exact round trips, row-range reads, info, foreign layouts (MATLAB
// v7.3, Binsparse CSR/COO, scipy-style files with unsorted or repeated columns), and every kind
// of bad file, each built here with the HDF5 C API. Bad files must give a bad_input whose
// message names the file and the dataset (or attribute, or group) at fault.
#include "io/hdf5_io.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "common/errors.hpp"
#include "distspmv/config.hpp"
#include "io/detail/hdf5_handle.hpp"
#include "tests/support/file_test.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv::io {
namespace {

namespace fs = std::filesystem;
using namespace detail;

// ---- matrices --------------------------------------------------------------------------------

/// Random CSR with sorted unique columns, some empty rows and an occasional long row.
csr_matrix<double> random_csr(global_index_type rows, global_index_type cols, std::uint64_t seed,
                              int max_row = 12) {
  std::mt19937_64 rng(seed);
  csr_matrix<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(1, 0);
  test::uniform_real value(-1.0, 1.0);
  for (global_index_type r = 0; r < rows; ++r) {
    int length = cols == 0 ? 0 : std::uniform_int_distribution<int>(0, max_row)(rng);
    if (cols > 0 && std::uniform_int_distribution<int>(0, 50)(rng) == 0) length = 5 * max_row;
    std::vector<global_index_type> row;
    for (int k = 0; k < length; ++k) row.push_back(std::uniform_int_distribution<global_index_type>(0, cols - 1)(rng));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (const auto c : row) {
      a.col_idx.push_back(c);
      // Mix values that need all 53 bits with small integers and signed zeros' neighbours.
      a.values.push_back(std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? std::round(100 * value(rng))
                                                                            : value(rng) * 1e3);
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

/// The 4 x 5 matrix used by the hand-built files:
///   [ 1 . 2 . . ]
///   [ . . . . . ]
///   [ 3 4 . . 5 ]
///   [ . . . 6 . ]
csr_matrix<double> small_matrix() {
  csr_matrix<double> a;
  a.rows = 4;
  a.cols = 5;
  a.row_ptr = {0, 2, 2, 5, 6};
  a.col_idx = {0, 2, 0, 1, 4, 3};
  a.values = {1, 2, 3, 4, 5, 6};
  return a;
}

// ---- building files with the C API -----------------------------------------------------------

template <typename T>
hid_t memory_type() {
  if constexpr (std::is_same_v<T, std::int8_t>) return H5T_NATIVE_INT8;
  if constexpr (std::is_same_v<T, std::int32_t>) return H5T_NATIVE_INT32;
  if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
  if constexpr (std::is_same_v<T, std::uint64_t>) return H5T_NATIVE_UINT64;
  if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
}

/// A new HDF5 file for building test inputs, foreign layouts and broken ones alike.
class h5_builder {
 public:
  /// `user_block` bytes before the HDF5 data, as MATLAB v7.3 files have (512 bytes).
  explicit h5_builder(const std::string& path, hsize_t user_block = 0) {
    h5_plist create(H5Pcreate(H5P_FILE_CREATE));
    if (user_block > 0) H5Pset_userblock(create.get(), user_block);
    file_ = h5_file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, create.get(), H5P_DEFAULT));
    if (!file_) throw std::runtime_error("cannot create " + path);
  }
  hid_t file() const { return file_.get(); }

  /// Creates (or opens) a group; "/" is the root.
  hid_t group(const std::string& name) {
    if (name == "/") return file_.get();
    if (H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT) <= 0)
      groups_.emplace_back(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    else
      groups_.emplace_back(H5Gopen2(file_.get(), name.c_str(), H5P_DEFAULT));
    return groups_.back().get();
  }

  /// Dataset `name` under `location` with `dims` (1-D by default), stored as file_type.
  /// `mem_type` defaults to T's native type; give the file type to store raw bytes (strings).
  template <typename T>
  void dataset(hid_t location, const std::string& name, hid_t file_type, const std::vector<T>& values,
               std::vector<hsize_t> dims = {}, hid_t mem_type = -1) {
    if (mem_type < 0) mem_type = memory_type<T>();
    if (dims.empty()) dims = {values.size()};
    h5_space space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    h5_dataset d(H5Dcreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (!d || (!values.empty() && H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0))
      throw std::runtime_error("cannot write dataset " + name);
  }

  /// Integer (or float) array attribute.
  template <typename T>
  void attribute(hid_t location, const std::string& name, hid_t file_type, const std::vector<T>& values,
                 bool scalar = false) {
    const hsize_t n = values.size();
    h5_space space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr));
    h5_attribute a(H5Acreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!a || H5Awrite(a.get(), memory_type<T>(), values.data()) < 0)
      throw std::runtime_error("cannot write attribute " + name);
  }

  /// String attribute, variable-length UTF-8 (h5py's str) or fixed-length ASCII NULLPAD (numpy "S").
  void string_attribute(hid_t location, const std::string& name, const std::string& value, bool fixed = false) {
    h5_type type(H5Tcopy(H5T_C_S1));
    if (fixed) {
      H5Tset_size(type.get(), value.size());
      H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
    } else {
      H5Tset_size(type.get(), H5T_VARIABLE);
      H5Tset_cset(type.get(), H5T_CSET_UTF8);
    }
    h5_space space(H5Screate(H5S_SCALAR));
    h5_attribute a(H5Acreate2(location, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    const char* text = value.c_str();
    const herr_t status = fixed ? H5Awrite(a.get(), type.get(), value.data()) : H5Awrite(a.get(), type.get(), &text);
    if (!a || status < 0) throw std::runtime_error("cannot write attribute " + name);
  }

 private:
  h5_file file_;
  std::vector<h5_group> groups_;
};

/// Every piece of a native-layout file, each replaceable to build one defect at a time.
struct native_parts {
  std::string group = "/A";
  std::vector<std::int64_t> indptr{0, 2, 2, 5, 6};
  std::vector<std::int64_t> indices{0, 2, 0, 1, 4, 3};
  std::vector<double> data{1, 2, 3, 4, 5, 6};
  std::vector<std::int64_t> shape{4, 5};
  hid_t indptr_type = H5T_STD_I64LE;
  hid_t indices_type = H5T_STD_I32LE;
  bool write_shape = true, write_indices = true, fixed_strings = false;
  std::vector<hsize_t> indptr_dims;
};

void write_parts(const std::string& path, const native_parts& p) {
  h5_builder b(path);
  const hid_t g = b.group(p.group);
  if (p.write_shape) b.attribute(g, "shape", H5T_STD_I64LE, p.shape);
  b.string_attribute(g, "encoding-type", "csr_matrix", p.fixed_strings);
  b.string_attribute(g, "encoding-version", "0.1.0", p.fixed_strings);
  b.dataset(g, "indptr", p.indptr_type, p.indptr, p.indptr_dims);
  if (p.write_indices) b.dataset(g, "indices", p.indices_type, p.indices);
  b.dataset(g, "data", H5T_IEEE_F64LE, p.data);
}

// ---- fixture ---------------------------------------------------------------------------------

using test::expect_bad_input;

class Hdf5Test : public test::temp_dir_test {
 protected:
  Hdf5Test() : temp_dir_test("dspmv-hdf5") {}

  /// A native file with one defect must fail read_hdf5 (and, where it is a whole-file defect,
  /// read_hdf5_info) naming the file and `needles`.
  void expect_bad_native(const native_parts& parts, const std::vector<std::string>& needles, bool info_too = false) {
    const std::string path = file("bad.h5");
    write_parts(path, parts);
    expect_bad_input([&] { read_hdf5(path); }, path, needles);
    // All 4 rows: a range read checks only its own rows (and the indptr ends).
    expect_bad_input([&] { read_hdf5_rows(path, row_range{0, 4}); }, path, needles);
    if (info_too) expect_bad_input([&] { read_hdf5_info(path); }, path, needles);
  }

};

// ---- round trips -----------------------------------------------------------------------------

TEST_F(Hdf5Test, RoundTripIsExactForEveryIndexAndValueType) {
  const auto a = random_csr(300, 217, 7);
  for (const bool index64 : {false, true}) {
    for (const bool float32 : {false, true}) {
      SCOPED_TRACE(std::string(index64 ? "int64" : "int32") + (float32 ? " float32" : " float64"));
      const std::string path = file("rt.h5");
      h5_write_options options;
      options.index64 = index64;
      options.float32 = float32;
      write_hdf5(path, a, options);
      auto expected = a;
      if (float32)
        for (auto& v : expected.values) v = static_cast<double>(static_cast<float>(v));
      const auto b = read_hdf5(path);
      EXPECT_TRUE(b == expected);
      validate_csr(b, path);
      const auto info = read_hdf5_info(path);
      EXPECT_EQ(info.layout, h5_layout::native_csr);
      EXPECT_EQ(info.group, "/A");
      EXPECT_EQ(info.rows, 300);
      EXPECT_EQ(info.cols, 217);
      EXPECT_EQ(info.nnz, a.nnz());
      EXPECT_EQ(info.index_type, index64 ? "int64" : "int32");
      EXPECT_EQ(info.value_type, float32 ? "float32" : "float64");
    }
  }
}

TEST_F(Hdf5Test, RoundTripOfDegenerateShapes) {
  for (const auto& a : {random_csr(0, 0, 1), random_csr(5, 0, 2), random_csr(0, 9, 3), random_csr(40, 3, 4, 0),
                        random_csr(1, 1, 5), random_csr(3, 100000, 6, 500)}) {
    SCOPED_TRACE(std::to_string(a.rows) + " x " + std::to_string(a.cols) + " nnz " + std::to_string(a.nnz()));
    const std::string path = file("deg.h5");
    write_hdf5(path, a);
    EXPECT_TRUE(read_hdf5(path) == a);
    EXPECT_EQ(read_hdf5_row_ptr(path), a.row_ptr);
    EXPECT_TRUE(read_hdf5_rows(path, row_range{0, a.rows}) == a);
    EXPECT_EQ(read_hdf5_rows(path, row_range{a.rows, a.rows}).rows, 0);
  }
}

TEST_F(Hdf5Test, WideColumnsGetInt64IndicesAutomatically) {
  csr_matrix<double> a;
  a.rows = 2;
  a.cols = global_index_type{3} << 31;  // 6.4e9 columns: does not fit int32
  a.row_ptr = {0, 2, 3};
  a.col_idx = {5, a.cols - 1, global_index_type{1} << 32};
  a.values = {1.5, -2.25, 1e300};
  const std::string path = file("wide.h5");
  write_hdf5(path, a);
  EXPECT_EQ(read_hdf5_info(path).index_type, "int64");
  EXPECT_TRUE(read_hdf5(path) == a);
}

TEST_F(Hdf5Test, GroupsOtherThanA) {
  const auto a = random_csr(20, 20, 11);
  for (const std::string group : {"/", "/matrices/K", "M"}) {
    SCOPED_TRACE(group);
    const std::string path = file("g.h5");
    h5_write_options options;
    options.group = group;
    write_hdf5(path, a, options);
    const std::string normalized = group.front() == '/' ? group : "/" + group;
    h5_read_options read_options;
    read_options.group = group;
    EXPECT_TRUE(read_hdf5(path, read_options) == a);
    // Found without being told, except in a nested group (only /A, the root and its groups).
    if (group != "/matrices/K") {
      EXPECT_EQ(read_hdf5_info(path).group, normalized);
      EXPECT_TRUE(read_hdf5(path) == a);
    }
  }
}

TEST_F(Hdf5Test, NonFiniteValuesAreStoredAndReadOnlyWhenAllowed) {
  auto a = small_matrix();
  a.values[1] = std::numeric_limits<double>::quiet_NaN();
  a.values[4] = -std::numeric_limits<double>::infinity();
  const std::string path = file("nan.h5");
  write_hdf5(path, a);
  expect_bad_input([&] { read_hdf5(path); }, path, {"dataset /A/data", "non-finite"});
  h5_read_options allow;
  allow.allow_nonfinite = true;
  const auto b = read_hdf5(path, allow);
  EXPECT_TRUE(std::isnan(b.values[1]));
  EXPECT_EQ(b.values[4], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(b.col_idx, a.col_idx);
}

// ---- writer safety ---------------------------------------------------------------------------

bool has_temporary_files(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
}

TEST_F(Hdf5Test, WriterReplacesAnExistingFileAndLeavesNoTemporary) {
  const std::string path = file("replace.h5");
  write_hdf5(path, random_csr(50, 50, 1));
  const auto b = random_csr(10, 7, 2);
  write_hdf5(path, b);
  EXPECT_TRUE(read_hdf5(path) == b);
  EXPECT_FALSE(has_temporary_files(dir_));
}

TEST_F(Hdf5Test, WriterFailureLeavesNoFile) {
  // An invalid matrix is refused before any file is created.
  auto bad = small_matrix();
  bad.col_idx[1] = 9;
  const std::string path = file("refused.h5");
  EXPECT_THROW(write_hdf5(path, bad), bad_input);
  EXPECT_FALSE(fs::exists(path));
  // A directory that does not exist.
  const std::string nowhere = file("no/such/dir/x.h5");
  EXPECT_THROW(write_hdf5(nowhere, small_matrix()), error);
  EXPECT_FALSE(has_temporary_files(dir_));
  // The target is a directory: everything is written, the rename fails, the temporary goes.
  fs::create_directory(file("occupied.h5"));
  fs::create_directory(file("occupied.h5/inner"));
  EXPECT_THROW(write_hdf5(file("occupied.h5"), small_matrix()), error);
  EXPECT_FALSE(has_temporary_files(dir_));
}

// ---- row ranges ------------------------------------------------------------------------------

TEST_F(Hdf5Test, RowRangesEqualSlicesOfTheWhole) {
  const auto a = random_csr(1000, 640, 21, 30);
  const std::string path = file("ranges.h5");
  write_hdf5(path, a);
  const auto whole = read_hdf5(path);
  ASSERT_TRUE(whole == a);
  EXPECT_EQ(read_hdf5_row_ptr(path), a.row_ptr);
  std::mt19937_64 rng(99);
  std::vector<row_range> ranges = {{0, 0}, {0, 1000}, {1000, 1000}, {0, 1}, {999, 1000}, {500, 500}};
  for (int i = 0; i < 60; ++i) {
    global_index_type x = std::uniform_int_distribution<global_index_type>(0, 1000)(rng);
    global_index_type y = std::uniform_int_distribution<global_index_type>(0, 1000)(rng);
    ranges.push_back({std::min(x, y), std::max(x, y)});
  }
  for (const auto& r : ranges) {
    SCOPED_TRACE("[" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")");
    const auto s = read_hdf5_rows(path, r);
    EXPECT_TRUE(s == slice_rows(a, r));
    validate_csr(s, path);
  }
}

TEST_F(Hdf5Test, RowRangeOutsideTheMatrixIsAnError) {
  const std::string path = file("r.h5");
  write_hdf5(path, small_matrix());
  EXPECT_THROW(read_hdf5_rows(path, row_range{2, 5}), error);
  EXPECT_THROW(read_hdf5_rows(path, row_range{3, 2}), error);
  EXPECT_THROW(read_hdf5_rows(path, row_range{-1, 2}), error);
}

// ---- foreign native files --------------------------------------------------------------------

TEST_F(Hdf5Test, ScipyStyleFileWithInt32IndptrAndFixedStrings) {
  native_parts p;
  p.indptr_type = H5T_STD_I32LE;  // scipy keeps int32 indptr when nnz fits
  p.fixed_strings = true;
  const std::string path = file("scipy.h5");
  write_parts(path, p);
  EXPECT_TRUE(read_hdf5(path) == small_matrix());
  EXPECT_EQ(read_hdf5_info(path).index_type, "int32");
}

TEST_F(Hdf5Test, UnsortedAndRepeatedColumnsAreSortedAndSummed) {
  native_parts p;
  // Row 0: columns 2, 0; row 2: 4, 1, 0, 1 (column 1 twice: 4 = 1.5 + 2.5); row 3: 3.
  p.indptr = {0, 2, 2, 6, 7};
  p.indices = {2, 0, 4, 1, 0, 1, 3};
  p.data = {2, 1, 5, 1.5, 3, 2.5, 6};
  const std::string path = file("unsorted.h5");
  write_parts(path, p);
  const auto expected = small_matrix();
  EXPECT_TRUE(read_hdf5(path) == expected);
  EXPECT_TRUE(read_hdf5_rows(path, row_range{2, 4}) == slice_rows(expected, row_range{2, 4}));
  EXPECT_EQ(read_hdf5_info(path).nnz, 7);  // as stored
}

// Found by tests/fuzz/fuzz_hdf5 (issue 20): finite repeated entries that add up to Inf were
// accepted without allow_nonfinite (the values were checked before summing), in every layout.
TEST_F(Hdf5Test, RepeatedColumnsSummingToInfinityNeedAllowNonfinite) {
  native_parts p;
  p.indptr = {0, 2, 2, 5, 6};
  p.indices = {0, 0, 0, 1, 4, 3};
  p.data = {1e308, 1e308, 3, 4, 5, 6};
  const std::string path = file("overflow.h5");
  write_parts(path, p);
  expect_bad_input([&] { read_hdf5(path); }, path, {"dataset /A/data", "row 0, column 0", "add up to inf"});
  h5_read_options lenient;
  lenient.allow_nonfinite = true;
  EXPECT_EQ(read_hdf5(path, lenient).values[0], std::numeric_limits<double>::infinity());

  const std::string matlab = file("overflow.mat");
  {
    h5_builder b(matlab);
    const hid_t g = b.group("/A");
    b.attribute(g, "MATLAB_sparse", H5T_STD_U64LE, std::vector<std::uint64_t>{2}, true);
    b.dataset(g, "jc", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 0, 2});
    b.dataset(g, "ir", H5T_STD_U64LE, std::vector<std::uint64_t>{1, 1});
    b.dataset(g, "data", H5T_IEEE_F64LE, std::vector<double>{-1e308, -1e308});
  }
  expect_bad_input([&] { read_hdf5(matlab); }, matlab, {"dataset /A/data", "row 1, column 1", "add up to -inf"});
}

// ---- MATLAB v7.3 / PETSc ---------------------------------------------------------------------

/// small_matrix() in MATLAB's column-major sparse layout.
void write_matlab(const std::string& path, const std::string& group, bool empty = false) {
  h5_builder b(path, /*user_block=*/512);
  const hid_t g = b.group(group);
  b.attribute(g, "MATLAB_sparse", H5T_STD_U64LE, std::vector<std::uint64_t>{4}, /*scalar=*/true);
  b.string_attribute(g, "MATLAB_class", "double", /*fixed=*/true);
  if (empty) {
    b.dataset(g, "jc", H5T_STD_U64LE, std::vector<std::uint64_t>(6, 0));
    return;
  }
  // Columns: 0 -> rows 0, 2; 1 -> row 2; 2 -> row 0; 3 -> row 3; 4 -> row 2.
  b.dataset(g, "jc", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2, 3, 4, 5, 6});
  b.dataset(g, "ir", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2, 2, 0, 3, 2});
  b.dataset(g, "data", H5T_IEEE_F64LE, std::vector<double>{1, 3, 4, 2, 6, 5});
}

TEST_F(Hdf5Test, MatlabLayoutIsTransposedToCsr) {
  const std::string path = file("matlab.mat");
  write_matlab(path, "/K");
  const auto info = read_hdf5_info(path);
  EXPECT_EQ(info.layout, h5_layout::matlab);
  EXPECT_EQ(info.group, "/K");
  EXPECT_EQ(info.rows, 4);
  EXPECT_EQ(info.cols, 5);
  EXPECT_EQ(info.nnz, 6);
  EXPECT_EQ(info.index_type, "uint64");
  const auto expected = small_matrix();
  EXPECT_TRUE(read_hdf5(path) == expected);
  EXPECT_EQ(read_hdf5_row_ptr(path), expected.row_ptr);
  EXPECT_TRUE(read_hdf5_rows(path, row_range{1, 3}) == slice_rows(expected, row_range{1, 3}));
}

TEST_F(Hdf5Test, EmptyMatlabMatrixWithoutIrAndData) {
  const std::string path = file("empty.mat");
  write_matlab(path, "/A", /*empty=*/true);
  const auto a = read_hdf5(path);
  EXPECT_EQ(a.rows, 4);
  EXPECT_EQ(a.cols, 5);
  EXPECT_EQ(a.nnz(), 0);
}

TEST_F(Hdf5Test, MatlabRowIndexOutOfRange) {
  const std::string path = file("badmatlab.mat");
  {
    h5_builder b(path);
    const hid_t g = b.group("/A");
    b.attribute(g, "MATLAB_sparse", H5T_STD_U64LE, std::vector<std::uint64_t>{2}, true);
    b.dataset(g, "jc", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 1, 2});
    b.dataset(g, "ir", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2});
    b.dataset(g, "data", H5T_IEEE_F64LE, std::vector<double>{1, 2});
  }
  expect_bad_input([&] { read_hdf5(path); }, path, {"dataset /A/ir", "out of range"});
}

// ---- Binsparse -------------------------------------------------------------------------------

std::string binsparse_json(const std::string& format, bool nested, const std::string& values_type = "float64",
                           offset_type nnz = 6) {
  const std::string body = R"({"version": "0.1", "format": ")" + format + R"(", "shape": [4, 5], )" +
                           R"("number_of_stored_values": )" + std::to_string(nnz) +
                           R"(, "data_types": {"pointers_to_1": "uint64", "indices_0": "uint64", )" +
                           R"("indices_1": "uint64", "values": ")" + values_type + R"("}})";
  return nested ? R"({"binsparse": )" + body + "}" : body;
}

TEST_F(Hdf5Test, BinsparseCsr) {
  const std::string path = file("bsp_csr.h5");
  {
    h5_builder b(path);
    const hid_t g = b.group("/");
    b.string_attribute(g, "binsparse", binsparse_json("CSR", true));
    b.dataset(g, "pointers_to_1", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2, 2, 5, 6});
    b.dataset(g, "indices_1", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2, 0, 1, 4, 3});
    b.dataset(g, "values", H5T_IEEE_F64LE, std::vector<double>{1, 2, 3, 4, 5, 6});
  }
  const auto info = read_hdf5_info(path);
  EXPECT_EQ(info.layout, h5_layout::binsparse_csr);
  EXPECT_EQ(info.group, "/");
  const auto expected = small_matrix();
  EXPECT_TRUE(read_hdf5(path) == expected);
  EXPECT_EQ(read_hdf5_row_ptr(path), expected.row_ptr);
  for (global_index_type x = 0; x <= 4; ++x)
    for (global_index_type y = x; y <= 4; ++y)
      EXPECT_TRUE(read_hdf5_rows(path, row_range{x, y}) == slice_rows(expected, row_range{x, y}));
}

TEST_F(Hdf5Test, BinsparseCooUnorderedWithDuplicatesAndTopLevelKeys) {
  const std::string path = file("bsp_coo.h5");
  {
    h5_builder b(path);
    const hid_t g = b.group("/mat");
    b.string_attribute(g, "binsparse", binsparse_json("COO", false, "float64", 7), /*fixed=*/true);
    b.dataset(g, "indices_0", H5T_STD_I64LE, std::vector<std::int64_t>{3, 2, 0, 2, 0, 2, 2});
    b.dataset(g, "indices_1", H5T_STD_I32LE, std::vector<std::int32_t>{3, 4, 2, 1, 0, 0, 1});
    b.dataset(g, "values", H5T_IEEE_F32LE, std::vector<float>{6, 5, 2, 1, 1, 3, 3});  // (2,1): 1 + 3
  }
  EXPECT_EQ(read_hdf5_info(path).layout, h5_layout::binsparse_coo);
  const auto expected = small_matrix();
  EXPECT_TRUE(read_hdf5(path) == expected);
  EXPECT_TRUE(read_hdf5_rows(path, row_range{2, 3}) == slice_rows(expected, row_range{2, 3}));
  EXPECT_EQ(read_hdf5_row_ptr(path), expected.row_ptr);
}

TEST_F(Hdf5Test, BinsparseIsoValues) {
  const std::string path = file("bsp_iso.h5");
  {
    h5_builder b(path);
    const hid_t g = b.group("/A");
    b.string_attribute(g, "binsparse", binsparse_json("CSR", true, "iso[float64]"));
    b.dataset(g, "pointers_to_1", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2, 2, 5, 6});
    b.dataset(g, "indices_1", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2, 0, 1, 4, 3});
    b.dataset(g, "values", H5T_IEEE_F64LE, std::vector<double>{2.5});
  }
  auto expected = small_matrix();
  expected.values.assign(6, 2.5);
  EXPECT_TRUE(read_hdf5(path) == expected);
}

TEST_F(Hdf5Test, BinsparseBadDescriptors) {
  const std::string path = file("bsp_bad.h5");
  for (const std::string& json : {std::string("{not json"), binsparse_json("CSC", true), std::string(R"({"binsparse": {"format": "CSR"}})")}) {
    SCOPED_TRACE(json);
    {
      h5_builder b(path);
      b.string_attribute(b.group("/A"), "binsparse", json);
    }
    expect_bad_input([&] { read_hdf5(path); }, path, {"attribute binsparse of group /A"});
  }
  // number_of_stored_values disagrees with the datasets.
  {
    h5_builder b(path);
    const hid_t g = b.group("/A");
    b.string_attribute(g, "binsparse", binsparse_json("CSR", true, "float64", 5));
    b.dataset(g, "pointers_to_1", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2, 2, 5, 6});
    b.dataset(g, "indices_1", H5T_STD_U64LE, std::vector<std::uint64_t>{0, 2, 0, 1, 4, 3});
    b.dataset(g, "values", H5T_IEEE_F64LE, std::vector<double>{1, 2, 3, 4, 5, 6});
  }
  expect_bad_input([&] { read_hdf5(path); }, path, {"dataset /A/indices_1"});
}

// ---- bad inputs ------------------------------------------------------------------------------

TEST_F(Hdf5Test, MissingFile) {
  const std::string path = file("absent.h5");
  expect_bad_input([&] { read_hdf5(path); }, path, {"no such file"});
  expect_bad_input([&] { read_hdf5_info(path); }, path, {"no such file"});
}

TEST_F(Hdf5Test, NotAnHdf5File) {
  const std::string path = file("text.h5");
  std::ofstream(path) << "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1.0\n";
  expect_bad_input([&] { read_hdf5(path); }, path, {"not an HDF5 file"});
  const std::string empty = file("empty.h5");
  std::ofstream{empty};
  expect_bad_input([&] { read_hdf5(empty); }, empty, {"not an HDF5 file"});
  expect_bad_input([&] { read_hdf5(dir_); }, dir_, {"directory"});
}

TEST_F(Hdf5Test, TruncatedFile) {
  const std::string path = file("trunc.h5");
  write_hdf5(path, random_csr(2000, 2000, 5));
  const auto size = fs::file_size(path);
  for (const auto keep : {size - 1, size / 2, std::uintmax_t{2048}, std::uintmax_t{100}}) {
    SCOPED_TRACE(keep);
    const std::string cut = file("cut.h5");
    fs::copy_file(path, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, keep);
    expect_bad_input([&] { read_hdf5(cut); }, cut, {});
    expect_bad_input([&] { read_hdf5_info(cut); }, cut, {});
  }
}

TEST_F(Hdf5Test, MissingGroupOrMatrix) {
  const std::string path = file("nogroup.h5");
  write_hdf5(path, small_matrix());
  h5_read_options options;
  options.group = "/B";
  expect_bad_input([&] { read_hdf5(path, options); }, path, {"group /B", "does not exist"});
  options.group = "/A/indptr";  // a dataset, not a group
  expect_bad_input([&] { read_hdf5(path, options); }, path, {"group /A/indptr"});
  const std::string empty = file("nomatrix.h5");
  {
    h5_builder b(empty);
    b.group("/A");
    b.group("/other");
  }
  expect_bad_input([&] { read_hdf5(empty); }, empty, {"no sparse matrix found"});
  options.group = "/other";
  expect_bad_input([&] { read_hdf5(empty, options); }, empty, {"group /other", "holds no sparse matrix"});
}

TEST_F(Hdf5Test, MissingDataset) {
  native_parts p;
  p.write_indices = false;
  expect_bad_native(p, {"dataset /A/indices", "does not exist"}, true);
}

TEST_F(Hdf5Test, WrongDtypes) {
  {
    native_parts p;
    p.indices_type = H5T_IEEE_F64LE;
    expect_bad_native(p, {"dataset /A/indices", "float64"}, true);
  }
  {
    native_parts p;
    p.indices_type = H5T_STD_I8LE;
    expect_bad_native(p, {"dataset /A/indices", "int8"}, true);
  }
  {
    native_parts p;
    p.indptr_type = H5T_IEEE_F32LE;
    expect_bad_native(p, {"dataset /A/indptr", "float32"}, true);
  }
  {
    // String values.
    const std::string path = file("strdata.h5");
    {
      h5_builder b(path);
      const hid_t g = b.group("/A");
      b.attribute(g, "shape", H5T_STD_I64LE, std::vector<std::int64_t>{1, 1});
      b.dataset(g, "indptr", H5T_STD_I64LE, std::vector<std::int64_t>{0, 1});
      b.dataset(g, "indices", H5T_STD_I64LE, std::vector<std::int64_t>{0});
      h5_type text(H5Tcopy(H5T_C_S1));
      H5Tset_size(text.get(), 4);
      b.dataset(g, "data", text.get(), std::vector<std::int8_t>{'a', 'b', 'c', 'd'}, {1}, text.get());
    }
    expect_bad_input([&] { read_hdf5(path); }, path, {"dataset /A/data", "string"});
  }
  {
    // Complex values (a compound of two doubles, as h5py writes complex128).
    const std::string path = file("complex.h5");
    {
      h5_builder b(path);
      const hid_t g = b.group("/A");
      b.attribute(g, "shape", H5T_STD_I64LE, std::vector<std::int64_t>{1, 1});
      b.dataset(g, "indptr", H5T_STD_I64LE, std::vector<std::int64_t>{0, 1});
      b.dataset(g, "indices", H5T_STD_I64LE, std::vector<std::int64_t>{0});
      h5_type complex(H5Tcreate(H5T_COMPOUND, 16));
      H5Tinsert(complex.get(), "r", 0, H5T_NATIVE_DOUBLE);
      H5Tinsert(complex.get(), "i", 8, H5T_NATIVE_DOUBLE);
      b.dataset(g, "data", complex.get(), std::vector<double>{1.0, 2.0}, {1}, complex.get());
    }
    expect_bad_input([&] { read_hdf5(path); }, path, {"dataset /A/data", "complex"});
  }
}

TEST_F(Hdf5Test, WrongRank) {
  native_parts p;
  p.indptr = {0, 0, 2, 2, 5, 5, 6, 6, 6, 6};
  p.indptr_dims = {5, 2};
  expect_bad_native(p, {"dataset /A/indptr", "rank 2"}, true);
}

TEST_F(Hdf5Test, IndptrLengthNotRowsPlusOne) {
  native_parts p;
  p.indptr = {0, 2, 2, 5, 6, 6};
  expect_bad_native(p, {"dataset /A/indptr", "expected rows + 1 = 5"}, true);
}

TEST_F(Hdf5Test, IndptrDecreasing) {
  native_parts p;
  p.indptr = {0, 2, 1, 5, 6};
  const std::string path = file("dec.h5");
  write_parts(path, p);
  expect_bad_input([&] { read_hdf5(path); }, path, {"dataset /A/indptr", "decreases at row 1"});
  expect_bad_input([&] { read_hdf5_row_ptr(path); }, path, {"dataset /A/indptr", "decreases"});
  expect_bad_input([&] { read_hdf5_rows(path, row_range{1, 3}); }, path, {"dataset /A/indptr", "decreases"});
  // A range away from the defect reads fine: only the range and the ends are checked.
  EXPECT_NO_THROW(read_hdf5_rows(path, row_range{2, 4}));
}

TEST_F(Hdf5Test, IndptrEndsOrStartsWrong) {
  {
    native_parts p;
    p.indptr = {0, 2, 2, 5, 5};
    expect_bad_native(p, {"dataset /A/indptr", "ends at 5, expected nnz = 6"});
  }
  {
    native_parts p;
    p.indptr = {1, 2, 2, 5, 6};
    expect_bad_native(p, {"dataset /A/indptr", "starts at 1"});
  }
  {
    native_parts p;
    p.indptr = {0, 2, 9, 5, 6};
    expect_bad_native(p, {"dataset /A/indptr"});
  }
}

TEST_F(Hdf5Test, ColumnIndexOutOfRangeOrNegative) {
  {
    native_parts p;
    p.indices[4] = 5;
    expect_bad_native(p, {"dataset /A/indices", "column index 5", "out of range [0, 5)"});
  }
  {
    native_parts p;
    p.indices[0] = -1;
    expect_bad_native(p, {"dataset /A/indices", "column index -1"});
  }
}

TEST_F(Hdf5Test, DataLengthDiffers) {
  native_parts p;
  p.data = {1, 2, 3, 4, 5};
  expect_bad_native(p, {"dataset /A/data", "expected nnz = 6"}, true);
}

TEST_F(Hdf5Test, ShapeAttributeMissingOrWrong) {
  {
    native_parts p;
    p.write_shape = false;
    expect_bad_native(p, {"attribute shape of group /A", "missing"}, true);
  }
  {
    native_parts p;
    p.shape = {4, 5, 1};
    expect_bad_native(p, {"attribute shape of group /A", "3 entries"}, true);
  }
  {
    native_parts p;
    p.shape = {4, -5};
    expect_bad_native(p, {"attribute shape of group /A", "negative"}, true);
  }
  {
    native_parts p;
    p.shape = {4, 3};  // column 4 is now out of range
    expect_bad_native(p, {"dataset /A/indices", "out of range [0, 3)"});
  }
  {
    const std::string path = file("floatshape.h5");
    {
      h5_builder b(path);
      const hid_t g = b.group("/A");
      b.attribute(g, "shape", H5T_IEEE_F64LE, std::vector<double>{1, 1});
      b.dataset(g, "indptr", H5T_STD_I64LE, std::vector<std::int64_t>{0, 0});
      b.dataset(g, "indices", H5T_STD_I64LE, std::vector<std::int64_t>{});
      b.dataset(g, "data", H5T_IEEE_F64LE, std::vector<double>{});
    }
    expect_bad_input([&] { read_hdf5_info(path); }, path, {"attribute shape of group /A", "float64"});
  }
}

// Found by tests/fuzz/fuzz_hdf5 (issue 20): a shape of 2^63 - 1 rows overflowed rows + 1 (UB) in
// the check of indptr's length; a small file announcing a huge matrix ended in std::bad_alloc or
// std::length_error instead of a bad_input.
TEST_F(Hdf5Test, HugeShapesAreBadInputNotOverflowOrBadAlloc) {
  {
    native_parts p;
    p.shape = {std::numeric_limits<std::int64_t>::max(), 5};
    expect_bad_native(p, {"group /A", "too large"}, true);
  }
  const std::string path = file("huge.mat");
  {
    h5_builder b(path);
    const hid_t g = b.group("/A");
    b.attribute(g, "MATLAB_sparse", H5T_STD_I64LE, std::vector<std::int64_t>{std::int64_t{1} << 62}, true);
    b.dataset(g, "jc", H5T_STD_I64LE, std::vector<std::int64_t>{0, 1});
    b.dataset(g, "ir", H5T_STD_I64LE, std::vector<std::int64_t>{0});
    b.dataset(g, "data", H5T_IEEE_F64LE, std::vector<double>{1});
  }
  EXPECT_EQ(read_hdf5_info(path).rows, std::int64_t{1} << 62);
  expect_bad_input([&] { read_hdf5(path); }, path, {"group /A", "does not fit in memory"});
  expect_bad_input([&] { read_hdf5_row_ptr(path); }, path, {"group /A", "does not fit in memory"});
}

TEST_F(Hdf5Test, WrongEncodingType) {
  const std::string path = file("csc.h5");
  {
    h5_builder b(path);
    const hid_t g = b.group("/A");
    b.string_attribute(g, "encoding-type", "csc_matrix");
    b.attribute(g, "shape", H5T_STD_I64LE, std::vector<std::int64_t>{1, 1});
  }
  expect_bad_input([&] { read_hdf5(path); }, path, {"attribute encoding-type of group /A", "csc_matrix"});
}

TEST_F(Hdf5Test, CorruptedValuesAreCaughtNotCrashing) {
  // Overwrite the last bytes of the file (the data dataset is written last) with NaN patterns.
  const std::string path = file("corrupt.h5");
  write_hdf5(path, random_csr(100, 100, 8));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-16, std::ios::end);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    f.write(reinterpret_cast<const char*>(&nan), sizeof nan);
    f.write(reinterpret_cast<const char*>(&nan), sizeof nan);
  }
  expect_bad_input([&] { read_hdf5(path); }, path, {"dataset /A/data", "non-finite"});
}

// ---- h5py and scipy read our files; we read theirs ------------------------------------------

/// Triplets in CSR order, one "row col value" line each after a "rows cols nnz" line.
void write_triplets(const std::string& path, const csr_matrix<double>& a) {
  std::ofstream out(path);
  out.precision(17);
  out << a.rows << ' ' << a.cols << ' ' << a.nnz() << '\n';
  for (global_index_type r = 0; r < a.rows; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) out << r << ' ' << a.col_idx[k] << ' ' << a.values[k] << '\n';
}

csr_matrix<double> read_triplets(const std::string& path) {
  std::ifstream in(path);
  csr_matrix<double> a;
  offset_type nnz = 0;
  in >> a.rows >> a.cols >> nnz;
  a.row_ptr.assign(a.rows + 1, 0);
  for (offset_type k = 0; k < nnz; ++k) {
    global_index_type r = 0, c = 0;
    double v = 0;
    in >> r >> c >> v;
    ++a.row_ptr[r + 1];
    a.col_idx.push_back(c);
    a.values.push_back(v);
  }
  for (global_index_type r = 0; r < a.rows; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
  return a;
}

/// Runs tests/io/h5py_check.py with the system Python (which has h5py and scipy); skips when
/// that Python or its modules are missing (the script exits 77).
int run_h5py_check(const std::string& arguments) {
  const std::string python = DISTSPMV_SYSTEM_PYTHON3;
  if (python.empty() || !fs::exists(python)) return 77;
  const std::string command =
      python + " " + std::string(DISTSPMV_SOURCE_DIR) + "/tests/io/h5py_check.py " + arguments;
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(Hdf5Test, H5pyAndScipyReadOurFilesExactly) {
  const auto a = random_csr(257, 300, 31);
  for (const bool index64 : {false, true}) {
    for (const bool float32 : {false, true}) {
      const std::string h5 = file("ours.h5"), txt = file("ours.txt");
      h5_write_options options;
      options.index64 = index64;
      options.float32 = float32;
      options.group = index64 ? "/A" : "/data/M";
      write_hdf5(h5, a, options);
      auto expected = a;
      if (float32)
        for (auto& v : expected.values) v = static_cast<double>(static_cast<float>(v));
      write_triplets(txt, expected);
      const int rc = run_h5py_check("check " + h5 + " " + txt + " " + options.group);
      if (rc == 77) GTEST_SKIP() << "/usr/bin/python3 with h5py and scipy is not available";
      EXPECT_EQ(rc, 0) << "h5py_check.py failed for index64 " << index64 << " float32 " << float32;
    }
  }
}

TEST_F(Hdf5Test, WeReadFilesWrittenByH5pyAndScipy) {
  const std::string h5 = file("theirs.h5"), txt = file("theirs.txt");
  const int rc = run_h5py_check("write " + h5 + " " + txt);
  if (rc == 77) GTEST_SKIP() << "/usr/bin/python3 with h5py and scipy is not available";
  ASSERT_EQ(rc, 0);
  const auto expected = read_triplets(txt);
  EXPECT_TRUE(read_hdf5(h5) == expected);  // /A: canonical scipy CSR, int32 indptr
  h5_read_options options;
  options.group = "/B";  // reversed rows with split duplicates, fixed-length strings
  EXPECT_TRUE(read_hdf5(h5, options) == expected);
  options.group = "/C";  // int64 indptr and indices, float32 values
  const auto c = read_hdf5(h5, options);
  EXPECT_EQ(c.col_idx, expected.col_idx);
  for (std::size_t k = 0; k < c.values.size(); ++k)
    EXPECT_EQ(c.values[k], static_cast<double>(static_cast<float>(expected.values[k])));
}

}  // namespace
}  // namespace distspmv::io
