// Internal pieces of the Matrix Market reader and writer (io/ and its tests and fuzzer only).
//
// read_matrix_market() streams the file through the parser: the text (inflated on the fly for
// gzip) is parsed a window of whole lines at a time, so that only the triplets grow with the
// file. The same parse runs on bytes in memory so that the fuzzer (tests/fuzz/) can drive
// exactly the code a file read runs, gzip detection and the window boundaries included,
// without touching the disk.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <string>

#include "common/csr_matrix.hpp"
#include "io/matrix_market.hpp"

namespace distspmv::io::detail {

/// Asks the kernel to back [p, p + bytes) with transparent huge pages where the range covers
/// whole 2 MiB pages. On the development VM a 4 KiB page fault costs several microseconds, and
/// first-touch faults on the text, COO and CSR arrays took about half of a 100 MB read; with
/// THP in "madvise" mode this hint is what turns them into 512x fewer faults. Harmless where THP
/// is off or the memory is not anonymous mmap memory (the call then just fails).
inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t huge = std::uintptr_t{1} << 21;
  if (bytes < 2 * huge) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/// The same for the unused capacity of a vector, before it is first written.
template <typename Vector>
void advise_huge_pages(const Vector& v) noexcept {
  advise_huge_pages(v.data(), v.capacity() * sizeof(typename Vector::value_type));
}

/// Owning, uninitialised byte buffer. std::vector<char> would zero-fill a multi-gigabyte
/// buffer before the read overwrites it; this one only malloc/reallocs.
class byte_buffer {
 public:
  byte_buffer() = default;
  byte_buffer(const byte_buffer&) = delete;
  byte_buffer& operator=(const byte_buffer&) = delete;
  byte_buffer(byte_buffer&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  byte_buffer& operator=(byte_buffer&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = o.data_;
      size_ = o.size_;
      capacity_ = o.capacity_;
      o.data_ = nullptr;
      o.size_ = o.capacity_ = 0;
    }
    return *this;
  }
  ~byte_buffer() { std::free(data_); }

  char* data() noexcept { return data_; }
  const char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }

  /// Grows the allocation to at least `n` bytes (contents kept); throws std::bad_alloc.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    if (n > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max())) throw std::bad_alloc();
    void* p = std::realloc(data_, n);
    if (!p) throw std::bad_alloc();
    data_ = static_cast<char*>(p);
    // Only the part beyond the old capacity is untouched; advising it all is harmless.
    advise_huge_pages(data_, n);
    capacity_ = n;
  }
  /// Sets the size; new bytes are uninitialised.
  void resize(std::size_t n) {
    reserve(n);
    size_ = n;
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// True when `bytes` start with the gzip magic bytes 1f 8b.
bool is_gzip(const char* bytes, std::size_t size) noexcept;

/// Inflates a gzip stream (several concatenated members allowed, trailing garbage after a
/// complete member ignored, as gzip(1) and zlib's gzread do). Throws bad_input naming `source`
/// for truncated or corrupt data.
byte_buffer gunzip(const char* bytes, std::size_t size, const std::string& source);

/// Bounds of the parse. A size line asking for more rows than `max_rows` is rejected as
/// bad_input before the row pointers are allocated (the fuzzer sets it). The text is parsed in
/// windows of about `window_bytes`; a line may be at most `max_line_bytes` long (leading blanks
/// aside), except comment lines, which are skipped without being stored and may be any length:
/// a longer line is bad_input naming it. The text then costs window + max_line bytes (5 MiB)
/// whatever the file. Tests and the fuzzer shrink both to reach the windows' edges.
struct mm_parse_limits {
  global_index_type max_rows = std::numeric_limits<global_index_type>::max();
  std::size_t window_bytes = std::size_t{4} << 20;
  std::size_t max_line_bytes = std::size_t{1} << 20;
};

/// Parses a whole file's bytes (plain text, or gzip told by the magic bytes), streaming them
/// through the same bounded windows as a file read. `source` names the input in error
/// messages. Throws bad_input only (std::bad_alloc aside).
csr_matrix<double> parse_matrix_market(const char* bytes, std::size_t size, const std::string& source,
                                       const mm_read_options& options, mm_header* header = nullptr,
                                       const mm_parse_limits& limits = {});

/// Same, on a buffer the caller gives up (freed before the CSR is built).
csr_matrix<double> parse_matrix_market(byte_buffer&& bytes, const std::string& source,
                                       const mm_read_options& options, mm_header* header = nullptr,
                                       const mm_parse_limits& limits = {});

/// Formats `a` as `matrix coordinate real|pattern general`, 1-based, shortest round-trip
/// values, handing the text to `sink` in chunks of a few MiB. Checks the CSR's shape and column
/// range on the way (distspmv::error), so that a broken matrix never becomes a file.
void format_matrix_market(const csr_matrix<double>& a, bool pattern,
                          const std::function<void(const char*, std::size_t)>& sink);

}  // namespace distspmv::io::detail
