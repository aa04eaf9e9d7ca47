// HDF5 reader and writer (DESIGN.md §7; layouts described in io/hdf5_io.hpp).
//
// Design choices, beyond what the header states:
//  - Every failure is a bad_input "FILE: dataset /A/indices: problem" (or "group /A",
//    "attribute shape of group /A"); HDF5's own stack printing is silenced and its innermost
//    message is appended where it helps (e.g. "truncated file: eof = ...").
//  - Foreign files are read leniently: indptr/indices of any 32- or 64-bit integer type (scipy
//    writes int32 indptr when nnz fits; MATLAB writes uint64), values of any integer or float type
//    (converted to double), string attributes fixed- or variable-length. Binsparse files may also
//    use 8- and 16-bit integers, since their JSON names the type explicitly. Columns that are
//    unsorted or repeated within a row are sorted and summed (DESIGN.md §7: "duplicates summed"),
//    as Matrix Market reading does, rather than rejected.
//  - A row range of the native and Binsparse CSR layouts reads indptr[a..b], indptr[0] and
//    indptr[rows] (to check the file's ends), then only [indptr[a], indptr[b]) of indices and
//    values. MATLAB (CSC) and Binsparse COO have no row-major index, so a row range of them reads
//    the whole matrix and slices it; their read_hdf5_row_ptr reads the whole matrix too.
//  - Every read and write goes through hyperslabs of at most 1 GiB: HDF5 1.10 fails larger single
//    transfers (a 2 GiB limit of its POSIX driver).
//  - The writer creates "path.tmp.<random>" exclusively, writes the native layout contiguously
//    (no chunking, no fill values, so each byte is written once), closes, then renames over `path`;
//    any failure removes the temporary file. Strings are variable-length UTF-8 scalars, which
//    h5py 3 returns as str (fixed-length ones come back as bytes, which anndata rejects). The
//    file uses the HDF5 1.8 format, whose object headers carry checksums.
//
// Limits: serial HDF5 is not thread-safe, so these functions must not run concurrently in one
// process. Truncated files, wrong types, shapes and contents are all reported, but HDF5 1.10
// itself can still crash or loop on deliberately corrupted metadata it does not checksum (the
// global heap holding variable-length strings): a byte-flipping fuzz of our files' first 4 KiB
// gave 3 crashes and 1 hang in 1000 runs, all inside H5Aread of a string attribute.
#include "io/hdf5_io.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "io/detail/csr_rows.hpp"
#include "io/detail/hdf5_handle.hpp"

namespace distspmv::io {

namespace {

using namespace detail;
using std::to_string;

/// Largest single HDF5 transfer (HDF5 1.10 fails transfers of 2 GiB and more).
constexpr std::size_t max_piece_bytes = std::size_t{1} << 30;
/// Entries converted per step when widening int32 -> int64 or float32 -> double ourselves: keeps
/// the scratch buffer at 64 MiB while each read stays large enough to run at disk speed.
constexpr std::size_t widen_piece_entries = std::size_t{16} << 20;

// ---- names -----------------------------------------------------------------------------------

/// "/A", "/" or "/a/b" from a user's group name ("A", "/A/", "" -> "/").
std::string normalize_group(std::string group) {
  if (group.empty() || group.front() != '/') group.insert(group.begin(), '/');
  while (group.size() > 1 && group.back() == '/') group.pop_back();
  return group;
}

std::string join_path(const std::string& group, const std::string& name) {
  return group == "/" ? "/" + name : group + "/" + name;
}

std::string dataset_where(const std::string& group, const std::string& name) {
  return "dataset " + join_path(group, name);
}

std::string attribute_where(const std::string& group, const std::string& name) {
  return "attribute " + name + " of group " + group;
}

/// numpy-style name of an HDF5 type: int32, uint64, float64, string, compound, ...
std::string type_name(hid_t type) {
  const std::size_t bits = 8 * H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + to_string(bits);
    case H5T_FLOAT: return "float" + to_string(bits);
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_ARRAY: return "array";
    case H5T_VLEN: return "vlen";
    case H5T_OPAQUE: return "opaque";
    case H5T_REFERENCE: return "reference";
    default: return "unknown type";
  }
}

template <typename T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return H5T_NATIVE_INT32;
  if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
  if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
}

// ---- opening ---------------------------------------------------------------------------------

h5_file open_for_read(const std::string& path) {
  silence_hdf5_errors();
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) DSPMV_BAD_INPUT(path, "", "no such file");
  if (std::filesystem::is_directory(status)) DSPMV_BAD_INPUT(path, "", "is a directory, not an HDF5 file");
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 == 0) DSPMV_BAD_INPUT(path, "", "not an HDF5 file (no HDF5 signature found)");
  if (is_hdf5 < 0) DSPMV_BAD_INPUT(path, "", "cannot be read: " + hdf5_error_text());
  h5_plist fapl = file_access_list();
  h5_file file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()));
  if (!file) DSPMV_BAD_INPUT(path, "", "cannot open the HDF5 file (truncated or corrupt?): " + hdf5_error_text());
  return file;
}

/// True when every component of the absolute `object_path` exists (H5Lexists fails, rather than
/// returning false, when an intermediate group is missing).
bool path_exists(hid_t file, const std::string& object_path) {
  if (object_path == "/") return true;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = object_path.find('/', pos + 1);
    const std::string prefix = object_path.substr(0, pos);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
  }
  return true;
}

bool has_link(hid_t group, const char* name) {
  const htri_t r = H5Lexists(group, name, H5P_DEFAULT);
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

bool has_attribute(hid_t object, const char* name) {
  const htri_t r = H5Aexists(object, name);
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

/// Opens `group` if it exists and is a group; an invalid handle otherwise.
h5_group try_open_group(hid_t file, const std::string& group) {
  if (!path_exists(file, group)) return h5_group();
  h5_object object(H5Oopen(file, group.c_str(), H5P_DEFAULT));
  if (!object || H5Iget_type(object.get()) != H5I_GROUP) {
    H5Eclear2(H5E_DEFAULT);
    return h5_group();
  }
  return h5_group(H5Gopen2(file, group.c_str(), H5P_DEFAULT));
}

/// A group "holds a matrix" when it carries one of the layouts' markers.
bool holds_matrix(hid_t group) {
  return has_attribute(group, "binsparse") || has_attribute(group, "MATLAB_sparse") || has_link(group, "indptr") ||
         has_attribute(group, "encoding-type");
}

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

/// The group to read: the one asked for, else "/A", the root, or the first group of the root
/// (in name order) that holds a matrix.
std::pair<std::string, h5_group> find_group(const std::string& path, hid_t file, const std::string& requested) {
  if (!requested.empty()) {
    const std::string group = normalize_group(requested);
    h5_group g = try_open_group(file, group);
    if (!g) DSPMV_BAD_INPUT(path, "group " + group, "does not exist (or is not a group)");
    if (!holds_matrix(g.get()))
      DSPMV_BAD_INPUT(path, "group " + group,
                      "holds no sparse matrix (expected datasets indptr, indices, data; or attribute "
                      "MATLAB_sparse; or attribute binsparse)");
    return {group, std::move(g)};
  }
  for (const char* candidate : {"/A", "/"}) {
    h5_group g = try_open_group(file, candidate);
    if (g && holds_matrix(g.get())) return {candidate, std::move(g)};
  }
  std::vector<std::string> names;
  if (H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names) < 0) H5Eclear2(H5E_DEFAULT);
  for (const auto& name : names) {
    const std::string group = "/" + name;
    h5_group g = try_open_group(file, group);
    if (g && holds_matrix(g.get())) return {group, std::move(g)};
  }
  DSPMV_BAD_INPUT(path, "", "no sparse matrix found (looked at group /A, the root and the groups of the root)");
}

// ---- attributes ------------------------------------------------------------------------------

/// A string attribute (variable- or fixed-length, scalar or one element); nullopt when absent.
std::optional<std::string> read_string_attribute(const std::string& path, const std::string& group, hid_t object,
                                                 const char* name) {
  if (!has_attribute(object, name)) return std::nullopt;
  const std::string where = attribute_where(group, name);
  h5_attribute attribute(H5Aopen(object, name, H5P_DEFAULT));
  h5_type file_type(attribute ? H5Aget_type(attribute.get()) : -1);
  h5_space space(attribute ? H5Aget_space(attribute.get()) : -1);
  if (!attribute || !file_type || !space) DSPMV_BAD_INPUT(path, where, "cannot be opened: " + hdf5_error_text());
  if (H5Tget_class(file_type.get()) != H5T_STRING)
    DSPMV_BAD_INPUT(path, where, "is " + type_name(file_type.get()) + ", expected a string");
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    DSPMV_BAD_INPUT(path, where, "holds " + to_string(H5Sget_simple_extent_npoints(space.get())) +
                                     " strings, expected one");
  std::string value;
  if (H5Tis_variable_str(file_type.get()) > 0) {
    h5_type memory_type(H5Tcopy(H5T_C_S1));
    H5Tset_size(memory_type.get(), H5T_VARIABLE);
    H5Tset_cset(memory_type.get(), H5Tget_cset(file_type.get()));
    char* text = nullptr;
    if (H5Aread(attribute.get(), memory_type.get(), &text) < 0)
      DSPMV_BAD_INPUT(path, where, "cannot be read: " + hdf5_error_text());
    if (text != nullptr) value = text;
    H5free_memory(text);
  } else {
    // Read with the file's own type: converting NULLPAD to NULLTERM of the same size would drop
    // the last character (numpy's fixed "S" strings are NULLPAD).
    const std::size_t size = H5Tget_size(file_type.get());
    std::vector<char> buffer(size + 1, '\0');
    if (H5Aread(attribute.get(), file_type.get(), buffer.data()) < 0)
      DSPMV_BAD_INPUT(path, where, "cannot be read: " + hdf5_error_text());
    value.assign(buffer.data());  // stops at the first NUL
    while (!value.empty() && value.back() == ' ') value.pop_back();  // SPACEPAD
  }
  return value;
}

/// An integer attribute of any integer type, as int64 values; nullopt when absent.
std::optional<std::vector<std::int64_t>> read_integer_attribute(const std::string& path, const std::string& group,
                                                                hid_t object, const char* name) {
  if (!has_attribute(object, name)) return std::nullopt;
  const std::string where = attribute_where(group, name);
  h5_attribute attribute(H5Aopen(object, name, H5P_DEFAULT));
  h5_type file_type(attribute ? H5Aget_type(attribute.get()) : -1);
  h5_space space(attribute ? H5Aget_space(attribute.get()) : -1);
  if (!attribute || !file_type || !space) DSPMV_BAD_INPUT(path, where, "cannot be opened: " + hdf5_error_text());
  if (H5Tget_class(file_type.get()) != H5T_INTEGER)
    DSPMV_BAD_INPUT(path, where, "is " + type_name(file_type.get()) + ", expected integers");
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0 || count > 16) DSPMV_BAD_INPUT(path, where, "has an unexpected size " + to_string(count));
  std::vector<std::int64_t> values(static_cast<std::size_t>(count));
  if (count > 0 && H5Aread(attribute.get(), H5T_NATIVE_INT64, values.data()) < 0)
    DSPMV_BAD_INPUT(path, where, "cannot be read: " + hdf5_error_text());
  return values;
}

// ---- datasets --------------------------------------------------------------------------------

/// An open one-dimensional dataset with its size and element type.
struct dataset_1d {
  h5_dataset id;
  std::string where;  ///< "dataset /A/indices", for messages
  hsize_t length = 0;
  H5T_class_t type_class = H5T_NO_CLASS;
  std::size_t type_size = 0;
  std::string type_name;
  bool is_int32 = false;    ///< native int32: read into int64 by our own widening
  bool is_float32 = false;  ///< native float: read into double by our own widening
};

/// What a dataset may hold.
enum class element_kind {
  index,  ///< integers of 32 or 64 bits
  small_index,  ///< integers of any width (Binsparse names its types explicitly)
  value   ///< integers or floats of any width
};

/// Opens group/name, which must exist, be one-dimensional and hold `kind` elements.
dataset_1d open_dataset(const std::string& path, hid_t group_id, const std::string& group, const std::string& name,
                        element_kind kind) {
  dataset_1d d;
  d.where = dataset_where(group, name);
  if (!has_link(group_id, name.c_str())) DSPMV_BAD_INPUT(path, d.where, "does not exist");
  h5_object object(H5Oopen(group_id, name.c_str(), H5P_DEFAULT));
  if (!object || H5Iget_type(object.get()) != H5I_DATASET) {
    H5Eclear2(H5E_DEFAULT);
    DSPMV_BAD_INPUT(path, d.where, "is not a dataset");
  }
  d.id = h5_dataset(H5Dopen2(group_id, name.c_str(), H5P_DEFAULT));
  h5_space space(d.id ? H5Dget_space(d.id.get()) : -1);
  h5_type type(d.id ? H5Dget_type(d.id.get()) : -1);
  if (!d.id || !space || !type) DSPMV_BAD_INPUT(path, d.where, "cannot be opened: " + hdf5_error_text());
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != 1)
    DSPMV_BAD_INPUT(path, d.where, "has rank " + to_string(rank) + ", expected a one-dimensional dataset");
  H5Sget_simple_extent_dims(space.get(), &d.length, nullptr);
  d.type_class = H5Tget_class(type.get());
  d.type_size = H5Tget_size(type.get());
  d.type_name = type_name(type.get());
  const bool integer = d.type_class == H5T_INTEGER, floating = d.type_class == H5T_FLOAT;
  switch (kind) {
    case element_kind::index:
      if (!integer || (d.type_size != 4 && d.type_size != 8))
        DSPMV_BAD_INPUT(path, d.where, "has element type " + d.type_name + ", expected a 32- or 64-bit integer");
      break;
    case element_kind::small_index:
      if (!integer || d.type_size > 8)
        DSPMV_BAD_INPUT(path, d.where, "has element type " + d.type_name + ", expected an integer type");
      break;
    case element_kind::value:
      if (d.type_class == H5T_COMPOUND)
        DSPMV_BAD_INPUT(path, d.where, "has a compound element type: complex matrices are not supported");
      if (!integer && !floating)
        DSPMV_BAD_INPUT(path, d.where, "has element type " + d.type_name + ", expected a float or integer type");
      break;
  }
  d.is_int32 = H5Tequal(type.get(), H5T_NATIVE_INT32) > 0;
  d.is_float32 = H5Tequal(type.get(), H5T_NATIVE_FLOAT) > 0;
  return d;
}

/// Reads entries [offset, offset + count) as T (HDF5 converts the type when it differs), in
/// hyperslabs of at most 1 GiB.
template <typename T>
void read_direct(const std::string& path, const dataset_1d& d, hsize_t offset, hsize_t count, T* out) {
  if (count == 0) return;
  h5_space file_space(H5Dget_space(d.id.get()));
  const hsize_t piece = max_piece_bytes / std::max(sizeof(T), d.type_size);
  for (hsize_t done = 0; done < count;) {
    hsize_t n = std::min(piece, count - done);
    const hsize_t start = offset + done;
    h5_space memory_space(H5Screate_simple(1, &n, nullptr));
    if (!file_space || !memory_space ||
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr) < 0 ||
        H5Dread(d.id.get(), native_type<T>(), memory_space.get(), file_space.get(), H5P_DEFAULT, out + done) < 0)
      DSPMV_BAD_INPUT(path, d.where, "cannot read entries [" + to_string(start) + ", " + to_string(start + n) +
                                         "): " + hdf5_error_text());
    done += n;
  }
}

/// Reads narrow entries through a bounded scratch buffer and widens them: faster than HDF5's
/// conversion path, which converts through a small buffer with per-element overflow checks.
template <typename Wide, typename Narrow>
void read_widened(const std::string& path, const dataset_1d& d, hsize_t offset, hsize_t count, Wide* out) {
  auto scratch = make_buffer<Narrow>(std::min<hsize_t>(count, widen_piece_entries));
  for (hsize_t done = 0; done < count;) {
    const hsize_t n = std::min<hsize_t>(scratch.size(), count - done);
    read_direct(path, d, offset + done, n, scratch.data());
    // Parallel: the reader of the GPU setup is bound by this pass and the check below, not by
    // HDF5's copy out of the page cache (jobs/results/2026-11-23_h100_setup).
    const auto* in = scratch.data();
    Wide* to = out + done;
#pragma omp parallel for schedule(static) if (n >= parallel_entries)
    for (hsize_t k = 0; k < n; ++k) to[k] = static_cast<Wide>(in[k]);
    done += n;
  }
}

/// Entries [offset, offset + count) as int64 (indices) or double (values).
template <typename T>
std::vector<T> read_entries(const std::string& path, const dataset_1d& d, hsize_t offset, hsize_t count) {
  auto out = make_buffer<T>(count);
  if constexpr (std::is_same_v<T, std::int64_t>) {
    if (d.is_int32) {
      read_widened<T, std::int32_t>(path, d, offset, count, out.data());
      return out;
    }
  } else {
    if (d.is_float32) {
      read_widened<T, float>(path, d, offset, count, out.data());
      return out;
    }
  }
  read_direct(path, d, offset, count, out.data());
  return out;
}

std::int64_t read_one(const std::string& path, const dataset_1d& d, hsize_t at) {
  std::int64_t v = 0;
  read_direct(path, d, at, 1, &v);
  return v;
}

// ---- layouts ---------------------------------------------------------------------------------

/// Where a matrix lies in the file and what its datasets hold.
struct matrix_location {
  std::string path;
  h5_file file;
  std::string group;
  h5_group group_id;
  h5_layout layout = h5_layout::native_csr;
  global_index_type rows = 0, cols = 0;
  offset_type nnz = 0;
  /// Native / Binsparse CSR: row pointer, column indices. MATLAB: jc (column pointer), ir (row
  /// indices). Binsparse COO: row indices (`major`), column indices (`minor`).
  std::optional<dataset_1d> major, minor, values;
  bool iso_values = false;  ///< Binsparse iso[...]: one stored value shared by every entry
};

void describe_native(matrix_location& m) {
  const std::string& path = m.path;
  hid_t g = m.group_id.get();
  if (auto type = read_string_attribute(path, m.group, g, "encoding-type")) {
    if (*type == "csc_matrix")
      DSPMV_BAD_INPUT(path, attribute_where(m.group, "encoding-type"),
                      "is csc_matrix: only CSR groups are read (convert with scipy's .tocsr())");
    if (*type != "csr_matrix") DSPMV_BAD_INPUT(path, attribute_where(m.group, "encoding-type"),
                                               "is \"" + *type + "\", expected \"csr_matrix\"");
  }
  // h5sparse writes its shape under another name; accept it when "shape" is absent.
  const char* shape_name = has_attribute(g, "shape") || !has_attribute(g, "h5sparse_shape") ? "shape" : "h5sparse_shape";
  const auto shape = read_integer_attribute(path, m.group, g, shape_name);
  const std::string shape_where = attribute_where(m.group, shape_name);
  if (!shape) DSPMV_BAD_INPUT(path, shape_where, "is missing (expected int64[2]: rows, cols)");
  if (shape->size() != 2)
    DSPMV_BAD_INPUT(path, shape_where, "has " + to_string(shape->size()) + " entries, expected 2 (rows, cols)");
  if ((*shape)[0] < 0 || (*shape)[1] < 0)
    DSPMV_BAD_INPUT(path, shape_where, "is negative: " + to_string((*shape)[0]) + " x " + to_string((*shape)[1]));
  m.rows = (*shape)[0];
  m.cols = (*shape)[1];
  m.major = open_dataset(path, g, m.group, "indptr", element_kind::index);
  m.minor = open_dataset(path, g, m.group, "indices", element_kind::index);
  m.values = open_dataset(path, g, m.group, "data", element_kind::value);
  m.nnz = static_cast<offset_type>(m.minor->length);
}

void describe_matlab(matrix_location& m) {
  const std::string& path = m.path;
  hid_t g = m.group_id.get();
  const auto rows = read_integer_attribute(path, m.group, g, "MATLAB_sparse");
  if (rows->size() != 1 || (*rows)[0] < 0)
    DSPMV_BAD_INPUT(path, attribute_where(m.group, "MATLAB_sparse"), "must hold one non-negative row count");
  if (auto cls = read_string_attribute(path, m.group, g, "MATLAB_class"); cls && *cls != "double" && *cls != "logical")
    DSPMV_BAD_INPUT(path, attribute_where(m.group, "MATLAB_class"), "is \"" + *cls + "\", expected double or logical");
  m.rows = (*rows)[0];
  m.major = open_dataset(path, g, m.group, "jc", element_kind::index);
  if (m.major->length < 1) DSPMV_BAD_INPUT(path, m.major->where, "is empty, expected columns + 1 entries");
  m.cols = static_cast<global_index_type>(m.major->length) - 1;
  // MATLAB may leave ir and data out of a matrix without nonzeros.
  if (!has_link(g, "ir") && !has_link(g, "data") && read_one(path, *m.major, m.major->length - 1) == 0) return;
  m.minor = open_dataset(path, g, m.group, "ir", element_kind::index);
  m.values = open_dataset(path, g, m.group, "data", element_kind::value);
  m.nnz = static_cast<offset_type>(m.minor->length);
}

void describe_binsparse(matrix_location& m) {
  const std::string& path = m.path;
  hid_t g = m.group_id.get();
  const std::string where = attribute_where(m.group, "binsparse");
  const auto text = read_string_attribute(path, m.group, g, "binsparse");
  const auto root = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) DSPMV_BAD_INPUT(path, where, "is not a JSON object");
  // The 0.1 spec nests the descriptor under "binsparse"; early writers put its keys at the top.
  const auto& j = root.contains("binsparse") && root["binsparse"].is_object() ? root["binsparse"] : root;
  if (!j.contains("format") || !j["format"].is_string()) DSPMV_BAD_INPUT(path, where, "has no \"format\" string");
  const std::string format = j["format"].get<std::string>();
  if (format == "CSR")
    m.layout = h5_layout::binsparse_csr;
  else if (format == "COO" || format == "COOR")
    m.layout = h5_layout::binsparse_coo;
  else
    DSPMV_BAD_INPUT(path, where, "format \"" + format + "\" is not supported (CSR, COO)");
  if (j.contains("structure") && j["structure"] != "general")
    DSPMV_BAD_INPUT(path, where, "structure " + j["structure"].dump() + " is not supported (general only)");
  const auto& shape = j.contains("shape") ? j["shape"] : nlohmann::json();
  if (!shape.is_array() || shape.size() != 2 || !shape[0].is_number_integer() || !shape[1].is_number_integer() ||
      shape[0].get<std::int64_t>() < 0 || shape[1].get<std::int64_t>() < 0)
    DSPMV_BAD_INPUT(path, where, "\"shape\" must be [rows, cols] of non-negative integers");
  m.rows = shape[0].get<std::int64_t>();
  m.cols = shape[1].get<std::int64_t>();
  if (!j.contains("number_of_stored_values") || !j["number_of_stored_values"].is_number_integer() ||
      j["number_of_stored_values"].get<std::int64_t>() < 0)
    DSPMV_BAD_INPUT(path, where, "\"number_of_stored_values\" must be a non-negative integer");
  m.nnz = j["number_of_stored_values"].get<std::int64_t>();
  if (j.contains("data_types") && j["data_types"].is_object() && j["data_types"].contains("values") &&
      j["data_types"]["values"].is_string())
    m.iso_values = j["data_types"]["values"].get<std::string>().rfind("iso[", 0) == 0;

  const bool csr = m.layout == h5_layout::binsparse_csr;
  m.major = open_dataset(path, g, m.group, csr ? "pointers_to_1" : "indices_0", element_kind::small_index);
  m.minor = open_dataset(path, g, m.group, "indices_1", element_kind::small_index);
  m.values = open_dataset(path, g, m.group, "values", element_kind::value);
  if (!csr && static_cast<offset_type>(m.major->length) != m.nnz)
    DSPMV_BAD_INPUT(path, m.major->where, "has " + to_string(m.major->length) +
                                              " entries, expected number_of_stored_values = " + to_string(m.nnz));
}

/// Opens the file, finds the group and checks presence, types and sizes of its datasets.
matrix_location locate(const std::string& path, const h5_read_options& options) {
  matrix_location m;
  m.path = path;
  m.file = open_for_read(path);
  std::tie(m.group, m.group_id) = find_group(path, m.file.get(), options.group);
  hid_t g = m.group_id.get();
  if (has_attribute(g, "binsparse")) {
    describe_binsparse(m);
  } else if (has_attribute(g, "MATLAB_sparse")) {
    m.layout = h5_layout::matlab;
    describe_matlab(m);
  } else {
    m.layout = h5_layout::native_csr;
    describe_native(m);
  }
  // Sizes every layout shares. rows + 1 (the row pointer's length) must not overflow.
  constexpr global_index_type most = std::numeric_limits<global_index_type>::max();
  if (m.rows >= most || m.cols >= most)
    DSPMV_BAD_INPUT(path, "group " + m.group, "shape " + to_string(m.rows) + " x " + to_string(m.cols) +
                                                  " is too large: rows and columns must be below 2^63 - 1");
  if (m.layout == h5_layout::native_csr || m.layout == h5_layout::binsparse_csr) {
    if (static_cast<global_index_type>(m.major->length) != m.rows + 1)
      DSPMV_BAD_INPUT(path, m.major->where, "has " + to_string(m.major->length) + " entries, expected rows + 1 = " +
                                                to_string(m.rows + 1));
  }
  if (m.minor && static_cast<offset_type>(m.minor->length) != m.nnz)
    DSPMV_BAD_INPUT(path, m.minor->where, "has " + to_string(m.minor->length) + " entries, expected nnz = " +
                                              to_string(m.nnz));
  if (m.values) {
    const auto expected = m.iso_values ? offset_type{1} : m.nnz;
    if (static_cast<offset_type>(m.values->length) != expected)
      DSPMV_BAD_INPUT(path, m.values->where, "has " + to_string(m.values->length) + " entries, expected " +
                                                 (m.iso_values ? std::string("1 (iso values)") : "nnz = " + to_string(m.nnz)));
  }
  return m;
}

// ---- checks and conversions ------------------------------------------------------------------

/// Checks a piece of a row (or column) pointer: entries ptr[0..] belong to rows first, first + 1,
/// ...; they must lie in [0, nnz] and not decrease.
void check_pointer(const matrix_location& m, const dataset_1d& d, const std::vector<offset_type>& ptr,
                   global_index_type first, const char* unit) {
  for (std::size_t i = 0; i < ptr.size(); ++i) {
    if (ptr[i] < 0 || ptr[i] > m.nnz)
      DSPMV_BAD_INPUT(m.path, d.where, "entry " + to_string(first + static_cast<global_index_type>(i)) + " = " +
                                           to_string(ptr[i]) + " is outside [0, nnz = " + to_string(m.nnz) + "]");
    if (i > 0 && ptr[i] < ptr[i - 1])
      DSPMV_BAD_INPUT(m.path, d.where, "decreases at " + std::string(unit) + " " +
                                           to_string(first + static_cast<global_index_type>(i) - 1) + " (" +
                                           to_string(ptr[i - 1]) + " > " + to_string(ptr[i]) + ")");
  }
}

/// The pointer's ends: ptr[0] = 0 and ptr[last] = nnz, read on their own for a range read.
void check_pointer_ends(const matrix_location& m, const dataset_1d& d) {
  const auto last = d.length - 1;
  const std::int64_t front = read_one(m.path, d, 0), back = read_one(m.path, d, last);
  if (front != 0) DSPMV_BAD_INPUT(m.path, d.where, "starts at " + to_string(front) + ", expected 0");
  if (back != m.nnz)
    DSPMV_BAD_INPUT(m.path, d.where, "ends at " + to_string(back) + ", expected nnz = " + to_string(m.nnz) +
                                         " (the length of " + m.minor->where + ")");
}

void check_indices(const matrix_location& m, const dataset_1d& d, const std::vector<global_index_type>& index,
                   global_index_type bound, const char* what) {
  for (std::size_t k = 0; k < index.size(); ++k)
    if (index[k] < 0 || index[k] >= bound)
      DSPMV_BAD_INPUT(m.path, d.where, std::string(what) + " index " + to_string(index[k]) + " at entry " +
                                           to_string(k) + " is out of range [0, " + to_string(bound) + ")");
}

void check_values(const matrix_location& m, const std::vector<double>& values, const h5_read_options& options) {
  check_finite(values, 0, options.allow_nonfinite, m.path, m.values->where);
}

/// Values [offset, offset + count); checked for NaN and Inf unless `check` is false (the CSR path
/// checks them in its fused pass).
std::vector<double> read_values(const matrix_location& m, hsize_t offset, hsize_t count,
                                const h5_read_options& options, bool check = true) {
  if (!m.values) return make_buffer<double>(count);  // zeros: an empty MATLAB matrix without data
  if (m.iso_values) {
    const auto one = read_entries<double>(m.path, *m.values, 0, 1);
    check_values(m, one, options);
    auto values = make_buffer<double>(count);
    std::fill(values.begin(), values.end(), one[0]);
    return values;
  }
  auto values = read_entries<double>(m.path, *m.values, offset, count);
  if (check) check_values(m, values, options);
  return values;
}

/// Rows [range.begin, range.end) of a native or Binsparse CSR group, touching only that range.
csr_matrix<double> read_csr_rows(const matrix_location& m, row_range range, const h5_read_options& options) {
  const dataset_1d& ptr_set = *m.major;
  check_pointer_ends(m, ptr_set);
  csr_matrix<double> a;
  a.rows = range.size();
  a.cols = m.cols;
  a.row_ptr = read_entries<std::int64_t>(m.path, ptr_set, range.begin, range.size() + 1);
  check_pointer(m, ptr_set, a.row_ptr, range.begin, "row");
  const offset_type first = a.row_ptr.front(), count = a.row_ptr.back() - first;
  for (auto& p : a.row_ptr) p -= first;
  a.col_idx = read_entries<std::int64_t>(m.path, *m.minor, first, count);
  a.values = read_values(m, first, count, options, /*check=*/false);
  finish_csr_rows(a, range.begin, options.allow_nonfinite, {m.path, m.minor->where, m.values->where});
  return a;
}

/// CSR from entries grouped by a major index (MATLAB's columns) or not grouped at all (COO):
/// a counting sort by row that keeps the file's order within a row, then sum_repeated_columns.
csr_matrix<double> csr_from_triplets(const matrix_location& m, const std::vector<global_index_type>& row_of,
                                     const std::vector<global_index_type>& col_of, const std::vector<double>& values,
                                     const h5_read_options& options) {
  const global_index_type rows = m.rows, cols = m.cols;
  csr_matrix<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr = make_buffer<offset_type>(rows + 1);
  for (const auto r : row_of) ++a.row_ptr[r + 1];
  for (global_index_type r = 0; r < rows; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
  std::vector<offset_type> next(a.row_ptr.begin(), a.row_ptr.end() - 1);
  a.col_idx = make_buffer<global_index_type>(values.size());
  a.values = make_buffer<double>(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    const offset_type at = next[row_of[k]]++;
    a.col_idx[at] = col_of[k];
    a.values[at] = values[k];
  }
  // m.minor and m.values are absent only from an empty MATLAB matrix, whose rows are canonical.
  if (!rows_canonical(a))
    sum_repeated_columns(a, 0, options.allow_nonfinite, {m.path, m.minor->where, m.values->where});
  return a;
}

csr_matrix<double> read_matlab(const matrix_location& m, const h5_read_options& options) {
  const dataset_1d& jc = *m.major;
  auto col_ptr = read_entries<std::int64_t>(m.path, jc, 0, jc.length);
  check_pointer(m, jc, col_ptr, 0, "column");
  if (col_ptr.front() != 0) DSPMV_BAD_INPUT(m.path, jc.where, "starts at " + to_string(col_ptr.front()) + ", expected 0");
  if (col_ptr.back() != m.nnz)
    DSPMV_BAD_INPUT(m.path, jc.where, "ends at " + to_string(col_ptr.back()) + ", expected nnz = " + to_string(m.nnz));
  std::vector<global_index_type> row_of;
  auto col_of = make_buffer<global_index_type>(m.nnz);
  if (m.minor) {
    row_of = read_entries<std::int64_t>(m.path, *m.minor, 0, m.nnz);
    check_indices(m, *m.minor, row_of, m.rows, "row");
  }
  for (global_index_type c = 0; c < m.cols; ++c)
    std::fill(col_of.begin() + col_ptr[c], col_of.begin() + col_ptr[c + 1], c);
  return csr_from_triplets(m, row_of, col_of, read_values(m, 0, m.nnz, options), options);
}

csr_matrix<double> read_coo(const matrix_location& m, const h5_read_options& options) {
  auto row_of = read_entries<std::int64_t>(m.path, *m.major, 0, m.nnz);
  check_indices(m, *m.major, row_of, m.rows, "row");
  auto col_of = read_entries<std::int64_t>(m.path, *m.minor, 0, m.nnz);
  check_indices(m, *m.minor, col_of, m.cols, "column");
  return csr_from_triplets(m, row_of, col_of, read_values(m, 0, m.nnz, options), options);
}

csr_matrix<double> read_whole(const matrix_location& m, const h5_read_options& options) {
  switch (m.layout) {
    case h5_layout::matlab: return read_matlab(m, options);
    case h5_layout::binsparse_coo: return read_coo(m, options);
    default: return read_csr_rows(m, row_range{0, m.rows}, options);
  }
}

/// Runs `read` (a read of `rows` rows and `nnz` entries), turning an allocation failure into a
/// bad_input that gives the sizes: a small file can announce a huge matrix (MATLAB_sparse or a
/// Binsparse shape of 2^60 rows; datasets of 2^40 entries whose storage was never written).
template <typename Read>
auto within_memory(const matrix_location& m, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  DSPMV_BAD_INPUT(m.path, "group " + m.group, "a " + to_string(m.rows) + " x " + to_string(m.cols) +
                                                  " matrix with " + to_string(m.nnz) +
                                                  " nonzeros does not fit in memory");
}

// ---- writing ---------------------------------------------------------------------------------

[[noreturn]] void write_failed(const std::string& path, const std::string& where, const std::string& what) {
  throw error(path + ": " + where + ": " + what + ": " + hdf5_error_text(), __FILE__, __LINE__);
}

void write_string_attribute(const std::string& path, hid_t object, const std::string& group, const char* name,
                            const std::string& value) {
  h5_type type(H5Tcopy(H5T_C_S1));
  h5_space space(H5Screate(H5S_SCALAR));
  if (!type || !space || H5Tset_size(type.get(), H5T_VARIABLE) < 0 || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0)
    write_failed(path, attribute_where(group, name), "cannot make a string type");
  h5_attribute attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  const char* text = value.c_str();
  if (!attribute || H5Awrite(attribute.get(), type.get(), &text) < 0)
    write_failed(path, attribute_where(group, name), "cannot be written");
}

/// Writes `count` entries of `data` as a contiguous 1-D dataset of `file_type`, converting to
/// FileT ourselves in bounded pieces when Source differs, one hyperslab of at most 1 GiB at a time.
template <typename FileT, typename Source>
void write_dataset(const std::string& path, hid_t group_id, const std::string& group, const char* name,
                   hid_t file_type, const Source* data, hsize_t count) {
  const std::string where = dataset_where(group, name);
  h5_space file_space(H5Screate_simple(1, &count, nullptr));
  h5_plist create(H5Pcreate(H5P_DATASET_CREATE));
  // Every entry is written below, so HDF5 need not write fill values first.
  if (!file_space || !create || H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER) < 0)
    write_failed(path, where, "cannot set up the dataset");
  h5_dataset dataset(H5Dcreate2(group_id, name, file_type, file_space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT));
  if (!dataset) write_failed(path, where, "cannot be created");
  constexpr bool same = std::is_same_v<FileT, Source>;
  const hsize_t piece = same ? max_piece_bytes / sizeof(FileT) : widen_piece_entries;
  auto scratch = make_buffer<FileT>(same ? 0 : std::min<hsize_t>(count, piece));
  for (hsize_t done = 0; done < count;) {
    hsize_t n = std::min(piece, count - done);
    const FileT* source = nullptr;
    if constexpr (same) {
      source = data + done;
    } else {
      std::transform(data + done, data + done + n, scratch.begin(), [](Source x) { return static_cast<FileT>(x); });
      source = scratch.data();
    }
    h5_space memory_space(H5Screate_simple(1, &n, nullptr));
    if (!memory_space || H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &done, nullptr, &n, nullptr) < 0 ||
        H5Dwrite(dataset.get(), native_type<FileT>(), memory_space.get(), file_space.get(), H5P_DEFAULT, source) < 0)
      write_failed(path, where, "cannot write entries [" + to_string(done) + ", " + to_string(done + n) + ")");
    done += n;
  }
  if (!dataset.close()) write_failed(path, where, "cannot be closed");
}

/// The native layout into a new file `file_name`; `path` names the user's file in messages.
/// `created` turns true once the file exists, so that the caller removes only a file of its own.
void write_native(const std::string& path, const std::string& file_name, const csr_matrix<double>& a,
                  const std::string& group, bool index64, bool float32, bool& created) {
  h5_plist fapl = file_access_list();
  // The 1.8 file format checksums the superblock and every object header, so a damaged file is
  // reported as such; HDF5 1.10 decodes the unchecksummed original format blindly and can crash
  // on corrupt attribute messages. HDF5 1.8+ (h5py, anndata, MATLAB R2011+) reads this format.
  if (!fapl || H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18) < 0)
    write_failed(path, "file " + file_name, "cannot set the file format");
  h5_file file(H5Fcreate(file_name.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()));
  if (!file) DSPMV_BAD_INPUT(path, "", "cannot create " + file_name + ": " + hdf5_error_text());
  created = true;
  {
    h5_group g;
    if (group == "/") {
      g = h5_group(H5Gopen2(file.get(), "/", H5P_DEFAULT));
    } else {
      h5_plist link_create(H5Pcreate(H5P_LINK_CREATE));
      if (link_create) H5Pset_create_intermediate_group(link_create.get(), 1);
      g = h5_group(H5Gcreate2(file.get(), group.c_str(), link_create.get(), H5P_DEFAULT, H5P_DEFAULT));
    }
    if (!g) write_failed(path, "group " + group, "cannot be created");

    const std::int64_t shape[2] = {a.rows, a.cols};
    const hsize_t two = 2;
    h5_space shape_space(H5Screate_simple(1, &two, nullptr));
    h5_attribute shape_attribute(
        shape_space ? H5Acreate2(g.get(), "shape", H5T_STD_I64LE, shape_space.get(), H5P_DEFAULT, H5P_DEFAULT) : -1);
    if (!shape_attribute || H5Awrite(shape_attribute.get(), H5T_NATIVE_INT64, shape) < 0)
      write_failed(path, attribute_where(group, "shape"), "cannot be written");
    write_string_attribute(path, g.get(), group, "encoding-type", "csr_matrix");
    write_string_attribute(path, g.get(), group, "encoding-version", "0.1.0");

    write_dataset<std::int64_t>(path, g.get(), group, "indptr", H5T_STD_I64LE, a.row_ptr.data(), a.row_ptr.size());
    if (index64)
      write_dataset<std::int64_t>(path, g.get(), group, "indices", H5T_STD_I64LE, a.col_idx.data(), a.col_idx.size());
    else
      write_dataset<std::int32_t>(path, g.get(), group, "indices", H5T_STD_I32LE, a.col_idx.data(), a.col_idx.size());
    if (float32)
      write_dataset<float>(path, g.get(), group, "data", H5T_IEEE_F32LE, a.values.data(), a.values.size());
    else
      write_dataset<double>(path, g.get(), group, "data", H5T_IEEE_F64LE, a.values.data(), a.values.size());
  }
  // Closing flushes the metadata; a failure here means the file is incomplete.
  if (!file.close()) write_failed(path, "file " + file_name, "cannot be closed (disk full?)");
}

std::string temporary_name(const std::string& path) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(rng()));
  return path + ".tmp." + suffix;
}

}  // namespace

h5_info read_hdf5_info(const std::string& path, const h5_read_options& options) {
  const matrix_location m = locate(path, options);
  h5_info info;
  info.layout = m.layout;
  info.group = m.group;
  info.rows = m.rows;
  info.cols = m.cols;
  info.nnz = m.nnz;
  const dataset_1d* index = m.minor ? &*m.minor : nullptr;  // absent only for an empty MATLAB matrix
  info.index_type = index ? index->type_name : (m.major ? m.major->type_name : "int64");
  info.value_type = m.values ? m.values->type_name : "float64";
  return info;
}

csr_matrix<double> read_hdf5(const std::string& path, const h5_read_options& options) {
  const matrix_location m = locate(path, options);
  return within_memory(m, [&] { return read_whole(m, options); });
}

csr_matrix<double> read_hdf5_rows(const std::string& path, row_range range, const h5_read_options& options) {
  const matrix_location m = locate(path, options);
  DSPMV_REQUIRE(0 <= range.begin && range.begin <= range.end && range.end <= m.rows,
                "read_hdf5_rows: row range [" + to_string(range.begin) + ", " + to_string(range.end) +
                    ") is not within [0, " + to_string(m.rows) + ") of " + path);
  if (m.layout == h5_layout::native_csr || m.layout == h5_layout::binsparse_csr)
    return within_memory(m, [&] { return read_csr_rows(m, range, options); });
  // Column-major and unordered layouts have no per-row index in the file: read all, then slice.
  return slice_rows(within_memory(m, [&] { return read_whole(m, options); }), range);
}

std::vector<offset_type> read_hdf5_row_ptr(const std::string& path, const h5_read_options& options) {
  const matrix_location m = locate(path, options);
  if (m.layout == h5_layout::native_csr || m.layout == h5_layout::binsparse_csr) {
    auto ptr = within_memory(m, [&] { return read_entries<std::int64_t>(path, *m.major, 0, m.major->length); });
    check_pointer(m, *m.major, ptr, 0, "row");
    if (ptr.front() != 0) DSPMV_BAD_INPUT(path, m.major->where, "starts at " + to_string(ptr.front()) + ", expected 0");
    if (ptr.back() != m.nnz)
      DSPMV_BAD_INPUT(path, m.major->where, "ends at " + to_string(ptr.back()) + ", expected nnz = " + to_string(m.nnz));
    return ptr;
  }
  return within_memory(m, [&] { return read_whole(m, options); }).row_ptr;
}

void write_hdf5(const std::string& path, const csr_matrix<double>& a, const h5_write_options& options) {
  silence_hdf5_errors();
  // Refuse to write a file our reader would reject; NaN and Inf are stored (the reader decides).
  validate_csr(a, "write_hdf5: " + path, /*allow_nonfinite=*/true);
  const std::string group = normalize_group(options.group);
  const bool cols_fit_int32 = a.cols <= static_cast<global_index_type>(std::numeric_limits<std::int32_t>::max()) + 1;
  const bool index64 = options.index64 || !cols_fit_int32;

  // H5F_ACC_EXCL makes the temporary name ours; a collision (another writer) just draws again.
  std::string temporary;
  for (int attempt = 0;; ++attempt) {
    temporary = temporary_name(path);
    std::error_code ec;
    if (!std::filesystem::exists(temporary, ec) || attempt == 8) break;
  }
  bool created = false;
  try {
    write_native(path, temporary, a, group, index64, options.float32, created);
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) throw error(path + ": cannot rename " + temporary + " to it: " + ec.message(), __FILE__, __LINE__);
  } catch (...) {
    std::error_code ec;
    if (created) std::filesystem::remove(temporary, ec);
    throw;
  }
}

}  // namespace distspmv::io
