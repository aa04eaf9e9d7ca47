// libFuzzer target for the HDF5 reader (io/hdf5_io.hpp).
//
// The fuzz bytes do not become an HDF5 file byte for byte: HDF5 1.10 itself crashes on corrupt
// metadata it does not checksum (see the top of io/hdf5_io.cpp), which is not ours to fix. They
// drive a small generator of HDF5 structure instead, written with the HDF5 C API to a file in
// /dev/shm (a tmpfs: no disk) that the real reader then opens by name:
//   * a matrix of at most 6 x 6 (rows with unsorted or repeated columns on request, values small
//     integers or raw doubles, NaN and Inf included), stored in one of the layouts the reader
//     knows: native CSR (indptr, indices, data, attribute shape), MATLAB v7.3 (jc, ir, data,
//     attribute MATLAB_sparse), Binsparse CSR or COO (JSON attribute binsparse);
//   * in the group /A, the root, the first group of the root or a nested group, with decoys;
//   * every dataset with a fuzz-chosen element type (8- to 64-bit integers, either sign and byte
//     order, float32/64, string, compound), rank (0, 1, 2), storage (contiguous, compact, chunked,
//     deflated), extent (longer than what is written, up to 2^40 entries, the rest fill values)
//     and fill value; every attribute with a fuzz-chosen type, count and string padding;
//   * then a few "mutations": an entry overwritten by a fuzz int64, an array cut short or grown,
//     an attribute or dataset left out, a foreign JSON text.
// The contract under test:
//   * the only exception that may escape the reader is distspmv::bad_input; no crash, no
//     sanitizer report, no hang, and every HDF5 identifier closed again afterwards;
//   * what is accepted is a valid CSR (validate_csr) whose shape read_hdf5_info announced;
//     read_hdf5_rows of any range equals that slice of read_hdf5, and read_hdf5_row_ptr its row
//     pointer (when no duplicates were summed);
//   * a file the generator left intact (no mutation; index types the layout allows) is read, and
//     gives exactly the generated matrix (duplicates summed, rows sorted), or is refused only
//     because of a NaN or Inf without allow_nonfinite.
// Shapes of more than 2^16 rows, columns or nonzeros are only described (read_hdf5_info) and read
// by a short row range, not read whole: the fuzzer should explore the reader, not the allocator.
//
// Build: see tests/fuzz/CMakeLists.txt. Run:
//   fuzz_hdf5 -dict=tests/fuzz/hdf5.dict WORK_DIR tests/fuzz/corpus_hdf5
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"
#include "common/errors.hpp"
#include "io/hdf5_io.hpp"

namespace {

using distspmv::bad_input;
using distspmv::csr_matrix;
using distspmv::global_index_type;
using distspmv::offset_type;
using distspmv::row_range;
namespace io = distspmv::io;

/// Larger shapes are only described and read by a short range (see the top).
constexpr std::int64_t max_whole = std::int64_t{1} << 16;

std::string file_name;       // set once in LLVMFuzzerInitialize
constexpr auto overwrite = std::filesystem::copy_options::overwrite_existing;
ssize_t baseline_ids = 0;    // identifiers open before any input: file_types()' own

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz_hdf5: %s\n", what.c_str());
  std::abort();
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool same_matrix(const csr_matrix<double>& a, const csr_matrix<double>& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.row_ptr != b.row_ptr || a.col_idx != b.col_idx) return false;
  for (std::size_t k = 0; k < a.values.size(); ++k)
    if (!same_value(a.values[k], b.values[k])) return false;
  return true;
}

// ---- types -----------------------------------------------------------------------------------

enum class type_kind { signed_int, unsigned_int, floating, other };

struct file_type {
  hid_t id;
  type_kind kind;
  std::size_t bytes;
};

/// Element types a dataset or attribute may get. Built once (the compound and string types are
/// ours to close; they live until the process ends).
const std::vector<file_type>& file_types() {
  static const std::vector<file_type> types = [] {
    const hid_t complex_type = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(complex_type, "r", 0, H5T_IEEE_F64LE);
    H5Tinsert(complex_type, "i", 8, H5T_IEEE_F64LE);
    const hid_t string_type = H5Tcopy(H5T_C_S1);
    H5Tset_size(string_type, 8);
    return std::vector<file_type>{
        {H5T_STD_I64LE, type_kind::signed_int, 8},  {H5T_STD_I32LE, type_kind::signed_int, 4},
        {H5T_IEEE_F64LE, type_kind::floating, 8},   {H5T_STD_U64LE, type_kind::unsigned_int, 8},
        {H5T_STD_U32LE, type_kind::unsigned_int, 4}, {H5T_STD_I64BE, type_kind::signed_int, 8},
        {H5T_STD_I32BE, type_kind::signed_int, 4},  {H5T_IEEE_F32LE, type_kind::floating, 4},
        {H5T_IEEE_F64BE, type_kind::floating, 8},   {H5T_STD_I16LE, type_kind::signed_int, 2},
        {H5T_STD_U16BE, type_kind::unsigned_int, 2}, {H5T_STD_I8LE, type_kind::signed_int, 1},
        {H5T_STD_U8LE, type_kind::unsigned_int, 1}, {H5T_IEEE_F32BE, type_kind::floating, 4},
        {complex_type, type_kind::other, 16},       {string_type, type_kind::other, 8},
    };
  }();
  return types;
}

/// Mostly the first `usual` types of the list, sometimes any.
const file_type& pick_type(FuzzedDataProvider& fdp, std::size_t usual) {
  const auto& types = file_types();
  const std::uint8_t b = fdp.ConsumeIntegral<std::uint8_t>();
  if (b < 192) return types[b % usual];
  return types[b % types.size()];
}

bool is_integer(const file_type& t) { return t.kind == type_kind::signed_int || t.kind == type_kind::unsigned_int; }

// ---- the generated matrix --------------------------------------------------------------------

/// Triplets in storage order, and the matrix they must read as.
struct generated {
  global_index_type rows = 0, cols = 0;
  std::vector<std::int64_t> row, col;
  std::vector<double> value;
  bool nonfinite = false;
  bool iso = false;  ///< Binsparse iso values: every value equals value[0]
};

generated make_matrix(FuzzedDataProvider& fdp, bool small_values, bool unsigned_values, bool float32_values) {
  generated g;
  g.rows = fdp.ConsumeIntegralInRange<int>(0, 6);
  g.cols = fdp.ConsumeIntegralInRange<int>(0, 6);
  const bool reverse = fdp.ConsumeBool(), repeat = fdp.ConsumeBool();
  for (global_index_type r = 0; r < g.rows; ++r) {
    const unsigned mask = fdp.ConsumeIntegral<std::uint8_t>() & ((1u << g.cols) - 1);
    std::vector<std::int64_t> cs;
    for (int c = 0; c < g.cols; ++c)
      if (mask & (1u << c)) cs.push_back(c);
    if (repeat && !cs.empty()) cs.push_back(cs.front());  // summed on reading
    if (reverse) std::reverse(cs.begin(), cs.end());      // sorted on reading
    for (const auto c : cs) {
      g.row.push_back(r);
      g.col.push_back(c);
      double v = 0;
      if (small_values || fdp.ConsumeBool()) {
        v = fdp.ConsumeIntegralInRange<int>(unsigned_values ? 0 : -8, 7);
      } else {
        v = fdp.ConsumeFloatingPoint<double>();
        if (fdp.ConsumeIntegralInRange<int>(0, 7) == 0) v = fdp.ConsumeBool() ? NAN : -INFINITY;
        if (float32_values) v = static_cast<float>(v);
      }
      g.nonfinite = g.nonfinite || !std::isfinite(v);
      g.value.push_back(v);
    }
  }
  return g;
}

/// The generated matrix as the reader must return it: rows sorted, repeated columns summed.
csr_matrix<double> expected_matrix(const generated& g) {
  csr_matrix<double> a;
  a.rows = g.rows;
  a.cols = g.cols;
  a.row_ptr.assign(g.rows + 1, 0);
  std::vector<std::vector<std::pair<std::int64_t, double>>> by_row(g.rows);
  for (std::size_t k = 0; k < g.row.size(); ++k)
    by_row[g.row[k]].emplace_back(g.col[k], g.iso ? g.value[0] : g.value[k]);
  for (global_index_type r = 0; r < g.rows; ++r) {
    auto& row = by_row[r];
    std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first) {
        a.values.back() += row[k].second;
        continue;
      }
      a.col_idx.push_back(row[k].first);
      a.values.push_back(row[k].second);
    }
    a.row_ptr[r + 1] = static_cast<offset_type>(a.col_idx.size());
  }
  return a;
}

// ---- writing ---------------------------------------------------------------------------------

/// Writes HDF5 objects as the fuzz bytes say; `clean` turns false at the first mutation.
class writer {
 public:
  writer(FuzzedDataProvider& fdp, hid_t group) : fdp_(fdp), group_(group) {}
  bool clean = true;

  /// One in `n` times (n from the fuzz bytes' point of view: a byte below 256 / n).
  bool sometimes(int n = 16) { return fdp_.ConsumeIntegral<std::uint8_t>() < 256 / n; }

  /// A mutated copy of `v` (entry overwritten, cut short, grown), or `v` itself.
  template <typename T>
  std::vector<T> mutate(std::vector<T> v) {
    if (!sometimes(8)) return v;
    clean = false;
    switch (fdp_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
        if (!v.empty()) v[fdp_.ConsumeIntegralInRange<std::size_t>(0, v.size() - 1)] = static_cast<T>(wild());
        break;
      case 1:
        if (!v.empty()) v.pop_back();
        break;
      case 2: v.push_back(static_cast<T>(wild())); break;
      default: v.assign(fdp_.ConsumeIntegralInRange<std::size_t>(0, 8), static_cast<T>(wild())); break;
    }
    return v;
  }

  /// A fuzz integer: mostly small, sometimes any 64-bit value.
  std::int64_t wild() {
    if (fdp_.ConsumeBool()) return fdp_.ConsumeIntegralInRange<std::int64_t>(-2, 8);
    return fdp_.ConsumeIntegral<std::int64_t>();
  }

  /// A dataset `name` holding `data` (int64 or double in memory; HDF5 converts to the file type).
  template <typename T>
  void dataset(const char* name, const std::vector<T>& data, const file_type& type) {
    if (sometimes(32)) {  // left out
      clean = false;
      return;
    }
    hsize_t written = data.size(), extent = written;
    int rank = 1;
    if (sometimes(32)) {
      clean = false;
      rank = fdp_.ConsumeBool() ? 0 : 2;
    }
    h5 dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    const int storage = fdp_.ConsumeIntegralInRange<int>(0, 3);  // contiguous, compact, chunked, deflate
    if (sometimes(16)) {
      clean = false;
      extent += fdp_.ConsumeBool() ? fdp_.ConsumeIntegralInRange<hsize_t>(1, 4096)
                                   : hsize_t{1} << fdp_.ConsumeIntegralInRange<int>(20, 40);
    }
    const bool chunked = storage >= 2 || extent > 4096;
    if (chunked && rank == 1 && extent > 0) {
      const hsize_t chunk = std::min<hsize_t>(extent, fdp_.ConsumeIntegralInRange<hsize_t>(1, 16));
      H5Pset_chunk(dcpl.id, 1, &chunk);
      if (storage == 3) H5Pset_deflate(dcpl.id, 1);
    } else if (storage == 1 && rank == 1) {
      H5Pset_layout(dcpl.id, H5D_COMPACT);
    }
    if (sometimes(8)) {
      const std::int64_t fill = wild();
      if (type.kind == type_kind::other) {
      } else if (std::is_same_v<T, double>) {
        const double f = static_cast<double>(fill);
        H5Pset_fill_value(dcpl.id, H5T_NATIVE_DOUBLE, &f);
      } else {
        H5Pset_fill_value(dcpl.id, H5T_NATIVE_INT64, &fill);
      }
    }
    const hsize_t dims2[2] = {extent, 1};
    h5 space(rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, rank == 1 ? &extent : dims2, nullptr),
             H5Sclose);
    h5 set(H5Dcreate2(group_, name, type.id, space.id, H5P_DEFAULT, dcpl.id, H5P_DEFAULT), H5Dclose);
    if (set.id < 0) {
      H5Eclear2(H5E_DEFAULT);
      clean = false;
      return;
    }
    if (written == 0 || rank != 1 || type.kind == type_kind::other) {
      if (written > 0 && type.kind == type_kind::other) clean = false;
      return;
    }
    const hsize_t start = 0;
    h5 memory(H5Screate_simple(1, &written, nullptr), H5Sclose);
    H5Sselect_hyperslab(space.id, H5S_SELECT_SET, &start, nullptr, &written, nullptr);
    const hid_t memory_type = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
    if (H5Dwrite(set.id, memory_type, memory.id, space.id, H5P_DEFAULT, data.data()) < 0) {
      H5Eclear2(H5E_DEFAULT);
      clean = false;
    }
  }

  /// An integer attribute (`values`, possibly mutated, of a fuzz-chosen type and count).
  void integer_attribute(hid_t object, const char* name, std::vector<std::int64_t> values) {
    if (sometimes(32)) {
      clean = false;
      return;
    }
    values = mutate(std::move(values));
    const file_type& type = pick_type(fdp_, 2);  // int64, int32 mostly
    if (!is_integer(type)) clean = false;
    const hsize_t n = values.size();
    const bool scalar = n == 1 && fdp_.ConsumeBool();
    h5 space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
    h5 attribute(H5Acreate2(object, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (attribute.id < 0 || (n > 0 && type.kind != type_kind::other &&
                             H5Awrite(attribute.id, H5T_NATIVE_INT64, values.data()) < 0)) {
      H5Eclear2(H5E_DEFAULT);
      clean = false;
    }
  }

  /// A string attribute: variable- or fixed-length, with a fuzz-chosen padding; sometimes the
  /// fuzzer's own text, several strings, or an integer instead.
  void string_attribute(hid_t object, const char* name, std::string value) {
    if (sometimes(32)) {
      clean = false;
      return;
    }
    if (sometimes(16)) {
      clean = false;
      value = fdp_.ConsumeRandomLengthString(64);
    }
    hsize_t count = 1;
    if (sometimes(32)) {
      clean = false;
      count = fdp_.ConsumeIntegralInRange<hsize_t>(0, 2);
    }
    const int kind = fdp_.ConsumeIntegralInRange<int>(0, 3);  // vlen, NULLTERM, NULLPAD, SPACEPAD
    h5 type(H5Tcopy(H5T_C_S1), H5Tclose);
    if (sometimes(64)) {
      clean = false;
      type = h5(H5Tcopy(H5T_STD_I32LE), H5Tclose);
    } else if (kind == 0) {
      H5Tset_size(type.id, H5T_VARIABLE);
      H5Tset_cset(type.id, fdp_.ConsumeBool() ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
    } else {
      const std::size_t extra = kind == 1 ? 1 : fdp_.ConsumeIntegralInRange(0, 3);
      H5Tset_size(type.id, std::max<std::size_t>(1, value.size() + extra));
      H5Tset_strpad(type.id, kind == 1 ? H5T_STR_NULLTERM : kind == 2 ? H5T_STR_NULLPAD : H5T_STR_SPACEPAD);
    }
    h5 space(count == 1 && fdp_.ConsumeBool() ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose);
    h5 attribute(H5Acreate2(object, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (attribute.id < 0 || count == 0) {
      H5Eclear2(H5E_DEFAULT);
      return;
    }
    herr_t status = 0;
    if (H5Tget_class(type.id) == H5T_INTEGER) {
      const std::int32_t zeros[2] = {0, 0};
      status = H5Awrite(attribute.id, H5T_NATIVE_INT32, zeros);
    } else if (kind == 0) {
      const char* texts[2] = {value.c_str(), value.c_str()};
      status = H5Awrite(attribute.id, type.id, texts);
    } else {
      const std::size_t size = H5Tget_size(type.id);
      std::string buffer(size * count, kind == 3 ? ' ' : '\0');
      for (hsize_t i = 0; i < count; ++i) buffer.replace(i * size, std::min(size, value.size()), value, 0, size);
      status = H5Awrite(attribute.id, type.id, buffer.data());
      // A fixed-length string one byte too short, or an embedded NUL, loses characters.
      if (value.size() > size - (kind == 1 ? 1 : 0) || value.find('\0') != std::string::npos) clean = false;
    }
    if (status < 0) {
      H5Eclear2(H5E_DEFAULT);
      clean = false;
    }
  }

  /// An owned HDF5 identifier (the fuzzer's own, independent of the reader's RAII types).
  struct h5 {
    h5(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
    h5(const h5&) = delete;
    h5& operator=(h5&& o) noexcept {
      std::swap(id, o.id);
      std::swap(close, o.close);
      return *this;
    }
    h5(h5&& o) noexcept : id(o.id), close(o.close) { o.id = -1; }
    ~h5() {
      if (id >= 0) close(id);
    }
    hid_t id;
    herr_t (*close)(hid_t);
  };

 private:
  FuzzedDataProvider& fdp_;
  hid_t group_;
};

using h5 = writer::h5;

enum class layout { native, matlab, binsparse_csr, binsparse_coo };

/// The Binsparse descriptor, sometimes spoiled or replaced by the fuzzer's text.
std::string binsparse_json(FuzzedDataProvider& fdp, writer& w, const generated& g, bool csr,
                           const std::string& values_type) {
  std::string format = csr ? "CSR" : (fdp.ConsumeBool() ? "COO" : "COOR");
  std::int64_t rows = g.rows, cols = g.cols, nnz = static_cast<std::int64_t>(g.row.size());
  if (w.sometimes(16)) {
    w.clean = false;
    switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: format = fdp.ConsumeBool() ? "CSC" : fdp.ConsumeRandomLengthString(8); break;
      case 1: rows = w.wild(); break;
      case 2: cols = w.wild(); break;
      default: nnz = w.wild(); break;
    }
  }
  std::string body = "\"format\": \"" + format + "\", \"shape\": [" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "], \"number_of_stored_values\": " + std::to_string(nnz) +
                     ", \"data_types\": {\"pointers_to_1\": \"uint64\", \"indices_1\": \"int64\", \"values\": \"" +
                     values_type + "\"}";
  if (fdp.ConsumeBool()) body += ", \"structure\": \"general\"";
  const bool nested = fdp.ConsumeBool();
  std::string text = nested ? "{\"binsparse\": {\"version\": \"0.1\", " + body + "}}" : "{" + body + "}";
  if (w.sometimes(16)) {
    w.clean = false;
    text = w.sometimes(2) ? text.substr(0, fdp.ConsumeIntegralInRange<std::size_t>(0, text.size()))
                          : fdp.ConsumeRandomLengthString(96);
  }
  return text;
}

/// Writes the file; returns what the reader must give when `clean`, the group's name and
/// whether the file is clean.
struct written_file {
  generated g;
  std::string group;
  bool clean = false;
};

written_file write_file(FuzzedDataProvider& fdp) {
  written_file out;
  const auto which = static_cast<layout>(fdp.ConsumeIntegralInRange<int>(0, 3));
  const file_type& index_type = pick_type(fdp, 5);
  const file_type& value_type = pick_type(fdp, 8);
  const bool small_values = value_type.kind != type_kind::floating;
  out.g = make_matrix(fdp, small_values, value_type.kind == type_kind::unsigned_int,
                      value_type.kind == type_kind::floating && value_type.bytes == 4);
  generated& g = out.g;
  const bool binsparse = which == layout::binsparse_csr || which == layout::binsparse_coo;
  if (binsparse && !g.value.empty() && fdp.ConsumeIntegralInRange<int>(0, 7) == 0) g.iso = true;

  h5 fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  h5 fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (fdp.ConsumeIntegralInRange<int>(0, 7) == 0) H5Pset_userblock(fcpl.id, 512);  // as MATLAB writes
  if (fdp.ConsumeBool()) H5Pset_libver_bounds(fapl.id, H5F_LIBVER_V18, H5F_LIBVER_V18);
  h5 file(H5Fcreate(file_name.c_str(), H5F_ACC_TRUNC, fcpl.id, fapl.id), H5Fclose);
  if (file.id < 0) bug("cannot create " + file_name);

  // Where the matrix goes, and decoys: a dataset named A, an empty group, a group at /B.
  const int place = fdp.ConsumeIntegralInRange<int>(0, 7);
  out.group = place <= 3 ? "/A" : place == 4 ? "/" : place == 5 ? "/M" : "/x/y";
  const bool decoy = fdp.ConsumeBool();
  if (decoy && out.group != "/A") {
    const hsize_t one = 1;
    h5 space(H5Screate_simple(1, &one, nullptr), H5Sclose);
    if (fdp.ConsumeBool())
      h5(H5Dcreate2(file.id, "A", H5T_STD_I32LE, space.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    else
      h5(H5Gcreate2(file.id, "A", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  }
  h5 link_create(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(link_create.id, 1);
  h5 group(out.group == "/" ? H5Gopen2(file.id, "/", H5P_DEFAULT)
                            : H5Gcreate2(file.id, out.group.c_str(), link_create.id, H5P_DEFAULT, H5P_DEFAULT),
           H5Gclose);
  writer w(fdp, group.id);

  // Index types the layout reads: 32- and 64-bit integers; any integer width for Binsparse.
  const bool index_ok = is_integer(index_type) && (binsparse || index_type.bytes >= 4);
  if (!index_ok) w.clean = false;
  if (value_type.kind == type_kind::other) w.clean = false;
  const std::int64_t nnz = static_cast<std::int64_t>(g.row.size());
  std::vector<double> values = g.iso ? std::vector<double>{g.value[0]} : g.value;

  switch (which) {
    case layout::native:
    case layout::binsparse_csr: {
      std::vector<std::int64_t> ptr(g.rows + 1, 0);
      for (const auto r : g.row) ++ptr[r + 1];
      for (global_index_type r = 0; r < g.rows; ++r) ptr[r + 1] += ptr[r];
      const bool native = which == layout::native;
      const file_type& ptr_type = native ? pick_type(fdp, 5) : index_type;
      if (!is_integer(ptr_type) || (native && ptr_type.bytes < 4)) w.clean = false;
      w.dataset(native ? "indptr" : "pointers_to_1", w.mutate(ptr), ptr_type);
      w.dataset(native ? "indices" : "indices_1", w.mutate(g.col), index_type);
      w.dataset(native ? "data" : "values", w.mutate(values), value_type);
      if (native) {
        const bool h5sparse = w.sometimes(8);
        w.integer_attribute(group.id, h5sparse ? "h5sparse_shape" : "shape", {g.rows, g.cols});
        if (fdp.ConsumeBool()) {
          const bool csc = fdp.ConsumeIntegralInRange(0, 15) == 0;  // refused by name
          if (csc) w.clean = false;
          w.string_attribute(group.id, "encoding-type", csc ? "csc_matrix" : "csr_matrix");
          w.string_attribute(group.id, "encoding-version", "0.1.0");
        }
      } else {
        w.string_attribute(group.id, "binsparse",
                           binsparse_json(fdp, w, g, true, g.iso ? "iso[float64]" : "float64"));
      }
      break;
    }
    case layout::binsparse_coo:
      w.dataset("indices_0", w.mutate(g.row), index_type);
      w.dataset("indices_1", w.mutate(g.col), index_type);
      w.dataset("values", w.mutate(values), value_type);
      w.string_attribute(group.id, "binsparse", binsparse_json(fdp, w, g, false, g.iso ? "iso[int8]" : "int64"));
      break;
    case layout::matlab: {
      // Column-major: the transpose's CSR, entries grouped by column in the generated order.
      std::vector<std::int64_t> jc(g.cols + 1, 0), ir;
      std::vector<double> data;
      for (global_index_type c = 0; c < g.cols; ++c) {
        for (std::size_t k = 0; k < g.row.size(); ++k)
          if (g.col[k] == c) {
            ir.push_back(g.row[k]);
            data.push_back(g.value[k]);
          }
        jc[c + 1] = static_cast<std::int64_t>(ir.size());
      }
      // Entries of one row keep their generated order within a column (a repeat sums the same).
      std::vector<std::int64_t> row_of(ir), col_of;
      for (global_index_type c = 0; c < g.cols; ++c)
        for (auto k = jc[c]; k < jc[c + 1]; ++k) col_of.push_back(c);
      g.row = row_of;
      g.col = col_of;
      g.value = data;
      const bool empty_without_arrays = nnz == 0 && fdp.ConsumeBool();  // as MATLAB writes it
      w.dataset("jc", w.mutate(jc), index_type);
      if (!empty_without_arrays) {
        w.dataset("ir", w.mutate(ir), index_type);
        w.dataset("data", w.mutate(data), value_type);
      }
      w.integer_attribute(group.id, "MATLAB_sparse", {g.rows});
      if (fdp.ConsumeBool()) w.string_attribute(group.id, "MATLAB_class", fdp.ConsumeBool() ? "double" : "logical");
      break;
    }
  }
  out.clean = w.clean;
  return out;
}

/// Every HDF5 identifier still open, in any file: must be none once a reader call returned.
void check_nothing_open(const char* after) {
  const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) - baseline_ids;
  if (open != 0) bug(std::string(after) + " left " + std::to_string(open) + " HDF5 identifiers open");
}

std::string last_refusal;  // the message of the last bad_input, for the findings' reports

template <typename Call>
auto attempt(const char* what, Call&& call) -> std::optional<decltype(call())> {
  try {
    auto result = call();
    check_nothing_open(what);
    return result;
  } catch (const bad_input& e) {
    check_nothing_open(what);
    last_refusal = e.what();
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  file_name = std::string(dir) + "/fuzz_hdf5." + std::to_string(getpid()) + ".h5";
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // our writer's own failures are expected
  file_types();
  baseline_ids = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  std::atexit([] { std::remove(file_name.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  const written_file f = write_file(fdp);
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != baseline_ids) bug("the generator left identifiers open");
  // To look at a finding's file (h5dump): FUZZ_HDF5_KEEP=copy.h5 fuzz_hdf5 crash-...
  if (const char* keep = std::getenv("FUZZ_HDF5_KEEP")) std::filesystem::copy_file(file_name, keep, overwrite);

  io::h5_read_options options;
  options.allow_nonfinite = fdp.ConsumeBool();
  const int group_choice = fdp.ConsumeIntegralInRange<int>(0, 7);
  if (group_choice == 0) options.group = f.group;
  if (group_choice == 1) options.group = fdp.ConsumeRandomLengthString(16);
  if (f.group == "/x/y" && group_choice != 1) options.group = "x/y/";  // not found by the search

  const auto info = attempt("read_hdf5_info", [&] { return io::read_hdf5_info(file_name, options); });
  // Finite repeated entries may add up to Inf: the summed matrix decides.
  const csr_matrix<double> expected = expected_matrix(f.g);
  const bool nonfinite = f.g.nonfinite || std::any_of(expected.values.begin(), expected.values.end(),
                                                      [](double v) { return !std::isfinite(v); });
  const bool expect_success = f.clean && group_choice != 1 && (options.allow_nonfinite || !nonfinite);
  if (!info) {
    if (expect_success) bug("an intact file was refused by read_hdf5_info: " + last_refusal);
    return 0;
  }
  if (info->rows < 0 || info->cols < 0 || info->nnz < 0) bug("read_hdf5_info gave a negative size");

  if (info->rows > max_whole || info->cols > max_whole || info->nnz > max_whole) {
    // Too large to read whole here: a short range of the row-major layouts only.
    if ((info->layout == io::h5_layout::native_csr || info->layout == io::h5_layout::binsparse_csr) &&
        info->nnz <= max_whole) {
      const global_index_type back = fdp.ConsumeIntegralInRange<global_index_type>(0, 4);
      const global_index_type end = info->rows - std::min(info->rows, back);
      const row_range range{std::max<global_index_type>(0, end - 4), end};
      const auto part = attempt("read_hdf5_rows", [&] { return io::read_hdf5_rows(file_name, range, options); });
      if (part) distspmv::validate_csr(*part, "fuzz: range", true);
    }
    return 0;
  }

  const auto a = attempt("read_hdf5", [&] { return io::read_hdf5(file_name, options); });
  if (!a) {
    if (expect_success) bug("an intact file was refused by read_hdf5: " + last_refusal);
    return 0;
  }
  try {
    distspmv::validate_csr(*a, "fuzz: read_hdf5", options.allow_nonfinite);
  } catch (const bad_input& e) {
    bug(std::string("accepted an invalid matrix: ") + e.what());
  }
  if (a->rows != info->rows || a->cols != info->cols || a->nnz() > info->nnz)
    bug("the matrix differs from what read_hdf5_info announced");
  if (expect_success && !same_matrix(*a, expected)) bug("an intact file reads as another matrix");

  // Any row range: the same rows as the whole matrix.
  const global_index_type begin = fdp.ConsumeIntegralInRange<global_index_type>(0, a->rows);
  const global_index_type end = fdp.ConsumeIntegralInRange<global_index_type>(begin, a->rows);
  const auto part = attempt("read_hdf5_rows", [&] { return io::read_hdf5_rows(file_name, {begin, end}, options); });
  if (!part) bug("read_hdf5 accepted the file, read_hdf5_rows refused it: " + last_refusal);
  if (!same_matrix(*part, distspmv::slice_rows(*a, {begin, end}))) bug("read_hdf5_rows differs from read_hdf5");

  const auto ptr = attempt("read_hdf5_row_ptr", [&] { return io::read_hdf5_row_ptr(file_name, options); });
  if (!ptr) bug("read_hdf5 accepted the file, read_hdf5_row_ptr refused it: " + last_refusal);
  if (a->nnz() == info->nnz && *ptr != a->row_ptr) bug("read_hdf5_row_ptr differs from read_hdf5's row pointer");
  return 0;
}
