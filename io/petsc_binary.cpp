// PETSc binary reader and writer (layout in io/petsc_binary.hpp).
//
// Design choices, beyond what the header states:
//  - Every failure is a bad_input "FILE: WHERE: problem" with WHERE one of "header", "row
//    lengths", "column indices", "values" (or none for the file as a whole).
//  - The header is checked against the file's size before anything else is read, so a truncated
//    file is reported as such up front, with the bytes announced and found.
//  - A row range reads its own row lengths, and for its offset the lengths of the rows before it
//    or after it, whichever are fewer (offset = nz - the rest). Only the whole-matrix read and
//    read_petsc_row_ptr see every length and can check that they add up to nz; a range read checks
//    what it sees (no negative length, nothing past nz). The distributed loader reads the row
//    pointer on one rank first, so every length of a file it loads is checked once.
//  - Columns go through the same fused check as the HDF5 reader's (io/detail/csr_rows.hpp):
//    in range, values finite unless allowed, rows sorted and unique; rows that are not are
//    sorted and their repeated columns summed, as for the other formats.
//  - Reads and writes go through one scratch buffer of at most 64 MiB, byte-swapped there.
//  - The writer creates "path.tmp.XXXXXX" exclusively, writes, closes and renames it over `path`
//    (io/detail/posix_file.hpp); any failure removes it. It writes no ".info" file: MatLoad and
//    VecLoad do without one.
#include "io/petsc_binary.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "common/errors.hpp"
#include "io/detail/csr_rows.hpp"
#include "io/detail/posix_file.hpp"

namespace distspmv::io {

namespace {

using detail::errno_text;
using std::to_string;

constexpr std::int64_t mat_file_classid = 1211216;  // petscmat.h
constexpr std::int64_t vec_file_classid = 1211214;  // petscvec.h
constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
/// Bytes per read or write step: bounds the scratch buffer.
constexpr std::size_t piece_bytes = std::size_t{64} << 20;

const char* const header_where = "header";
const char* const lengths_where = "row lengths";
const char* const columns_where = "column indices";
const char* const values_where = "values";

// ---- byte order ------------------------------------------------------------------------------

/// `x` with its bytes in the other order on little-endian hosts (PETSc files are big-endian).
template <typename T>
T big_endian(T x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return x;
#else
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  static_assert(sizeof(T) == sizeof(bits));
  bits b;
  std::memcpy(&b, &x, sizeof b);
  if constexpr (sizeof(T) == 4)
    b = __builtin_bswap32(b);
  else
    b = __builtin_bswap64(b);
  std::memcpy(&x, &b, sizeof b);
  return x;
#endif
}

std::int64_t read_int(const unsigned char* p, int width) {
  if (width == 4) {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return big_endian(v);
  }
  std::int64_t v;
  std::memcpy(&v, p, 8);
  return big_endian(v);
}

bool is_class_id(std::int64_t id) { return id == mat_file_classid || id == vec_file_classid; }

/// The width of PetscInt in a file starting with `head`: 4 or 8, or 0 when it starts with no
/// matrix or vector class id at either width.
int index_width(const unsigned char* head, std::size_t n) {
  if (n >= 4 && is_class_id(read_int(head, 4))) return 4;
  if (n >= 8 && is_class_id(read_int(head, 8))) return 8;
  return 0;
}

const char* object_name(petsc_object o) { return o == petsc_object::matrix ? "matrix" : "vector"; }

// ---- reading ---------------------------------------------------------------------------------

/// An open PETSc binary file whose header has been checked against its size.
class petsc_file {
 public:
  petsc_file(const std::string& path, std::optional<petsc_object> expected) : path_(path), fd_(open_file(path)) {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) DSPMV_BAD_INPUT(path, "", "cannot stat: " + errno_text(errno));
    if (S_ISDIR(st.st_mode)) DSPMV_BAD_INPUT(path, "", "is a directory, not a PETSc binary file");
    size_ = static_cast<std::uint64_t>(st.st_size);
    read_header(expected);
    if (info_.object == petsc_object::matrix) {
      check_fits(lengths_at(), static_cast<std::uint64_t>(info_.rows), "row lengths");
      // nz capped at the largest 32-bit PetscInt: the row lengths tell the total.
      if (info_.index_bytes == 4 && info_.nnz == int32_max)
        info_.nnz = sum_lengths(0, info_.rows, nullptr, std::numeric_limits<offset_type>::max());
      check_fits(columns_at(), static_cast<std::uint64_t>(info_.nnz), "column indices");
    }
    check_values_fit();
  }

  const petsc_info& info() const { return info_; }
  const std::string& path() const { return path_; }
  std::uint64_t width() const { return static_cast<std::uint64_t>(info_.index_bytes); }
  std::uint64_t lengths_at() const { return 4 * width(); }
  std::uint64_t columns_at() const { return (4 + static_cast<std::uint64_t>(info_.rows)) * width(); }
  std::uint64_t values_at() const {
    return info_.object == petsc_object::matrix ? columns_at() + static_cast<std::uint64_t>(info_.nnz) * width()
                                                : 2 * width();
  }

  /// Entries [first, first + count) of the big-endian array of T starting at byte `at`, in pieces
  /// of at most 64 MiB: use(values, n, index of values[0]).
  template <typename T, typename Use>
  void scan(std::uint64_t at, std::int64_t first, std::int64_t count, const char* where, Use&& use) const {
    std::vector<T> piece(static_cast<std::size_t>(std::min<std::int64_t>(count, piece_bytes / sizeof(T))));
    for (std::int64_t done = 0; done < count;) {
      const auto n = std::min<std::int64_t>(static_cast<std::int64_t>(piece.size()), count - done);
      const std::uint64_t offset = at + static_cast<std::uint64_t>(first + done) * sizeof(T);
      const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
      const std::int64_t got = detail::read_at(fd_.get(), offset, piece.data(), bytes);
      if (got < 0) DSPMV_BAD_INPUT(path_, where, "cannot read: " + errno_text(errno));
      if (static_cast<std::size_t>(got) != bytes)
        DSPMV_BAD_INPUT(path_, where, "truncated file: entries from " + to_string(first + done) +
                                          " on lie past its end (" + to_string(size_) + " bytes)");
      for (std::int64_t k = 0; k < n; ++k) piece[k] = big_endian(piece[k]);
      use(piece.data(), n, first + done);
      done += n;
    }
  }

  /// scan() over PetscInt entries, whichever their width.
  template <typename Use>
  void scan_integers(std::uint64_t at, std::int64_t first, std::int64_t count, const char* where, Use&& use) const {
    if (info_.index_bytes == 4)
      scan<std::int32_t>(at, first, count, where, use);
    else
      scan<std::int64_t>(at, first, count, where, use);
  }

  /// Sum of the lengths of rows [begin, end), each checked non-negative, the running sum at most
  /// `bound`; with `out`, the lengths are stored at out[0 .. end - begin).
  offset_type sum_lengths(global_index_type begin, global_index_type end, offset_type* out, offset_type bound) const {
    offset_type sum = 0;
    scan_integers(lengths_at(), begin, end - begin, lengths_where, [&](const auto* p, std::int64_t n, std::int64_t from) {
      for (std::int64_t k = 0; k < n; ++k) {
        const offset_type length = p[k];
        if (length < 0)
          DSPMV_BAD_INPUT(path_, lengths_where, "row " + to_string(from + k) + " has negative length " + to_string(length));
        if (length > bound - sum)
          DSPMV_BAD_INPUT(path_, lengths_where, "rows " + to_string(begin) + " to " + to_string(from + k) +
                                                    " alone hold more than nz = " + to_string(bound) +
                                                    " nonzeros (the header's count)");
        sum += length;
        if (out != nullptr) out[from + k - begin] = length;
      }
    });
    return sum;
  }

 private:
  static int open_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) DSPMV_BAD_INPUT(path, "", errno == ENOENT ? std::string("no such file") : "cannot open: " + errno_text(errno));
    return fd;
  }

  void read_header(std::optional<petsc_object> expected) {
    unsigned char head[32] = {};
    const std::int64_t got = detail::read_at(fd_.get(), 0, head, sizeof head);
    if (got < 0) DSPMV_BAD_INPUT(path_, "", "cannot read: " + errno_text(errno));
    const auto n = static_cast<std::size_t>(got);
    const int width = index_width(head, n);
    if (width == 0) {
      if (n < 4) DSPMV_BAD_INPUT(path_, header_where, "the file has " + to_string(n) + " bytes: not a PETSc binary file");
      DSPMV_BAD_INPUT(path_, header_where,
                      "starts with class id " + to_string(read_int(head, 4)) +
                          ", not that of a PETSc matrix (MAT_FILE_CLASSID " + to_string(mat_file_classid) +
                          ") or vector (VEC_FILE_CLASSID " + to_string(vec_file_classid) + ")");
    }
    info_.index_bytes = width;
    info_.object = read_int(head, width) == mat_file_classid ? petsc_object::matrix : petsc_object::vector;
    if (expected && *expected != info_.object)
      DSPMV_BAD_INPUT(path_, header_where, std::string("holds a PETSc ") + object_name(info_.object) + ", not a " +
                                               object_name(*expected));
    const std::size_t fields = info_.object == petsc_object::matrix ? 4 : 2;
    if (n < fields * width)
      DSPMV_BAD_INPUT(path_, header_where, "truncated file: " + to_string(n) + " bytes, the " +
                                               object_name(info_.object) + " header takes " +
                                               to_string(fields * width));
    const auto field = [&](std::size_t i) { return read_int(head + i * width, width); };
    if (info_.object == petsc_object::matrix) {
      info_.rows = field(1);
      info_.cols = field(2);
      info_.nnz = field(3);
      if (info_.rows < 0 || info_.cols < 0 || info_.nnz < 0)
        DSPMV_BAD_INPUT(path_, header_where, "negative size: " + to_string(info_.rows) + " rows, " +
                                                 to_string(info_.cols) + " columns, nz = " + to_string(info_.nnz));
    } else {
      info_.rows = info_.nnz = field(1);
      info_.cols = 1;
      if (info_.rows < 0) DSPMV_BAD_INPUT(path_, header_where, "negative length " + to_string(info_.rows));
    }
  }

  /// `count` entries of `width()` bytes from byte `at` must lie within the file.
  void check_fits(std::uint64_t at, std::uint64_t count, const char* what) const {
    if (at > size_ || count > (size_ - at) / width())
      DSPMV_BAD_INPUT(path_, "", "truncated file: " + to_string(size_) + " bytes, too short for the " + what +
                                     " of a " + description());
  }

  /// The values take 8 bytes each; 4 or 16 are PETSc builds of other scalar types, named as such.
  void check_values_fit() const {
    const auto count = static_cast<std::uint64_t>(info_.nnz);
    const std::uint64_t at = values_at(), have = size_ - std::min(size_, at);
    if (have / 8 < count) {
      if (count > 0 && have == 4 * count)
        DSPMV_BAD_INPUT(path_, values_where, "4 bytes per value: written by a PETSc built with single precision; "
                                             "only double values are supported");
      DSPMV_BAD_INPUT(path_, "", "truncated file: " + to_string(size_) + " bytes, the " + description() +
                                     " takes " + to_string(at + 8 * count));
    }
    // Exactly 16 bytes per value with no PETSc object after 8: complex scalars.
    if (count > 0 && have == 16 * count) {
      unsigned char next[8] = {};
      const std::int64_t got = detail::read_at(fd_.get(), at + 8 * count, next, sizeof next);
      if (got != static_cast<std::int64_t>(sizeof next) || index_width(next, sizeof next) == 0)
        DSPMV_BAD_INPUT(path_, values_where, "16 bytes per value: written by a PETSc built with complex scalars; "
                                             "complex matrices and vectors are not supported");
    }
  }

  std::string description() const {
    const std::string bits = to_string(8 * info_.index_bytes) + "-bit integers";
    if (info_.object == petsc_object::vector) return "vector of length " + to_string(info_.rows) + " with " + bits;
    return "matrix of " + to_string(info_.rows) + " rows and " + to_string(info_.nnz) + " nonzeros with " + bits;
  }

  std::string path_;
  detail::fd_closer fd_;
  std::uint64_t size_ = 0;
  petsc_info info_;
};

/// Rows [range.begin, range.end) of an opened matrix file.
csr_matrix<double> read_rows(const petsc_file& f, row_range range, const petsc_read_options& options) {
  const petsc_info& info = f.info();
  csr_matrix<double> a;
  a.rows = range.size();
  a.cols = info.cols;
  a.row_ptr = detail::make_buffer<offset_type>(static_cast<std::size_t>(a.rows) + 1);
  const offset_type own = f.sum_lengths(range.begin, range.end, a.row_ptr.data() + 1, info.nnz);
  for (global_index_type r = 0; r < a.rows; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
  // The range's first entry, from the side with fewer rows to read.
  offset_type first = 0;
  if (range.begin <= info.rows - range.end) {
    first = f.sum_lengths(0, range.begin, nullptr, info.nnz);
  } else {
    first = info.nnz - own - f.sum_lengths(range.end, info.rows, nullptr, info.nnz);
  }
  const bool whole = range.begin == 0 && range.end == info.rows;
  if (first < 0 || first > info.nnz - own || (whole && own != info.nnz))
    DSPMV_BAD_INPUT(f.path(), lengths_where, "do not add up to nz = " + to_string(info.nnz) +
                                                 " (the header's count)" +
                                                 (whole ? ": they add up to " + to_string(own) : std::string()));
  a.col_idx = detail::make_buffer<global_index_type>(static_cast<std::size_t>(own));
  f.scan_integers(f.columns_at(), first, own, columns_where, [&](const auto* p, std::int64_t n, std::int64_t from) {
    std::copy(p, p + n, a.col_idx.begin() + (from - first));
  });
  a.values = detail::make_buffer<double>(static_cast<std::size_t>(own));
  f.scan<double>(f.values_at(), first, own, values_where, [&](const double* p, std::int64_t n, std::int64_t from) {
    std::copy(p, p + n, a.values.begin() + (from - first));
  });
  detail::finish_csr_rows(a, range.begin, options.allow_nonfinite, {f.path(), columns_where, values_where});
  return a;
}

void require_range(const petsc_file& f, row_range range, const char* function) {
  DSPMV_REQUIRE(0 <= range.begin && range.begin <= range.end && range.end <= f.info().rows,
                std::string(function) + ": row range [" + to_string(range.begin) + ", " + to_string(range.end) +
                    ") is not within [0, " + to_string(f.info().rows) + ") of " + f.path());
}

/// Entries [range.begin, range.end) of an opened vector file.
std::vector<double> read_entries(const petsc_file& f, row_range range, const petsc_read_options& options) {
  auto x = detail::make_buffer<double>(static_cast<std::size_t>(range.size()));
  f.scan<double>(f.values_at(), range.begin, range.size(), values_where,
                 [&](const double* p, std::int64_t n, std::int64_t from) {
                   std::copy(p, p + n, x.begin() + (from - range.begin));
                 });
  detail::check_finite(x, range.begin, options.allow_nonfinite, f.path(), values_where);
  return x;
}

// ---- writing ---------------------------------------------------------------------------------

/// Appends big-endian arrays to a new temporary file beside `path` through a bounded scratch
/// buffer; finish() renames it over `path`. Destroyed unfinished, it removes the temporary file.
class big_endian_writer {
 public:
  explicit big_endian_writer(const std::string& path)
      : path_(path), fd_(detail::create_temp_file(path, temp_name_)), temp_(temp_name_) {}

  /// Appends value(0), ..., value(count - 1) as T.
  template <typename T, typename Value>
  void put(std::uint64_t count, Value&& value) {
    scratch_.resize(std::min<std::uint64_t>(count * sizeof(T), piece_bytes));
    for (std::uint64_t done = 0; done < count;) {
      const std::uint64_t n = std::min<std::uint64_t>(scratch_.size() / sizeof(T), count - done);
      for (std::uint64_t k = 0; k < n; ++k) {
        const T v = big_endian(static_cast<T>(value(done + k)));
        std::memcpy(scratch_.data() + k * sizeof(T), &v, sizeof(T));
      }
      if (!detail::write_all(fd_.get(), scratch_.data(), n * sizeof(T))) fail(errno_text(errno));
      done += n;
    }
  }

  void finish() {
    if (::close(fd_.release()) != 0) fail(errno_text(errno));
    temp_.replace(path_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw error(path_ + ": cannot write the temporary file " + temp_name_ + ": " + what, __FILE__, __LINE__);
  }

  std::string path_, temp_name_;
  detail::fd_closer fd_;
  detail::temp_file_guard temp_;
  std::vector<unsigned char> scratch_;
};

template <typename Int>
void write_matrix_as(const std::string& path, const csr_matrix<double>& a) {
  big_endian_writer out(path);
  // nz past a 32-bit PetscInt is capped; readers take the total from the row lengths.
  const std::int64_t header[4] = {mat_file_classid, a.rows, a.cols,
                                  std::min<std::int64_t>(a.nnz(), std::numeric_limits<Int>::max())};
  out.put<Int>(4, [&](std::uint64_t k) { return header[k]; });
  out.put<Int>(static_cast<std::uint64_t>(a.rows), [&](std::uint64_t r) { return a.row_ptr[r + 1] - a.row_ptr[r]; });
  out.put<Int>(static_cast<std::uint64_t>(a.nnz()), [&](std::uint64_t k) { return a.col_idx[k]; });
  out.put<double>(static_cast<std::uint64_t>(a.nnz()), [&](std::uint64_t k) { return a.values[k]; });
  out.finish();
}

template <typename Int>
void write_vector_as(const std::string& path, const std::vector<double>& x) {
  big_endian_writer out(path);
  const std::int64_t header[2] = {vec_file_classid, static_cast<std::int64_t>(x.size())};
  out.put<Int>(2, [&](std::uint64_t k) { return header[k]; });
  out.put<double>(x.size(), [&](std::uint64_t k) { return x[k]; });
  out.finish();
}

template <typename Int>
std::string vector_header_as(global_index_type length) {
  std::string head;
  for (const std::int64_t field : {vec_file_classid, static_cast<std::int64_t>(length)}) {
    const Int v = big_endian(static_cast<Int>(field));
    head.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  return head;
}

}  // namespace

bool is_petsc_binary(std::string_view head) {
  return index_width(reinterpret_cast<const unsigned char*>(head.data()), head.size()) != 0;
}

petsc_info describe_petsc(const std::string& path) { return petsc_file(path, std::nullopt).info(); }

petsc_info describe_petsc(const std::string& path, petsc_object expected) {
  return petsc_file(path, expected).info();
}

csr_matrix<double> read_petsc_matrix(const std::string& path, const petsc_read_options& options) {
  const petsc_file f(path, petsc_object::matrix);
  return read_rows(f, row_range{0, f.info().rows}, options);
}

csr_matrix<double> read_petsc_matrix_rows(const std::string& path, row_range range,
                                          const petsc_read_options& options) {
  const petsc_file f(path, petsc_object::matrix);
  require_range(f, range, "read_petsc_matrix_rows");
  return read_rows(f, range, options);
}

std::vector<offset_type> read_petsc_row_ptr(const std::string& path) {
  const petsc_file f(path, petsc_object::matrix);
  const petsc_info& info = f.info();
  auto ptr = detail::make_buffer<offset_type>(static_cast<std::size_t>(info.rows) + 1);
  const offset_type sum = f.sum_lengths(0, info.rows, ptr.data() + 1, info.nnz);
  if (sum != info.nnz)
    DSPMV_BAD_INPUT(path, lengths_where, "add up to " + to_string(sum) + ", but the header says nz = " +
                                             to_string(info.nnz));
  for (global_index_type r = 0; r < info.rows; ++r) ptr[r + 1] += ptr[r];
  return ptr;
}

void write_petsc_matrix(const std::string& path, const csr_matrix<double>& a, const petsc_write_options& options) {
  // Refuse to write a file our reader would reject; NaN and Inf are stored (the reader decides).
  validate_csr(a, "write_petsc_matrix: " + path, /*allow_nonfinite=*/true);
  if (options.index64 || a.rows > int32_max || a.cols > int32_max)
    write_matrix_as<std::int64_t>(path, a);
  else
    write_matrix_as<std::int32_t>(path, a);
}

std::vector<double> read_petsc_vector(const std::string& path, const petsc_read_options& options) {
  const petsc_file f(path, petsc_object::vector);
  return read_entries(f, row_range{0, f.info().rows}, options);
}

std::vector<double> read_petsc_vector_rows(const std::string& path, row_range range,
                                           const petsc_read_options& options) {
  const petsc_file f(path, petsc_object::vector);
  require_range(f, range, "read_petsc_vector_rows");
  return read_entries(f, range, options);
}

void write_petsc_vector(const std::string& path, const std::vector<double>& x, const petsc_write_options& options) {
  if (options.index64 || x.size() > static_cast<std::size_t>(int32_max))
    write_vector_as<std::int64_t>(path, x);
  else
    write_vector_as<std::int32_t>(path, x);
}

std::string petsc_vector_header(global_index_type length, const petsc_write_options& options) {
  // The same choice of width as write_petsc_vector.
  if (options.index64 || length > int32_max) return vector_header_as<std::int64_t>(length);
  return vector_header_as<std::int32_t>(length);
}

}  // namespace distspmv::io
