// Tests of the dense vector files (io/vector_io.hpp): round trips of the three formats, whole and
// by ranges, float32 input and output, a file written slice by slice as the ranks write it, the
// .npy bytes numpy writes, what foreign files may hold (version 2.0 headers, N x 1 shapes, other
// dataset names), and one clear bad_input naming the file for each kind of damage. With the
// system's numpy, numpy reads our .npy files and we read numpy's.
#include "io/vector_io.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "io/detail/hdf5_handle.hpp"
#include "io/matrix_source.hpp"
#include "io/petsc_binary.hpp"
#include "tests/support/file_test.hpp"

namespace distspmv::io {
namespace {

namespace fs = std::filesystem;
using test::expect_bad_input;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

/// Entries that lose bits in any rounding: negative, tiny, huge, and a zero.
std::vector<double> sample(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = (i % 3 == 0 ? -1.0 : 1.0) * std::pow(1.7, static_cast<double>(i % 40) - 20) / 3.0;
  if (n > 5) v[5] = 0.0;
  return v;
}

/// A hand-made .npy file: magic, version, little-endian header length, the header text as
/// given (padding included), then `data`.
std::string npy_file(const std::string& header, const std::string& data, int major = 1) {
  std::string s("\x93NUMPY", 6);
  s += static_cast<char>(major);
  s += '\0';
  const auto n = static_cast<std::uint32_t>(header.size());
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) s += static_cast<char>((n >> (8 * i)) & 0xff);
  return s + header + data;
}

template <typename T>
std::string little_endian_bytes(const std::vector<double>& v) {
  std::string s;
  for (const double x : v) {
    const T t = static_cast<T>(x);
    s.append(reinterpret_cast<const char*>(&t), sizeof t);  // the test machines are little-endian
  }
  return s;
}

/// Writes the 1-D (or rank-2 `dims`) dataset `name` of doubles, converted to `file_type`.
void write_h5_dataset(const std::string& path, const std::vector<std::pair<std::string, std::vector<hsize_t>>>& sets,
                      const std::vector<double>& values, hid_t file_type = H5T_IEEE_F64LE) {
  using namespace detail;
  h5_file file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  ASSERT_TRUE(file.valid());
  for (const auto& [name, dims] : sets) {
    h5_plist lcpl(H5Pcreate(H5P_LINK_CREATE));
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    h5_space space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    h5_dataset set(H5Dcreate2(file.get(), name.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(set.valid()) << name;
    hsize_t count = 1;
    for (auto d : dims) count *= d;
    ASSERT_LE(count, values.size());
    ASSERT_GE(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  }
}

class VectorIo : public test::temp_dir_test {
 protected:
  VectorIo() : temp_dir_test("vector_io") {}
};

// ---- round trips ------------------------------------------------------------------------------

TEST_F(VectorIo, RoundTripsEveryFormatExactlyWholeAndByRanges) {
  const auto v = sample(1000);
  for (const std::string name : {"v.npy", "v.h5", "v.hdf5", "v.petsc", "v.dat", "V.NPY"}) {
    const std::string path = file(name);
    write_vector(path, v);
    EXPECT_EQ(read_vector(path), v) << name;
    const vector_info info = describe_vector(path);
    EXPECT_EQ(info.length, 1000) << name;
    EXPECT_EQ(info.value_type, "float64") << name;
    for (const row_range r :
         {row_range{0, 0}, row_range{0, 1}, row_range{17, 501}, row_range{999, 1000}, row_range{1000, 1000}}) {
      const auto part = read_vector_rows(path, r);
      EXPECT_EQ(part, std::vector<double>(v.begin() + r.begin, v.begin() + r.end))
          << name << " [" << r.begin << ", " << r.end << ")";
    }
  }
  EXPECT_EQ(describe_vector(file("v.h5")).dataset, "/y");  // the writer's default name, found by the reader
  EXPECT_EQ(describe_vector(file("v.npy")).format, vector_format::npy);
  EXPECT_EQ(describe_vector(file("v.dat")).format, vector_format::petsc_binary);
}

TEST_F(VectorIo, EmptyVectorsRoundTrip) {
  for (const std::string name : {"e.npy", "e.h5", "e.petsc"}) {
    write_vector(file(name), {});
    EXPECT_EQ(describe_vector(file(name)).length, 0) << name;
    EXPECT_TRUE(read_vector(file(name)).empty()) << name;
  }
}

TEST_F(VectorIo, Float32OutputAndInputRoundToFloat) {
  const auto v = sample(300);
  vector_write_options w;
  w.float32 = true;
  for (const std::string name : {"f.npy", "f.h5"}) {
    write_vector(file(name), v, w);
    EXPECT_EQ(describe_vector(file(name)).value_type, "float32") << name;
    const auto back = read_vector(file(name));
    ASSERT_EQ(back.size(), v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      EXPECT_EQ(back[i], static_cast<double>(static_cast<float>(v[i]))) << name << " " << i;
  }
  // PETSc binary vectors hold doubles only: float32 is ignored there.
  write_vector(file("f.petsc"), v, w);
  EXPECT_EQ(read_vector(file("f.petsc")), v);
}

TEST_F(VectorIo, WrittenSliceBySliceInAnyOrderEqualsTheWhole) {
  const auto v = sample(777);
  for (const std::string name : {"s.npy", "s.h5:/deep/group/s", "s.petsc"}) {
    vector_output out = plan_vector_output(file(name), 777);
    create_vector_file(out);
    EXPECT_FALSE(fs::exists(out.path)) << "nothing under the target name before commit";
    EXPECT_TRUE(fs::exists(out.temporary));
    // What three ranks would write, the last first; one rank owns nothing.
    write_vector_slice(out, 500, v.data() + 500, 277);
    write_vector_slice(out, 0, v.data(), 300);
    write_vector_slice(out, 300, v.data() + 300, 0);
    write_vector_slice(out, 300, v.data() + 300, 200);
    commit_vector_file(out);
    EXPECT_FALSE(fs::exists(out.temporary));
    EXPECT_EQ(read_vector(file(name)), v) << name;
  }
}

TEST_F(VectorIo, DiscardLeavesNoFile) {
  vector_output out = plan_vector_output(file("d.npy"), 10);
  create_vector_file(out);
  discard_vector_file(out);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(VectorIo, PetscFilesAreThoseOfThePetscWriter) {
  const auto v = sample(50);
  write_vector(file("ours.petsc"), v);
  write_petsc_vector(file("petsc.petsc"), v);
  EXPECT_EQ(read_file(file("ours.petsc")), read_file(file("petsc.petsc")));
  EXPECT_EQ(read_petsc_vector(file("ours.petsc")), v);
}

// ---- .npy ---------------------------------------------------------------------------------------

TEST_F(VectorIo, NpyHeaderIsWhatNumpySaveWrites) {
  write_vector(file("h.npy"), {1.5, -2.0, 0.25});
  const std::string bytes = read_file(file("h.npy"));
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(static_cast<unsigned char>(bytes[8]) + 256 * static_cast<unsigned char>(bytes[9]), 118);
  const std::string text = bytes.substr(10, 118);
  EXPECT_EQ(text.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 0), 0u) << text;
  EXPECT_EQ(text.back(), '\n');
  double first;
  std::memcpy(&first, bytes.data() + 128, 8);
  EXPECT_EQ(first, 1.5);
}

TEST_F(VectorIo, NpyReadsForeignHeaders) {
  const std::vector<double> v = {1, -2, 3.5, 4};
  // Version 2.0, double quotes, keys in another order, no trailing comma, no padding.
  write_file(file("v2.npy"), npy_file("{\"shape\": (4,), \"fortran_order\": False, \"descr\": \"<f8\"}\n",
                                      little_endian_bytes<double>(v), 2));
  EXPECT_EQ(read_vector(file("v2.npy")), v);
  // Version 3.0 (UTF-8 header) reads the same.
  write_file(file("v3.npy"), npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }\n",
                                      little_endian_bytes<double>(v), 3));
  EXPECT_EQ(read_vector(file("v3.npy")), v);
  // float32, a column vector in Fortran order (same bytes), Python 2's long literal.
  write_file(file("col.npy"), npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (4L, 1L), }   \n",
                                       little_endian_bytes<float>(v)));
  EXPECT_EQ(read_vector(file("col.npy")), v);
  EXPECT_EQ(describe_vector(file("col.npy")).value_type, "float32");
  write_file(file("row.npy"),
             npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 4), }\n", little_endian_bytes<double>(v)));
  EXPECT_EQ(read_vector_rows(file("row.npy"), {1, 3}), (std::vector<double>{-2, 3.5}));
  // Bytes after the entries are ignored, as numpy.load ignores them.
  write_file(file("tail.npy"), npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }\n",
                                        little_endian_bytes<double>(v) + "junk"));
  EXPECT_EQ(read_vector(file("tail.npy")), v);
}

TEST_F(VectorIo, NpyDamageIsOneClearErrorEach) {
  const std::string data = little_endian_bytes<double>({1, 2, 3});
  const std::string good = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\n";
  struct bad_case {
    std::string bytes;
    std::vector<std::string> needles;
  };
  const std::vector<bad_case> cases = {
      {"NUMPY\x01\x00 not at all", {"header", "bad magic", "not a NumPy .npy file"}},
      {std::string("\x93NUM", 4), {"bad magic"}},
      {std::string("\x93NUMPY\x01", 7), {"truncated file", "7 bytes"}},
      {npy_file(good, data, 4), {"format version 4.0 is not supported"}},
      {npy_file(good, data).substr(0, 40), {"truncated file", "40 bytes", "the header announces 68"}},
      {npy_file(good, data.substr(0, 20)), {"values", "truncated file", "88 bytes", "shape (3,) of '<f8' takes 92"}},
      {npy_file("{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }\n", data), {"dtype '>f8' is big-endian"}},
      {npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }\n", data),
       {"dtype '<i8' is not supported", "'<f8'"}},
      {npy_file("{'descr': '<c16', 'fortran_order': False, 'shape': (3,), }\n", data),
       {"dtype '<c16' is not supported"}},
      {npy_file("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3,), }\n", data), {"structured dtype"}},
      {npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }\n", data),
       {"shape (3, 4)", "expected a vector"}},
      {npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n", data), {"shape ()", "expected a vector"}},
      {npy_file("{'descr': '<f8', 'shape': (3,), }\n", data), {"no 'fortran_order' key"}},
      {npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'extra': 1}\n", data),
       {"unexpected key 'extra'"}},
      {npy_file("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (3,)}\n", data),
       {"'descr' appears twice"}},
      {npy_file("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (3,), }\n", data), {"must be True or False"}},
      {npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (-3,), }\n", data), {"non-negative integers"}},
      {npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (3,) ", data), {"expected ',' or '}'"}},
      {npy_file("['descr', '<f8']\n", data), {"expected a dictionary"}},
      {npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), } x\n", data), {"text after the dictionary"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = file("bad" + std::to_string(i) + ".npy");
    write_file(path, cases[i].bytes);
    SCOPED_TRACE("case " + std::to_string(i));
    expect_bad_input([&] { read_vector(path); }, path, cases[i].needles);
    expect_bad_input([&] { describe_vector(path); }, path, cases[i].needles);
  }
}

// ---- HDF5 ---------------------------------------------------------------------------------------

TEST_F(VectorIo, Hdf5FindsTheDatasetByNameDefaultOrAlone) {
  const auto v = sample(20);
  write_h5_dataset(file("alone.h5"), {{"/group/values", {20}}}, v);
  EXPECT_EQ(read_vector(file("alone.h5")), v);  // the only 1-D dataset, wherever it is
  EXPECT_EQ(describe_vector(file("alone.h5")).dataset, "/group/values");

  write_h5_dataset(file("many.h5"), {{"/x", {20}}, {"/b", {20}}, {"/y", {20}}}, v);
  EXPECT_EQ(describe_vector(file("many.h5")).dataset, "/x");  // the default name
  vector_read_options rhs;
  rhs.default_dataset = "b";
  EXPECT_EQ(describe_vector(file("many.h5"), rhs).dataset, "/b");
  EXPECT_EQ(describe_vector(file("many.h5") + ":/y").dataset, "/y");
  expect_bad_input([&] { describe_vector(file("many.h5") + ":y"); }, "many.h5:y",
                   {"no such file"});  // split at ":/" only
}

TEST_F(VectorIo, Hdf5ReadsOtherTypesAndColumnShapes) {
  const std::vector<double> v = {1, -2, 3, 4, 5, 6};
  write_h5_dataset(file("f32.h5"), {{"x", {6}}}, v, H5T_IEEE_F32LE);
  EXPECT_EQ(read_vector(file("f32.h5")), v);
  EXPECT_EQ(describe_vector(file("f32.h5")).value_type, "float32");
  write_h5_dataset(file("i32.h5"), {{"x", {6}}}, v, H5T_STD_I32LE);
  EXPECT_EQ(read_vector(file("i32.h5")), v);
  write_h5_dataset(file("col.h5"), {{"x", {6, 1}}}, v);
  EXPECT_EQ(read_vector_rows(file("col.h5"), {2, 5}), (std::vector<double>{3, 4, 5}));
  write_h5_dataset(file("row.h5"), {{"x", {1, 6}}}, v);
  EXPECT_EQ(read_vector_rows(file("row.h5"), {2, 5}), (std::vector<double>{3, 4, 5}));
}

TEST_F(VectorIo, Hdf5ProblemsNameTheFileAndDataset) {
  const auto v = sample(12);
  write_h5_dataset(file("two.h5"), {{"/p", {12}}, {"/q", {12}}}, v);
  expect_bad_input([&] { describe_vector(file("two.h5")); }, file("two.h5"),
                   {"no dataset /x but 2 1-D datasets (/p, /q)", ":/NAME"});
  expect_bad_input([&] { describe_vector(file("two.h5") + ":/r"); }, file("two.h5"), {"dataset /r", "does not exist"});
  expect_bad_input([&] { describe_vector(file("two.h5") + ":/deep/r"); }, file("two.h5"),
                   {"dataset /deep/r", "does not exist"});
  write_h5_dataset(file("matrix.h5"), {{"/x", {3, 4}}}, v);
  expect_bad_input([&] { describe_vector(file("matrix.h5")); }, file("matrix.h5"),
                   {"dataset /x", "shape (3, 4)", "expected a 1-D dataset"});
  write_h5_dataset(file("nothing.h5"), {{"/m", {3, 4}}}, v);
  expect_bad_input([&] { describe_vector(file("nothing.h5")); }, file("nothing.h5"), {"no other 1-D numeric dataset"});
  write_h5_dataset(file("group.h5"), {{"/x/inner", {3, 4}}}, v);
  expect_bad_input([&] { describe_vector(file("group.h5")); }, file("group.h5"), {"dataset /x", "is not a dataset"});
  // A damaged HDF5 file: the signature, then nothing.
  write_file(file("cut.h5"), read_file(file("two.h5")).substr(0, 100));
  expect_bad_input([&] { describe_vector(file("cut.h5")); }, file("cut.h5"), {"cannot open the HDF5 file"});
}

// ---- detection and names ------------------------------------------------------------------------

TEST_F(VectorIo, FormatIsToldByContentBeforeTheName) {
  const auto v = sample(9);
  write_vector(file("a.npy"), v);
  fs::rename(file("a.npy"), file("a.bin"));
  EXPECT_EQ(describe_vector(file("a.bin")).format, vector_format::npy);
  write_vector(file("b.h5"), v);
  fs::rename(file("b.h5"), file("b.npy"));  // misnamed: the content wins
  EXPECT_EQ(read_vector(file("b.npy")), v);
  write_vector(file("c.petsc"), v);
  fs::rename(file("c.petsc"), file("c"));
  EXPECT_EQ(read_vector(file("c")), v);
}

TEST_F(VectorIo, UnreadableInputsAreBadInput) {
  expect_bad_input([&] { describe_vector(file("none.npy")); }, file("none.npy"), {"no such file"});
  expect_bad_input([&] { describe_vector(dir_); }, dir_, {"is a directory"});
  write_file(file("text.txt"), "1 2 3\n");
  expect_bad_input([&] { describe_vector(file("text.txt")); }, file("text.txt"), {"unknown vector format", ".npy"});
  write_file(file("text.h5"), "1 2 3\n");
  expect_bad_input([&] { describe_vector(file("text.h5")); }, file("text.h5"), {"not an HDF5 file"});
  write_file(file("text.petsc"), "1 2 3\n");
  expect_bad_input([&] { describe_vector(file("text.petsc")); }, file("text.petsc"), {"class id"});
  csr_matrix<double> m;
  m.rows = m.cols = 2;
  m.row_ptr = {0, 1, 2};
  m.col_idx = {0, 1};
  m.values = {1.0, 2.0};
  write_matrix(file("m.petsc"), m);
  expect_bad_input([&] { describe_vector(file("m.petsc")); }, file("m.petsc"), {"holds a PETSc matrix, not a vector"});
  write_vector(file("d.npy"), {1.0});
  expect_bad_input([&] { describe_vector(file("d.npy") + ":/x"); }, file("d.npy"), {"applies to HDF5 files only"});
}

TEST_F(VectorIo, NonFiniteEntriesAreRefusedUnlessAllowed) {
  std::vector<double> v = {1, 2, std::numeric_limits<double>::quiet_NaN(), 4};
  vector_read_options allow;
  allow.allow_nonfinite = true;
  for (const std::string name : {"n.npy", "n.h5", "n.petsc"}) {
    write_vector(file(name), v);
    expect_bad_input([&] { read_vector(file(name)); }, file(name), {"non-finite value", "entry 2"});
    EXPECT_EQ(read_vector_rows(file(name), {0, 2}), (std::vector<double>{1, 2})) << "only the range is checked";
    EXPECT_TRUE(std::isnan(read_vector(file(name), allow)[2])) << name;
  }
}

TEST_F(VectorIo, OutputNamesAreCheckedBeforeAnyFile) {
  expect_bad_input([&] { plan_vector_output(file("y.txt"), 3); }, file("y.txt"),
                   {"unknown vector output format", ".npy"});
  expect_bad_input([&] { plan_vector_output(file("y.npy") + ":/y", 3); }, "y.npy", {"applies to HDF5 files only"});
  fs::create_directory(file("sub.h5"));
  expect_bad_input([&] { plan_vector_output(file("sub.h5"), 3); }, "sub.h5", {"is a directory"});
  EXPECT_EQ(plan_vector_output(file("y.h5"), 3).dataset, "/y");
  EXPECT_EQ(plan_vector_output(file("y.h5") + ":/a/b/", 3).dataset, "/a/b");
  vector_write_options solution;
  solution.default_dataset = "x";
  EXPECT_EQ(plan_vector_output(file("y.h5"), 3, solution).dataset, "/x");
  // A folder that does not exist: the error names the target.
  const std::string missing = file("no/such/folder/y.npy");
  try {
    write_vector(missing, {1.0});
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

TEST_F(VectorIo, AnExistingTargetIsReplacedWhole) {
  write_vector(file("r.h5"), sample(100));
  write_vector(file("r.h5"), {1.0, 2.0});
  EXPECT_EQ(read_vector(file("r.h5")), (std::vector<double>{1.0, 2.0}));
  write_vector(file("r.npy"), sample(100));
  write_vector(file("r.npy"), {1.0, 2.0});
  EXPECT_EQ(read_file(file("r.npy")).size(), 128u + 16u);
}

// ---- numpy itself -------------------------------------------------------------------------------

/// The system python3 with numpy, or "" (then the test skips).
std::string numpy_python() {
  const std::string python = DISTSPMV_SYSTEM_PYTHON3;
  if (python.empty() || std::system((python + " -c 'import numpy' 2>/dev/null").c_str()) != 0) return "";
  return python;
}

TEST_F(VectorIo, NumpyReadsOursAndWeReadNumpys) {
  const std::string python = numpy_python();
  if (python.empty()) GTEST_SKIP() << "no system python3 with numpy";
  const auto v = sample(257);
  write_vector(file("ours.npy"), v);
  vector_write_options w;
  w.float32 = true;
  write_vector(file("ours32.npy"), v, w);
  const std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "a = np.load(d + '/ours.npy'); b = np.load(d + '/ours32.npy')\n"
      "assert a.dtype == np.float64 and a.shape == (257,), (a.dtype, a.shape)\n"
      "assert b.dtype == np.float32 and b.shape == (257,), (b.dtype, b.shape)\n"
      "assert (b == a.astype(np.float32)).all()\n"
      "np.save(d + '/theirs.npy', a)\n"
      "np.save(d + '/theirs32.npy', a.astype(np.float32))\n"
      "np.save(d + '/column.npy', np.asfortranarray(a.reshape(-1, 1)))\n";
  write_file(file("check.py"), script);
  ASSERT_EQ(std::system((python + " " + file("check.py") + " " + dir_).c_str()), 0);
  EXPECT_EQ(read_vector(file("theirs.npy")), v);
  EXPECT_EQ(read_vector(file("column.npy")), v);
  EXPECT_EQ(read_vector(file("theirs32.npy")), read_vector(file("ours32.npy")));
}

}  // namespace
}  // namespace distspmv::io
