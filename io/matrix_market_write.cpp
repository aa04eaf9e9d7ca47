// Matrix Market writer: coordinate real (or pattern) general, one entry per line in the shortest
// text that reads back to the same double, through a temporary file renamed into place (plain
// text, or gzip where the name ends in .gz). The reader is matrix_market.cpp.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "io/detail/matrix_market_parse.hpp"
#include "io/detail/posix_file.hpp"
#include "io/matrix_market.hpp"

namespace distspmv::io {
namespace detail {

using std::to_string;

void format_matrix_market(const csr_matrix<double>& a, bool pattern,
                          const std::function<void(const char*, std::size_t)>& sink) {
  DSPMV_REQUIRE(a.rows >= 0 && a.cols >= 0 && a.row_ptr.size() == static_cast<std::size_t>(a.rows) + 1 &&
                    a.row_ptr[0] == 0,
                "write_matrix_market: row_ptr has " + to_string(a.row_ptr.size()) + " entries for " +
                    to_string(a.rows) + " rows (expected rows + 1, starting at 0)");
  const offset_type nnz = a.row_ptr.back();
  DSPMV_REQUIRE(nnz >= 0 && a.col_idx.size() == static_cast<std::size_t>(nnz) &&
                    a.values.size() == static_cast<std::size_t>(nnz),
                "write_matrix_market: row_ptr ends at " + to_string(nnz) + " but col_idx has " +
                    to_string(a.col_idx.size()) + " and values " + to_string(a.values.size()) + " entries");

  constexpr std::size_t chunk = 4u << 20;
  constexpr std::size_t max_line = 3 * 24 + 3;  // two int64, one double, separators
  std::string buf;
  buf.resize(chunk + max_line);
  char* out = buf.data();
  char* const flush_at = buf.data() + chunk;
  auto append = [&](std::string_view s) {
    std::memcpy(out, s.data(), s.size());
    out += s.size();
  };
  auto flush = [&] {
    sink(buf.data(), static_cast<std::size_t>(out - buf.data()));
    out = buf.data();
  };
  append(pattern ? "%%MatrixMarket matrix coordinate pattern general\n"
                 : "%%MatrixMarket matrix coordinate real general\n");
  append("% written by distspmv\n");
  char* const end = buf.data() + buf.size();
  out = std::to_chars(out, end, a.rows).ptr;
  *out++ = ' ';
  out = std::to_chars(out, end, a.cols).ptr;
  *out++ = ' ';
  out = std::to_chars(out, end, nnz).ptr;
  *out++ = '\n';
  for (global_index_type r = 0; r < a.rows; ++r) {
    const offset_type b = a.row_ptr[r], e = a.row_ptr[r + 1];
    DSPMV_REQUIRE(b <= e && e <= nnz, "write_matrix_market: row_ptr decreases or overruns at row " + to_string(r));
    for (offset_type k = b; k < e; ++k) {
      const global_index_type c = a.col_idx[k];
      DSPMV_REQUIRE(c >= 0 && c < a.cols, "write_matrix_market: column index " + to_string(c) + " of row " +
                                              to_string(r) + " out of range [0, " + to_string(a.cols) + ")");
      out = std::to_chars(out, end, r + 1).ptr;
      *out++ = ' ';
      out = std::to_chars(out, end, c + 1).ptr;
      if (!pattern) {
        *out++ = ' ';
        // Shortest representation that reads back to the same double.
        out = std::to_chars(out, end, a.values[k]).ptr;
      }
      *out++ = '\n';
      if (out >= flush_at) flush();
    }
  }
  flush();
}

}  // namespace detail

namespace {

using std::to_string;
using detail::errno_text;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void write_matrix_market(const std::string& path, const csr_matrix<double>& a, bool pattern) {
  std::string temp_name;
  const int fd = detail::create_temp_file(path, temp_name);
  detail::temp_file_guard temp(temp_name);
  auto write_error = [&](const std::string& what) {
    throw error(path + ": cannot write the temporary file " + temp_name + ": " + what, __FILE__, __LINE__);
  };

  if (ends_with(path, ".gz")) {
    gzFile gz = gzdopen(fd, "wb6");
    if (!gz) {
      ::close(fd);
      write_error("gzdopen failed");
    }
    bool closed = false;
    struct gz_guard {
      gzFile f;
      bool& closed;
      ~gz_guard() {
        if (!closed) gzclose(f);
      }
    } guard{gz, closed};
    gzbuffer(gz, 1 << 20);
    detail::format_matrix_market(a, pattern, [&](const char* data, std::size_t size) {
      while (size > 0) {
        const unsigned piece = static_cast<unsigned>(std::min<std::size_t>(size, 1u << 30));
        errno = 0;
        if (gzwrite(gz, data, piece) != static_cast<int>(piece)) {
          int code = 0;
          const char* msg = gzerror(gz, &code);
          write_error(code == Z_ERRNO ? errno_text(errno) : std::string(msg));
        }
        data += piece;
        size -= piece;
      }
    });
    closed = true;
    errno = 0;
    if (gzclose(gz) != Z_OK) write_error(errno ? errno_text(errno) : "gzclose failed");
  } else {
    detail::fd_closer guard(fd);
    detail::format_matrix_market(a, pattern, [&](const char* data, std::size_t size) {
      if (!detail::write_all(fd, data, size)) write_error(errno_text(errno));
    });
    if (::close(guard.release()) != 0) write_error(errno_text(errno));
  }
  temp.replace(path);
}

}  // namespace distspmv::io
