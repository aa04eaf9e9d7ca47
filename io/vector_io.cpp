// Dense vector files (formats and rules in io/vector_io.hpp).
//
// Design choices, beyond what the header states:
//  - Every reading failure is a bad_input "FILE: WHERE: problem", WHERE being "header", "values",
//    "dataset /x" or none; a failing write is an error naming the file and the temporary file.
//  - The .npy header is read by a small parser of the one dictionary numpy writes
//    ({'descr': ..., 'fortran_order': ..., 'shape': (...)}), not by a Python literal evaluator;
//    like numpy's own reader it wants exactly those three keys.
//  - .npy and PETSc files are read with pread at the range's offset and written with pwrite into
//    a file made at its full size (ftruncate), in pieces of at most 64 MiB converted and
//    byte-swapped in a scratch buffer: each writer touches only its own bytes.
//  - HDF5 reads and writes go through hyperslabs of at most 2^27 entries (HDF5 1.10 fails single
//    transfers of 2 GiB); HDF5 converts integer and float32 datasets to double. The writer makes
//    one contiguous dataset, allocated at creation without fill values, in the HDF5 1.8 file
//    format as the matrix writer does (io/hdf5_io.cpp says why).
#include "io/detail/file_names.hpp"
#include "io/vector_io.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/errors.hpp"
#include "io/detail/csr_rows.hpp"
#include "io/detail/hdf5_handle.hpp"
#include "io/detail/posix_file.hpp"
#include "io/petsc_binary.hpp"

namespace distspmv::io {

namespace {

namespace fs = std::filesystem;
using detail::errno_text;
using std::to_string;

/// Bytes per read or write step of the raw formats: bounds the scratch buffer.
constexpr std::size_t piece_bytes = std::size_t{64} << 20;
/// Entries per HDF5 transfer (1 GiB of doubles).
constexpr hsize_t h5_piece = hsize_t{1} << 27;
/// Longest .npy header this reader accepts (numpy's own reader stops at 10 000 bytes by default).
constexpr std::uint64_t max_npy_header = std::uint64_t{1} << 20;
constexpr bool host_big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
const std::string npy_magic("\x93NUMPY", 6);
constexpr const char* output_formats = "expected a name ending in .h5, .hdf5, .npy, .petsc or .dat";

using detail::ends_with;
using detail::lower;

/// The format an extension names, if any.
bool format_from_extension(const std::string& path, vector_format& f) {
  const std::string name = lower(path);
  if (ends_with(name, ".h5") || ends_with(name, ".hdf5"))
    f = vector_format::hdf5;
  else if (ends_with(name, ".npy"))
    f = vector_format::npy;
  else if (ends_with(name, ".petsc") || ends_with(name, ".dat"))
    f = vector_format::petsc_binary;
  else
    return false;
  return true;
}

// ---- byte order ------------------------------------------------------------------------------

template <typename T>
T swap_bytes(T x) {
  using bits = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
  static_assert(sizeof(T) == sizeof(bits));
  bits b;
  std::memcpy(&b, &x, sizeof b);
  if constexpr (sizeof(T) == 2)
    b = __builtin_bswap16(b);
  else if constexpr (sizeof(T) == 4)
    b = __builtin_bswap32(b);
  else
    b = __builtin_bswap64(b);
  std::memcpy(&x, &b, sizeof b);
  return x;
}

/// T from the bytes at `from`, stored big- or little-endian.
template <typename T>
T load(const unsigned char* from, bool big_endian) {
  T x;
  std::memcpy(&x, from, sizeof x);
  return big_endian == host_big_endian ? x : swap_bytes(x);
}

/// v as T at `to`, big- or little-endian.
template <typename T>
void store(unsigned char* to, T v, bool big_endian) {
  if (big_endian != host_big_endian) v = swap_bytes(v);
  std::memcpy(to, &v, sizeof v);
}

// ---- raw files (.npy, PETSc binary) ----------------------------------------------------------

/// Where the entries of a raw file start and how they are stored.
struct raw_layout {
  std::uint64_t data_at = 0;
  std::size_t entry_bytes = 8;  ///< 8 (double) or 4 (float)
  bool big_endian = false;
};

/// A file open for reading, with its size.
struct open_file {
  explicit open_file(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd.get() < 0)
      DSPMV_BAD_INPUT(path, "", errno == ENOENT ? std::string("no such file") : "cannot open: " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) DSPMV_BAD_INPUT(path, "", "cannot stat: " + errno_text(errno));
    if (S_ISDIR(st.st_mode)) DSPMV_BAD_INPUT(path, "", "is a directory, not a vector file");
    size = static_cast<std::uint64_t>(st.st_size);
  }
  detail::fd_closer fd;
  std::uint64_t size = 0;
};

/// Entries [range.begin, range.end) of a raw file, as double.
std::vector<double> read_raw(const std::string& path, const open_file& f, const raw_layout& l, row_range range) {
  auto out = detail::make_buffer<double>(static_cast<std::size_t>(range.size()));
  const auto count = static_cast<std::uint64_t>(range.size());
  std::vector<unsigned char> piece(
      static_cast<std::size_t>(std::min<std::uint64_t>(count * l.entry_bytes, piece_bytes)));
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t n = std::min<std::uint64_t>(piece.size() / l.entry_bytes, count - done);
    const std::uint64_t at = l.data_at + (static_cast<std::uint64_t>(range.begin) + done) * l.entry_bytes;
    const std::size_t bytes = static_cast<std::size_t>(n) * l.entry_bytes;
    const std::int64_t got = detail::read_at(f.fd.get(), at, piece.data(), bytes);
    if (got < 0) DSPMV_BAD_INPUT(path, "values", "cannot read: " + errno_text(errno));
    if (static_cast<std::size_t>(got) != bytes)  // the file shrank since its header was checked
      DSPMV_BAD_INPUT(path, "values",
                      "truncated file: entries from " + to_string(range.begin + static_cast<std::int64_t>(done)) +
                          " on lie past its end");
    for (std::uint64_t k = 0; k < n; ++k) {
      const unsigned char* p = piece.data() + k * l.entry_bytes;
      out[done + k] = l.entry_bytes == 8 ? load<double>(p, l.big_endian) : load<float>(p, l.big_endian);
    }
    done += n;
  }
  return out;
}

// ---- .npy header -----------------------------------------------------------------------------

struct npy_fields {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

/// The header dictionary of a .npy file: {'descr': '<f8', 'fortran_order': False, 'shape': (3,), }
/// (keys in any order, either quote, Python 2's "3L" integers).
class npy_dict_parser {
 public:
  npy_dict_parser(const std::string& path, const std::string& text) : path_(path), text_(text) {}

  npy_fields parse() {
    npy_fields f;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{', "expected a dictionary '{...}'");
    skip_space();
    while (peek() != '}') {
      const std::string key = string_literal("a quoted key or '}'");
      expect(':', "expected ':' after '" + key + "'");
      if (key == "descr") {
        once(seen_descr, key);
        skip_space();
        if (peek() == '[') fail("a structured dtype is not supported; expected '<f8' or '<f4'");
        f.descr = string_literal("a quoted dtype for 'descr'");
      } else if (key == "fortran_order") {
        once(seen_order, key);
        f.fortran_order = boolean();
      } else if (key == "shape") {
        once(seen_shape, key);
        f.shape = tuple();
      } else {
        fail("unexpected key '" + key + "' (a .npy header holds descr, fortran_order and shape)");
      }
      skip_space();
      if (peek() == ',') {
        ++at_;
        skip_space();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after the value of '" + key + "'");
      }
    }
    ++at_;
    skip_space();
    if (at_ != text_.size()) fail("text after the dictionary");
    if (!seen_descr) fail("no 'descr' key");
    if (!seen_order) fail("no 'fortran_order' key");
    if (!seen_shape) fail("no 'shape' key");
    return f;
  }

 private:
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  void expect(char c, const std::string& problem) {
    skip_space();
    if (peek() != c) fail(problem);
    ++at_;
  }
  void once(bool& seen, const std::string& key) {
    if (seen) fail("key '" + key + "' appears twice");
    seen = true;
  }
  std::string string_literal(const std::string& what) {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected " + what);
    const auto end = text_.find(quote, at_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string s = text_.substr(at_ + 1, end - at_ - 1);
    if (s.find('\\') != std::string::npos) fail("escapes in strings are not supported");
    at_ = end + 1;
    return s;
  }
  bool boolean() {
    skip_space();
    if (text_.compare(at_, 4, "True") == 0) {
      at_ += 4;
      return true;
    }
    if (text_.compare(at_, 5, "False") == 0) {
      at_ += 5;
      return false;
    }
    fail("'fortran_order' must be True or False");
  }
  std::vector<std::int64_t> tuple() {
    expect('(', "'shape' must be a tuple '(...)'");
    std::vector<std::int64_t> dims;
    skip_space();
    while (peek() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("'shape' must hold non-negative integers");
      std::int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10) fail("a 'shape' entry is too large");
        v = 10 * v + (peek() - '0');
        ++at_;
      }
      if (peek() == 'L') ++at_;
      dims.push_back(v);
      skip_space();
      if (peek() == ',') {
        ++at_;
        skip_space();
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
    ++at_;
    return dims;
  }
  [[noreturn]] void fail(const std::string& problem) const {
    std::string shown = text_.substr(0, 200);
    while (!shown.empty() && std::isspace(static_cast<unsigned char>(shown.back()))) shown.pop_back();
    DSPMV_BAD_INPUT(path_, "header", problem + " in \"" + shown + (text_.size() > 200 ? "...\"" : "\""));
  }

  const std::string& path_;
  const std::string& text_;
  std::size_t at_ = 0;
};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

struct npy_header {
  raw_layout layout;
  global_index_type length = 0;
  std::string value_type;
};

/// Reads and checks the header of an open .npy file, and that the file holds every entry.
npy_header read_npy_header(const std::string& path, const open_file& f) {
  unsigned char pre[12] = {};
  const std::int64_t got = detail::read_at(f.fd.get(), 0, pre, sizeof pre);
  if (got < 0) DSPMV_BAD_INPUT(path, "", "cannot read: " + errno_text(errno));
  if (got < 6 || std::memcmp(pre, npy_magic.data(), 6) != 0)
    DSPMV_BAD_INPUT(path, "header", "bad magic: not a NumPy .npy file (one starts with \\x93NUMPY)");
  if (got < 10)
    DSPMV_BAD_INPUT(path, "header", "truncated file: " + to_string(got) + " bytes, no room for the header's length");
  const int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3)
    DSPMV_BAD_INPUT(
        path, "header",
        "format version " + to_string(major) + "." + to_string(minor) + " is not supported (1.0, 2.0 and 3.0 are)");
  const std::uint64_t text_at = major == 1 ? 10 : 12;
  if (static_cast<std::uint64_t>(got) < text_at)
    DSPMV_BAD_INPUT(path, "header", "truncated file: " + to_string(got) + " bytes, no room for the header's length");
  const std::uint64_t text_bytes =
      major == 1 ? load<std::uint16_t>(pre + 8, false) : load<std::uint32_t>(pre + 8, false);
  if (text_bytes > max_npy_header)
    DSPMV_BAD_INPUT(
        path, "header",
        "announces " + to_string(text_bytes) + " bytes, more than this reader's limit of " + to_string(max_npy_header));
  if (text_at + text_bytes > f.size)
    DSPMV_BAD_INPUT(
        path, "header",
        "truncated file: " + to_string(f.size) + " bytes, the header announces " + to_string(text_at + text_bytes));
  std::string text(static_cast<std::size_t>(text_bytes), '\0');
  if (detail::read_at(f.fd.get(), text_at, text.data(), text.size()) != static_cast<std::int64_t>(text.size()))
    DSPMV_BAD_INPUT(path, "header", "cannot read: " + errno_text(errno));
  const npy_fields fields = npy_dict_parser(path, text).parse();

  npy_header h;
  h.layout.data_at = text_at + text_bytes;
  if (fields.descr == "<f8") {
    h.layout.entry_bytes = 8;
    h.value_type = "float64";
  } else if (fields.descr == "<f4") {
    h.layout.entry_bytes = 4;
    h.value_type = "float32";
  } else if (fields.descr == ">f8" || fields.descr == ">f4") {
    DSPMV_BAD_INPUT(path, "header",
                    "dtype '" + fields.descr +
                        "' is big-endian; expected '<f8' or '<f4' "
                        "(save x.astype('<f8'))");
  } else {
    DSPMV_BAD_INPUT(path, "header",
                    "dtype '" + fields.descr +
                        "' is not supported; expected '<f8' (float64) or "
                        "'<f4' (float32)");
  }
  // (N,), (N, 1) and (1, N) hold the same bytes in either order.
  const auto& s = fields.shape;
  if (s.size() == 1)
    h.length = s[0];
  else if (s.size() == 2 && (s[0] == 1 || s[1] == 1))
    h.length = s[0] * s[1];
  else
    DSPMV_BAD_INPUT(path, "header", "shape " + shape_text(s) + ": expected a vector, shape (N,) (or (N, 1), (1, N))");
  const std::uint64_t room = f.size - std::min(f.size, h.layout.data_at);
  if (room / h.layout.entry_bytes < static_cast<std::uint64_t>(h.length))
    DSPMV_BAD_INPUT(path, "values",
                    "truncated file: " + to_string(f.size) + " bytes, shape " + shape_text(s) + " of '" + fields.descr +
                        "' takes " +
                        to_string(h.layout.data_at + static_cast<std::uint64_t>(h.length) * h.layout.entry_bytes));
  return h;
}

/// The header numpy.save writes for a vector: version 1.0, padded with spaces and a newline so
/// that the entries start at a multiple of 64 bytes.
std::string npy_header_bytes(global_index_type length, bool float32) {
  std::string dict = std::string("{'descr': '") + (float32 ? "<f4" : "<f8") + "', 'fortran_order': False, 'shape': (" +
                     to_string(length) + ",), }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string head = npy_magic;
  head += '\x01';
  head += '\x00';
  unsigned char size[2];
  store<std::uint16_t>(size, static_cast<std::uint16_t>(dict.size()), false);
  head.append(reinterpret_cast<const char*>(size), 2);
  return head + dict;
}

// ---- HDF5 ------------------------------------------------------------------------------------

using detail::h5_dataset;
using detail::h5_file;
using detail::h5_object;
using detail::h5_plist;
using detail::h5_space;
using detail::h5_type;
using detail::hdf5_error_text;

/// "/x" from "x", "/x/".
std::string absolute_dataset(std::string name) {
  if (name.empty() || name.front() != '/') name.insert(name.begin(), '/');
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  return name;
}

/// True when every component of the absolute `name` exists (H5Lexists fails, rather than
/// returning false, when an intermediate group is missing).
bool path_exists(hid_t file, const std::string& name) {
  for (std::size_t pos = 0; pos != std::string::npos;) {
    pos = name.find('/', pos + 1);
    if (H5Lexists(file, name.substr(0, pos).c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
  }
  return true;
}

std::string h5_type_name(hid_t type) {
  const std::size_t bits = 8 * H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + to_string(bits);
    case H5T_FLOAT:
      return "float" + to_string(bits);
    case H5T_STRING:
      return "string";
    case H5T_COMPOUND:
      return "compound";
    default:
      return "a non-numeric type";
  }
}

/// An open dataset holding a vector.
struct h5_vector {
  h5_file file;
  h5_dataset set;
  std::string name;   ///< absolute path
  std::string where;  ///< "dataset /x"
  int ndims = 1;
  hsize_t dims[2] = {0, 1};
  global_index_type length = 0;
  std::string type;
};

h5_file open_h5(const std::string& path, unsigned flags) {
  detail::silence_hdf5_errors();
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 == 0) DSPMV_BAD_INPUT(path, "", "not an HDF5 file (no HDF5 signature found)");
  h5_plist fapl = detail::file_access_list();
  h5_file file(is_hdf5 > 0 ? H5Fopen(path.c_str(), flags, fapl.get()) : -1);
  if (!file) DSPMV_BAD_INPUT(path, "", "cannot open the HDF5 file (truncated or corrupt?): " + hdf5_error_text());
  return file;
}

/// Why dataset `name` cannot be read as a vector ("" when it can); fills v's shape and type.
std::string vector_problem(hid_t file, const std::string& name, h5_vector& v) {
  h5_object object(H5Oopen(file, name.c_str(), H5P_DEFAULT));
  if (!object || H5Iget_type(object.get()) != H5I_DATASET) {
    H5Eclear2(H5E_DEFAULT);
    return "is not a dataset";
  }
  v.set = h5_dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  h5_space space(v.set ? H5Dget_space(v.set.get()) : -1);
  h5_type type(v.set ? H5Dget_type(v.set.get()) : -1);
  if (!v.set || !space || !type) return "cannot be opened: " + hdf5_error_text();
  v.type = h5_type_name(type.get());
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls == H5T_COMPOUND) return "has a compound element type: complex vectors are not supported";
  if (cls != H5T_INTEGER && cls != H5T_FLOAT)
    return "has element type " + v.type + ", expected a float or integer type";
  v.ndims = H5Sget_simple_extent_ndims(space.get());
  hsize_t dims[H5S_MAX_RANK] = {};
  if (v.ndims < 0 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0) return "has an unreadable shape";
  std::string shape = "(";
  for (int d = 0; d < v.ndims; ++d) shape += (d ? ", " : "") + to_string(dims[d]);
  shape += ")";
  if (v.ndims != 1 && !(v.ndims == 2 && (dims[0] == 1 || dims[1] == 1)))
    return "has shape " + shape + ", expected a 1-D dataset (or N x 1, 1 x N)";
  v.dims[0] = dims[0];
  v.dims[1] = v.ndims == 2 ? dims[1] : 1;
  v.length = static_cast<global_index_type>(v.dims[0] * v.dims[1]);
  return "";
}

herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back("/" + std::string(name));
  return 0;
}

/// The dataset to read: `requested` if given; else `fallback` at the root if the file has it;
/// else the only dataset in the file that is a vector.
h5_vector open_h5_vector(const std::string& path, const std::string& requested, const std::string& fallback) {
  h5_vector v;
  v.file = open_h5(path, H5F_ACC_RDONLY);
  const hid_t file = v.file.get();
  std::string name = requested.empty() ? absolute_dataset(fallback) : absolute_dataset(requested);
  if (requested.empty() && !path_exists(file, name)) {
    std::vector<std::string> links, vectors;
    if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect_link, &links) < 0) H5Eclear2(H5E_DEFAULT);
    for (const auto& link : links) {
      h5_vector probe;
      if (vector_problem(file, link, probe).empty()) vectors.push_back(link);
    }
    if (vectors.empty()) DSPMV_BAD_INPUT(path, "", "holds no dataset " + name + " and no other 1-D numeric dataset");
    if (vectors.size() > 1) {
      std::string list;
      for (std::size_t i = 0; i < vectors.size() && i < 5; ++i) list += (i ? ", " : "") + vectors[i];
      if (vectors.size() > 5) list += ", ...";
      DSPMV_BAD_INPUT(path, "",
                      "holds no dataset " + name + " but " + to_string(vectors.size()) + " 1-D datasets (" + list +
                          "): name one as " + path + ":/NAME");
    }
    name = vectors.front();
  }
  v.name = name;
  v.where = "dataset " + name;
  if (!path_exists(file, name)) DSPMV_BAD_INPUT(path, v.where, "does not exist");
  const std::string problem = vector_problem(file, name, v);
  if (!problem.empty()) DSPMV_BAD_INPUT(path, v.where, problem);
  return v;
}

/// The file selection of entries [start, start + n) of a vector dataset (1-D, N x 1 or 1 x N).
h5_space select_entries(const std::string& path, const h5_vector& v, hsize_t start, hsize_t n) {
  h5_space space(H5Dget_space(v.set.get()));
  const bool along_second = v.ndims == 2 && v.dims[0] == 1;
  const hsize_t start2[2] = {along_second ? 0 : start, along_second ? start : 0};
  const hsize_t count2[2] = {along_second ? 1 : n, along_second ? n : 1};
  if (!space || H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start2, nullptr, count2, nullptr) < 0)
    DSPMV_BAD_INPUT(
        path, v.where,
        "cannot select entries [" + to_string(start) + ", " + to_string(start + n) + "): " + hdf5_error_text());
  return space;
}

std::vector<double> read_h5_rows(const std::string& path, const h5_vector& v, row_range range) {
  auto out = detail::make_buffer<double>(static_cast<std::size_t>(range.size()));
  const auto count = static_cast<hsize_t>(range.size());
  for (hsize_t done = 0; done < count;) {
    hsize_t n = std::min(h5_piece, count - done);
    const hsize_t start = static_cast<hsize_t>(range.begin) + done;
    h5_space file_space = select_entries(path, v, start, n);
    h5_space memory_space(H5Screate_simple(1, &n, nullptr));
    if (!memory_space || H5Dread(v.set.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT,
                                 out.data() + done) < 0)
      DSPMV_BAD_INPUT(
          path, v.where,
          "cannot read entries [" + to_string(start) + ", " + to_string(start + n) + "): " + hdf5_error_text());
    done += n;
  }
  return out;
}

[[noreturn]] void write_failed(const vector_output& out, const std::string& what) {
  throw error(out.path + ": cannot write the temporary file " + out.temporary + ": " + what, __FILE__, __LINE__);
}

void create_h5(const vector_output& out) {
  h5_plist fapl = detail::file_access_list();
  if (!fapl || H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18) < 0)
    write_failed(out, "cannot set the file format: " + hdf5_error_text());
  h5_file file(H5Fcreate(out.temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
  if (!file) write_failed(out, "cannot create it as an HDF5 file: " + hdf5_error_text());
  {
    const auto length = static_cast<hsize_t>(out.length);
    h5_space space(H5Screate_simple(1, &length, nullptr));
    h5_plist link_create(H5Pcreate(H5P_LINK_CREATE));
    h5_plist create(H5Pcreate(H5P_DATASET_CREATE));
    // Every entry is written by some rank, so HDF5 need not write fill values first; allocated
    // now, so that the file has its final size before the ranks write into it.
    if (!space || !link_create || !create || H5Pset_create_intermediate_group(link_create.get(), 1) < 0 ||
        H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER) < 0 ||
        H5Pset_alloc_time(create.get(), H5D_ALLOC_TIME_EARLY) < 0)
      write_failed(out, "cannot set up dataset " + out.dataset + ": " + hdf5_error_text());
    h5_dataset set(H5Dcreate2(file.get(), out.dataset.c_str(), out.float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE,
                              space.get(), link_create.get(), create.get(), H5P_DEFAULT));
    if (!set || !set.close()) write_failed(out, "cannot create dataset " + out.dataset + ": " + hdf5_error_text());
  }
  if (!file.close()) write_failed(out, "cannot close it (disk full?): " + hdf5_error_text());
}

void write_h5_slice(const vector_output& out, global_index_type first, const double* values, global_index_type count) {
  detail::silence_hdf5_errors();
  h5_plist fapl = detail::file_access_list();
  h5_file file(H5Fopen(out.temporary.c_str(), H5F_ACC_RDWR, fapl.get()));
  if (!file) write_failed(out, "cannot open it: " + hdf5_error_text());
  {
    h5_dataset set(H5Dopen2(file.get(), out.dataset.c_str(), H5P_DEFAULT));
    h5_space file_space(set ? H5Dget_space(set.get()) : -1);
    if (!set || !file_space) write_failed(out, "cannot open dataset " + out.dataset + ": " + hdf5_error_text());
    for (hsize_t done = 0; done < static_cast<hsize_t>(count);) {
      hsize_t n = std::min(h5_piece, static_cast<hsize_t>(count) - done);
      const hsize_t start = static_cast<hsize_t>(first) + done;
      h5_space memory_space(H5Screate_simple(1, &n, nullptr));
      if (!memory_space || H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr) < 0 ||
          H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT, values + done) < 0)
        write_failed(out, "cannot write entries [" + to_string(start) + ", " + to_string(start + n) + ") of " +
                              out.dataset + ": " + hdf5_error_text());
      done += n;
    }
    if (!set.close()) write_failed(out, "cannot close dataset " + out.dataset + ": " + hdf5_error_text());
  }
  if (!file.close()) write_failed(out, "cannot close it (disk full?): " + hdf5_error_text());
}

// ---- reading ---------------------------------------------------------------------------------

/// The format of an existing file: by its first bytes, else by its extension.
vector_format detect_vector_format(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) DSPMV_BAD_INPUT(path, "", "no such file");
  if (fs::is_directory(status)) DSPMV_BAD_INPUT(path, "", "is a directory, not a vector file");
  std::string head(16, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  }
  if (head.compare(0, npy_magic.size(), npy_magic) == 0) return vector_format::npy;
  detail::silence_hdf5_errors();
  if (H5Fis_hdf5(path.c_str()) > 0) return vector_format::hdf5;
  H5Eclear2(H5E_DEFAULT);
  if (is_petsc_binary(head)) return vector_format::petsc_binary;
  vector_format f;
  if (format_from_extension(path, f)) return f;  // that reader says what is wrong
  DSPMV_BAD_INPUT(path, "", "unknown vector format: expected an HDF5 file, a NumPy .npy file or a PETSc binary vector");
}

/// The file, its format, and a dataset name only where the format has datasets.
std::pair<vector_spec, vector_format> locate(const std::string& spec) {
  const vector_spec s = split_vector_spec(spec);
  const vector_format f = detect_vector_format(s.path);
  if (!s.dataset.empty() && f != vector_format::hdf5)
    DSPMV_BAD_INPUT(s.path, "",
                    "a dataset name (':" + s.dataset + "') applies to HDF5 files only; this is a " +
                        (f == vector_format::npy ? std::string("NumPy .npy") : std::string("PETSc binary")) + " file");
  return {s, f};
}

}  // namespace

const char* to_string(vector_format f) {
  switch (f) {
    case vector_format::hdf5:
      return "hdf5";
    case vector_format::npy:
      return "npy";
    case vector_format::petsc_binary:
      return "petsc-binary";
  }
  return "?";
}

vector_spec split_vector_spec(const std::string& spec) {
  const auto at = spec.rfind(":/");
  std::error_code ec;
  if (at == std::string::npos || at == 0 || fs::exists(spec, ec)) return {spec, ""};
  return {spec.substr(0, at), spec.substr(at + 1)};
}

vector_info describe_vector(const std::string& spec, const vector_read_options& options) {
  const auto located = locate(spec);
  const vector_spec& s = located.first;
  const vector_format format = located.second;
  vector_info info;
  info.format = format;
  info.path = s.path;
  switch (format) {
    case vector_format::npy: {
      const open_file f(s.path);
      const npy_header h = read_npy_header(s.path, f);
      info.length = h.length;
      info.value_type = h.value_type;
      break;
    }
    case vector_format::hdf5: {
      const h5_vector v = open_h5_vector(s.path, s.dataset, options.default_dataset);
      info.dataset = v.name;
      info.length = v.length;
      info.value_type = v.type;
      break;
    }
    case vector_format::petsc_binary:
      info.length = describe_petsc(s.path, petsc_object::vector).rows;
      info.value_type = "float64";
      break;
  }
  return info;
}

std::vector<double> read_vector_rows(const std::string& spec, row_range range, const vector_read_options& options) {
  const auto located = locate(spec);
  const vector_spec& s = located.first;
  const vector_format format = located.second;
  auto require_range = [&](global_index_type length) {
    DSPMV_REQUIRE(0 <= range.begin && range.begin <= range.end && range.end <= length,
                  "read_vector_rows: range [" + to_string(range.begin) + ", " + to_string(range.end) +
                      ") is not within [0, " + to_string(length) + ") of " + s.path);
  };
  std::vector<double> values;
  std::string where = "values";
  switch (format) {
    case vector_format::npy: {
      const open_file f(s.path);
      const npy_header h = read_npy_header(s.path, f);
      require_range(h.length);
      values = read_raw(s.path, f, h.layout, range);
      break;
    }
    case vector_format::hdf5: {
      const h5_vector v = open_h5_vector(s.path, s.dataset, options.default_dataset);
      require_range(v.length);
      values = read_h5_rows(s.path, v, range);
      where = v.where;
      break;
    }
    case vector_format::petsc_binary: {
      petsc_read_options petsc;
      petsc.allow_nonfinite = options.allow_nonfinite;
      return read_petsc_vector_rows(s.path, range, petsc);  // checks the range and the values itself
    }
  }
  detail::check_finite(values, range.begin, options.allow_nonfinite, s.path, where);
  return values;
}

std::vector<double> read_vector(const std::string& spec, const vector_read_options& options) {
  return read_vector_rows(spec, row_range{0, describe_vector(spec, options).length}, options);
}

// ---- writing ---------------------------------------------------------------------------------

vector_output plan_vector_output(const std::string& spec, global_index_type length,
                                 const vector_write_options& options) {
  DSPMV_REQUIRE(length >= 0, "plan_vector_output: negative length " + to_string(length));
  const vector_spec s = split_vector_spec(spec);
  vector_output out;
  out.path = s.path;
  out.length = length;
  if (s.path.empty()) DSPMV_BAD_INPUT(spec, "", std::string("no file name, ") + output_formats);
  if (!format_from_extension(s.path, out.format))
    DSPMV_BAD_INPUT(s.path, "", std::string("unknown vector output format, ") + output_formats);
  std::error_code ec;
  if (fs::is_directory(s.path, ec)) DSPMV_BAD_INPUT(s.path, "", "is a directory");
  if (!s.dataset.empty() && out.format != vector_format::hdf5)
    DSPMV_BAD_INPUT(spec, "", "a dataset name (':" + s.dataset + "') applies to HDF5 files only");
  switch (out.format) {
    case vector_format::hdf5:
      out.dataset = absolute_dataset(s.dataset.empty() ? options.default_dataset : s.dataset);
      if (out.dataset == "/") DSPMV_BAD_INPUT(spec, "", "the dataset needs a name");
      out.float32 = options.float32;
      break;
    case vector_format::npy:
      out.float32 = options.float32;
      out.data_at = npy_header_bytes(length, out.float32).size();
      break;
    case vector_format::petsc_binary:
      out.data_at = petsc_vector_header(length).size();
      break;
  }
  return out;
}

void create_vector_file(vector_output& out) {
  detail::fd_closer fd(detail::create_temp_file(out.path, out.temporary));
  try {
    if (out.format == vector_format::hdf5) {
      ::close(fd.release());  // HDF5 opens the name itself
      detail::silence_hdf5_errors();
      create_h5(out);
      return;
    }
    const std::string head =
        out.format == vector_format::npy ? npy_header_bytes(out.length, out.float32) : petsc_vector_header(out.length);
    const std::uint64_t size = out.data_at + static_cast<std::uint64_t>(out.length) * (out.float32 ? 4 : 8);
    if (!detail::write_all(fd.get(), head.data(), head.size())) write_failed(out, errno_text(errno));
    if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0) write_failed(out, errno_text(errno));
    if (::close(fd.release()) != 0) write_failed(out, errno_text(errno));
  } catch (...) {
    discard_vector_file(out);
    throw;
  }
}

void write_vector_slice(const vector_output& out, global_index_type first, const double* values,
                        global_index_type count) {
  DSPMV_REQUIRE(!out.temporary.empty(), "write_vector_slice: " + out.path + ": create_vector_file() first");
  DSPMV_REQUIRE(0 <= first && 0 <= count && first + count <= out.length,
                "write_vector_slice: entries [" + to_string(first) + ", " + to_string(first + count) +
                    ") are not within [0, " + to_string(out.length) + ") of " + out.path);
  if (count == 0) return;
  if (out.format == vector_format::hdf5) {
    write_h5_slice(out, first, values, count);
    return;
  }
  detail::fd_closer fd(::open(out.temporary.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) write_failed(out, "cannot open it: " + errno_text(errno));
  const std::size_t entry_bytes = out.float32 ? 4 : 8;
  const bool big_endian = out.format == vector_format::petsc_binary;
  const auto total = static_cast<std::uint64_t>(count);
  std::vector<unsigned char> piece(static_cast<std::size_t>(std::min<std::uint64_t>(total * entry_bytes, piece_bytes)));
  for (std::uint64_t done = 0; done < total;) {
    const std::uint64_t n = std::min<std::uint64_t>(piece.size() / entry_bytes, total - done);
    for (std::uint64_t k = 0; k < n; ++k) {
      unsigned char* p = piece.data() + k * entry_bytes;
      if (out.float32)
        store<float>(p, static_cast<float>(values[done + k]), big_endian);
      else
        store<double>(p, values[done + k], big_endian);
    }
    const std::uint64_t at = out.data_at + (static_cast<std::uint64_t>(first) + done) * entry_bytes;
    if (!detail::write_at(fd.get(), at, piece.data(), static_cast<std::size_t>(n) * entry_bytes))
      write_failed(out, errno_text(errno));
    done += n;
  }
  // close() reports delayed write errors on network file systems.
  if (::close(fd.release()) != 0) write_failed(out, errno_text(errno));
}

void commit_vector_file(const vector_output& out) {
  DSPMV_REQUIRE(!out.temporary.empty(), "commit_vector_file: " + out.path + ": create_vector_file() first");
  if (std::rename(out.temporary.c_str(), out.path.c_str()) != 0)
    throw error(out.path + ": cannot rename " + out.temporary + " into place: " + errno_text(errno), __FILE__,
                __LINE__);
}

void discard_vector_file(const vector_output& out) noexcept {
  if (!out.temporary.empty()) std::remove(out.temporary.c_str());
}

void write_vector(const std::string& spec, const std::vector<double>& values, const vector_write_options& options) {
  vector_output out = plan_vector_output(spec, static_cast<global_index_type>(values.size()), options);
  create_vector_file(out);
  try {
    write_vector_slice(out, 0, values.data(), out.length);
    commit_vector_file(out);
  } catch (...) {
    discard_vector_file(out);
    throw;
  }
}

}  // namespace distspmv::io
