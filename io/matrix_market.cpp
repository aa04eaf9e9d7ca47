// Matrix Market reader and writer.
//
// Reading is "load the whole (decompressed) file, then one pass over it": a hand-written
// integer parser for the indices, std::from_chars for the values, and a line counter bumped
// once per '\n' consumed, so that every error can name its line at no cost to the fast path.
// The loaded text always ends in '\n' (one is appended when the file lacks it): every scanning
// loop then stops at a '\n' without a separate end-of-buffer test.
#include "io/matrix_market.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "io/coo.hpp"
#include "io/detail/matrix_market_parse.hpp"

namespace distspmv::io {
namespace detail {
namespace {

using std::to_string;

std::string line_where(std::int64_t line) { return "line " + to_string(line); }

/// A token of the input quoted for a message: at most 40 characters, non-printable bytes
/// shown as '?', so that binary garbage cannot make a message unreadable.
std::string quote_token(const char* p, const char* end) {
  const char* q = p;
  while (q < end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n') ++q;
  const bool cut = q - p > 40;
  if (cut) q = p + 40;
  std::string s = "'";
  for (const char* c = p; c < q; ++c) s += std::isprint(static_cast<unsigned char>(*c)) ? *c : '?';
  return s + (cut ? "...'" : "'");
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }

inline const char* skip_blanks(const char* p) noexcept {
  while (is_blank(*p)) ++p;
  return p;
}

enum class number_status { ok, not_a_number, overflow };

/// Unsigned decimal at p (no sign). On success p points past the digits. Values above
/// 18 digits are re-read with overflow checks (leading zeros make longer strings legal).
inline number_status parse_unsigned(const char*& p, std::uint64_t& value) noexcept {
  const char* s = p;
  unsigned d = static_cast<unsigned char>(*p) - '0';
  if (d > 9) return number_status::not_a_number;
  std::uint64_t v = d;
  ++p;
  while ((d = static_cast<unsigned char>(*p) - '0') <= 9) {
    v = v * 10 + d;
    ++p;
  }
  if (p - s > 18) {
    v = 0;
    for (const char* q = s; q < p; ++q) {
      d = static_cast<unsigned>(*q - '0');
      if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return number_status::overflow;
      v = v * 10 + d;
    }
  }
  value = v;
  return number_status::ok;
}

/// Signed decimal integer with optional '+' or '-'. Values beyond int64 are overflow.
inline number_status parse_signed(const char*& p, std::int64_t& value) noexcept {
  bool negative = false;
  const char* s = p;
  if (*p == '-' || *p == '+') negative = *p++ == '-';
  std::uint64_t u = 0;
  const number_status st = parse_unsigned(p, u);
  if (st != number_status::ok) {
    p = s;
    return st;
  }
  const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + negative;
  if (u > limit) return number_status::overflow;
  value = negative ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u);
  return number_status::ok;
}

/// End of a token: the next blank or newline.
inline bool at_token_end(const char* p) noexcept { return is_blank(*p) || *p == '\n'; }

/// What the banner and the size line say, and where the entries start.
struct parsed_header {
  mm_header header;
  bool pattern = false;
  bool integer = false;
  bool symmetric = false;  // symmetric or skew-symmetric: mirror off-diagonal entries
  bool skew = false;
  const char* body = nullptr;  // first byte after the size line
  std::int64_t body_line = 0;  // line number of `body`
};

/// Splits one line into blank-separated words.
std::vector<std::string_view> split_words(const char* p, const char* line_end) {
  std::vector<std::string_view> words;
  while (p < line_end) {
    while (p < line_end && is_blank(*p)) ++p;
    const char* s = p;
    while (p < line_end && !is_blank(*p)) ++p;
    if (p > s) words.emplace_back(s, static_cast<std::size_t>(p - s));
  }
  return words;
}

std::string quote(std::string_view w) { return quote_token(w.data(), w.data() + w.size()); }

/// Parses the banner and the size line of [begin, end); end[-1] must be '\n'.
parsed_header parse_header(const char* begin, const char* end, const std::string& source) {
  parsed_header h;
  const char* p = begin;
  // A UTF-8 byte order mark, as some Windows editors write, is not part of the banner.
  if (end - p >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
  const char* banner_end = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
  const auto words = split_words(p, banner_end);
  const std::string where1 = line_where(1);
  if (words.empty() || lower(words[0]) != "%%matrixmarket") {
    const std::string found = words.empty() ? "an empty line" : quote(words[0]);
    DSPMV_BAD_INPUT(source, where1,
                    "not a Matrix Market file: the first line must start with '%%MatrixMarket', found " + found);
  }
  // object
  if (words.size() < 2)
    DSPMV_BAD_INPUT(source, where1, "banner ends after '%%MatrixMarket'; expected the object word 'matrix'");
  if (lower(words[1]) != "matrix")
    DSPMV_BAD_INPUT(source, where1, "unknown object " + quote(words[1]) + " in the banner; only 'matrix' is supported");
  // format
  if (words.size() < 3)
    DSPMV_BAD_INPUT(source, where1, "banner ends after 'matrix'; expected the format word 'coordinate'");
  const std::string format = lower(words[2]);
  if (format == "array")
    DSPMV_BAD_INPUT(source, where1,
                    "dense 'array' Matrix Market files are not supported; convert to coordinate");
  if (format != "coordinate")
    DSPMV_BAD_INPUT(source, where1, "unknown format " + quote(words[2]) +
                                        " in the banner; expected 'coordinate' ('array' is not supported)");
  // field
  if (words.size() < 4)
    DSPMV_BAD_INPUT(source, where1,
                    "banner ends after 'coordinate'; expected the field word (real, integer or pattern)");
  const std::string field = lower(words[3]);
  if (field == "complex") DSPMV_BAD_INPUT(source, where1, "complex matrices are not supported");
  if (field != "real" && field != "integer" && field != "pattern")
    DSPMV_BAD_INPUT(source, where1, "unknown field " + quote(words[3]) +
                                        " in the banner; expected real, integer or pattern (complex is not supported)");
  // symmetry
  if (words.size() < 5)
    DSPMV_BAD_INPUT(source, where1, "banner ends after '" + field +
                                        "'; expected the symmetry word (general, symmetric or skew-symmetric)");
  const std::string symmetry = lower(words[4]);
  if (symmetry == "hermitian")
    DSPMV_BAD_INPUT(source, where1, "complex matrices are not supported (the banner says hermitian)");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
    DSPMV_BAD_INPUT(source, where1, "unknown symmetry " + quote(words[4]) +
                                        " in the banner; expected general, symmetric or skew-symmetric");
  if (words.size() > 5)
    DSPMV_BAD_INPUT(source, where1, "unexpected word " + quote(words[5]) + " after the symmetry in the banner");
  if (field == "pattern" && symmetry == "skew-symmetric")
    DSPMV_BAD_INPUT(source, where1, "'pattern' with 'skew-symmetric' is not valid Matrix Market (a pattern has no signs)");

  h.header.field = field;
  h.header.symmetry = symmetry;
  h.pattern = field == "pattern";
  h.integer = field == "integer";
  h.symmetric = symmetry != "general";
  h.skew = symmetry == "skew-symmetric";

  // Size line: the first line after the banner that is neither a comment nor blank.
  p = banner_end + 1;
  std::int64_t line = 2;
  for (;;) {
    if (p == end)
      DSPMV_BAD_INPUT(source, line_where(line - 1),
                      "file ends before the size line 'rows columns entries'");
    p = skip_blanks(p);
    if (*p == '\n') {
      ++p;
      ++line;
      continue;
    }
    if (*p == '%') {
      p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))) + 1;
      ++line;
      continue;
    }
    break;
  }
  const char* size_line = p;
  const char* size_end = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
  const std::string where = line_where(line);
  std::int64_t numbers[3] = {0, 0, 0};
  static const char* const names[3] = {"rows", "columns", "entries"};
  for (int i = 0; i < 3; ++i) {
    p = skip_blanks(p);
    if (*p == '\n')
      DSPMV_BAD_INPUT(source, where, std::string("size line has no ") + names[i] +
                                         " count; expected 'rows columns entries', found '" +
                                         std::string(size_line, static_cast<std::size_t>(std::min<std::ptrdiff_t>(size_end - size_line, 60))) + "'");
    const char* tok = p;
    const number_status st = parse_signed(p, numbers[i]);
    if (st == number_status::overflow)
      DSPMV_BAD_INPUT(source, where, std::string("size line: ") + names[i] + " count " + quote_token(tok, end) + " is too large");
    if (st != number_status::ok || !at_token_end(p))
      DSPMV_BAD_INPUT(source, where, std::string("size line: ") + names[i] + " count " + quote_token(tok, end) +
                                         " is not an integer; expected 'rows columns entries'");
    if (numbers[i] < 0)
      DSPMV_BAD_INPUT(source, where, std::string("size line: ") + names[i] + " count " + to_string(numbers[i]) +
                                         " is negative");
  }
  p = skip_blanks(p);
  if (*p != '\n')
    DSPMV_BAD_INPUT(source, where, "size line has unexpected text " + quote_token(p, end) +
                                       " after 'rows columns entries'");
  h.header.rows = numbers[0];
  h.header.cols = numbers[1];
  h.header.entries = numbers[2];
  if (h.symmetric && h.header.rows != h.header.cols)
    DSPMV_BAD_INPUT(source, where, "a " + symmetry + " matrix must be square, the size line says " +
                                       to_string(h.header.rows) + " x " + to_string(h.header.cols));
  h.body = p + 1;
  h.body_line = line + 1;
  return h;
}

/// Slow path for a value std::from_chars did not take as a whole token: Fortran 'D'
/// exponents and values out of double range. Returns false when the token is not a number.
bool parse_value_slow(const char* tok, const char* end, double& value, bool& overflow) {
  overflow = false;
  const char* q = tok;
  while (q < end && !at_token_end(q)) ++q;
  std::string s(tok, q);
  for (char& c : s)
    if (c == 'd' || c == 'D') c = 'e';
  if (!s.empty() && s[0] == '+') {
    s.erase(0, 1);
    if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  }
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ptr != s.data() + s.size()) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars reports underflow and overflow alike; strtod tells them apart. The token is
    // known to be a well-formed decimal number here, so the C locale's strtod reads it fully.
    errno = 0;
    v = std::strtod(s.c_str(), nullptr);
    if (std::isinf(v)) {
      overflow = true;
      return false;
    }
  } else if (r.ec != std::errc()) {
    return false;
  }
  value = v;
  return true;
}

/// One entry of the file, 0-based.
struct entry {
  std::uint64_t row;
  std::uint64_t col;
  double value;
};

/// What parse_entries needs to know about the file, in one place for the careful path.
struct entry_context {
  const parsed_header* h;
  const char* end;
  const std::string* source;
  bool allow_nonfinite;
};

/// Reads a row or column index at q (careful path); errors name which one it is.
std::uint64_t careful_index(const char*& q, const char* what, std::uint64_t limit, const entry_context& ctx,
                            std::int64_t line) {
  auto fail = [&](const std::string& problem) { DSPMV_BAD_INPUT(*ctx.source, line_where(line), problem); };
  std::uint64_t v = 0;
  const char* tok = q;
  number_status st = parse_unsigned(q, v);
  if (st == number_status::not_a_number && (*q == '-' || *q == '+')) {
    std::int64_t s = 0;
    st = parse_signed(q, s);
    if (st == number_status::ok && at_token_end(q) && s < 1)
      fail(std::string(what) + " index " + to_string(s) + " out of range [1, " + to_string(limit) + "]");
    v = static_cast<std::uint64_t>(s);
  }
  if (st == number_status::overflow)
    fail(std::string(what) + " index " + quote_token(tok, ctx.end) + " out of range [1, " + to_string(limit) + "]");
  if (st != number_status::ok || !at_token_end(q))
    fail(std::string(what) + " index " + quote_token(tok, ctx.end) + " is not a positive integer");
  if (v - 1 >= limit)  // also catches 0, which wraps around
    fail(std::string(what) + " index " + to_string(v) + " out of range [1, " + to_string(limit) + "]");
  return v - 1;
}

/// Parses one entry line starting at p (its first non-blank byte) with every check and every
/// accepted spelling; returns the entry and moves p past the line's '\n', or throws
/// bad_input naming `line`. The fast path in parse_entries hands over anything unusual here.
[[gnu::noinline, gnu::cold]] entry careful_entry(const char*& p, const entry_context& ctx, std::int64_t line) {
  const parsed_header& h = *ctx.h;
  const char* const end = ctx.end;
  auto fail = [&](const std::string& problem) { DSPMV_BAD_INPUT(*ctx.source, line_where(line), problem); };
  entry e{0, 0, 1.0};
  e.row = careful_index(p, "row", static_cast<std::uint64_t>(h.header.rows), ctx, line);
  p = skip_blanks(p);
  if (*p == '\n') fail("entry has a row index only; expected 'row column" + std::string(h.pattern ? "'" : " value'"));
  e.col = careful_index(p, "column", static_cast<std::uint64_t>(h.header.cols), ctx, line);
  if (!h.pattern) {
    p = skip_blanks(p);
    if (*p == '\n') fail("entry has no value; the banner says " + h.header.field);
    const char* tok = p;
    if (h.integer) {
      std::int64_t iv = 0;
      const number_status st = parse_signed(p, iv);
      if (st == number_status::overflow) fail("integer value " + quote_token(tok, end) + " is too large");
      if (st != number_status::ok || !at_token_end(p))
        fail("value " + quote_token(tok, end) + " is not an integer (the banner says integer)");
      e.value = static_cast<double>(iv);
    } else {
      const char* q = p;
      if (*q == '+' && q[1] != '-' && q[1] != '+') ++q;  // from_chars takes no '+'
      const auto r = std::from_chars(q, end, e.value);
      if (r.ec == std::errc() && at_token_end(r.ptr)) {
        p = r.ptr;
      } else {
        bool overflow = false;
        if (!parse_value_slow(tok, end, e.value, overflow))
          fail(overflow ? "value " + quote_token(tok, end) + " is too large for a double"
                        : "value " + quote_token(tok, end) + " is not a number");
        while (!at_token_end(p)) ++p;
      }
      if (!ctx.allow_nonfinite && !std::isfinite(e.value))
        fail("non-finite value " + quote_token(tok, end) +
             " (NaN and Inf are rejected unless allow_nonfinite / --allow-nonfinite is set)");
    }
  }
  p = skip_blanks(p);
  if (*p != '\n')
    fail("unexpected text " + quote_token(p, end) + " after the entry" +
         (h.pattern ? " (a pattern entry is 'row column')" : ""));
  ++p;
  return e;
}

/// Fast path for the common spelling of an index: 1 to 18 digits followed by a blank or '\n'.
/// Returns false (p unspecified) for anything else; the caller then re-reads the line carefully.
inline bool fast_index(const char*& p, std::uint64_t& v) noexcept {
  const char* s = p;
  unsigned d = static_cast<unsigned char>(*p) - '0';
  if (d > 9) return false;
  std::uint64_t x = d;
  ++p;
  while ((d = static_cast<unsigned char>(*p) - '0') <= 9) {
    x = x * 10 + d;
    ++p;
  }
  v = x;
  return p - s <= 18 && at_token_end(p);
}

/// Parses the entries after the header into triplets (0-based), mirroring symmetric ones.
coo_matrix parse_entries(const parsed_header& h, const char* end, const std::string& source,
                         const mm_read_options& options) {
  coo_matrix coo;
  coo.rows = h.header.rows;
  coo.cols = h.header.cols;
  const std::int64_t expected = h.header.entries;
  // Reserve what the size line says, but no more than the bytes left could hold ("1 1\n" is
  // the shortest entry), so that a lying size line cannot make us allocate terabytes.
  const auto bytes_left = static_cast<std::int64_t>(end - h.body);
  std::int64_t cap = std::min(expected, bytes_left / 4 + 1);
  if (h.symmetric) cap *= 2;
  coo.row.reserve(static_cast<std::size_t>(cap));
  coo.col.reserve(static_cast<std::size_t>(cap));
  coo.val.reserve(static_cast<std::size_t>(cap));
  advise_huge_pages(coo.row);
  advise_huge_pages(coo.col);
  advise_huge_pages(coo.val);

  const entry_context ctx{&h, end, &source, options.allow_nonfinite};
  const auto rows_u = static_cast<std::uint64_t>(h.header.rows);
  const auto cols_u = static_cast<std::uint64_t>(h.header.cols);
  // The fast path handles real values only; integer files take the careful path for values.
  const bool fast_value = !h.pattern && !h.integer;
  const bool allow_nonfinite = options.allow_nonfinite;
  std::int64_t line = h.body_line;
  std::int64_t count = 0;
  const char* p = h.body;

  while (p < end) {
    p = skip_blanks(p);
    if (*p == '\n') {  // blank line
      ++p;
      ++line;
      continue;
    }
    if (*p == '%') {  // comment
      p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))) + 1;
      ++line;
      continue;
    }
    if (count == expected)
      DSPMV_BAD_INPUT(source, line_where(line), "more entries than the " + to_string(expected) + " the size line says");

    // Fast path: "I J V" with plain digits and a value std::from_chars takes whole, in range
    // and finite; anything else (errors included) is re-read by careful_entry from `start`.
    const char* const start = p;
    entry e{0, 0, 1.0};
    bool ok = fast_index(p, e.row);
    if (ok) {
      p = skip_blanks(p);
      ok = fast_index(p, e.col);
    }
    if (ok) {
      p = skip_blanks(p);
      if (fast_value) {
        const auto r = std::from_chars(p, end, e.value);
        ok = r.ec == std::errc() && (allow_nonfinite || std::isfinite(e.value));
        p = skip_blanks(r.ptr);
      } else if (!h.pattern) {
        ok = false;
      }
    }
    ok = ok && *p == '\n' && e.row - 1 < rows_u && e.col - 1 < cols_u;
    if (ok) {
      ++p;
      --e.row;
      --e.col;
    } else {
      p = start;
      e = careful_entry(p, ctx, line);
    }
    ++line;

    const auto r = static_cast<global_index_type>(e.row);
    const auto c = static_cast<global_index_type>(e.col);
    coo.row.push_back(r);
    coo.col.push_back(c);
    coo.val.push_back(e.value);
    if (h.symmetric) {
      if (r != c) {
        coo.row.push_back(c);
        coo.col.push_back(r);
        coo.val.push_back(h.skew ? -e.value : e.value);
      } else if (h.skew && e.value != 0.0) {
        DSPMV_BAD_INPUT(source, line_where(line - 1),
                        "skew-symmetric matrix has a nonzero diagonal entry (" + to_string(r + 1) + ", " +
                            to_string(r + 1) + ")");
      }
    }
    ++count;
  }
  if (count < expected)
    DSPMV_BAD_INPUT(source, line_where(line - 1),
                    "file ends after " + to_string(count) + " entries; the size line says " + to_string(expected));
  return coo;
}

/// The parse proper, on text that ends in '\n': header and entries into triplets.
coo_matrix parse_text(const char* begin, const char* end, const std::string& source, const mm_read_options& options,
                      mm_header& header, const mm_parse_limits& limits) {
  const parsed_header h = parse_header(begin, end, source);
  header = h.header;
  if (h.header.rows > limits.max_rows)
    DSPMV_BAD_INPUT(source, "size line", to_string(h.header.rows) + " rows exceed this reader's limit of " +
                                             to_string(limits.max_rows));
  return parse_entries(h, end, source, options);
}

/// Triplets to CSR, with the checks that need the whole matrix.
csr_matrix<double> finish_csr(coo_matrix&& coo, const mm_header& header, const std::string& source,
                              const mm_read_options& options) {
  const std::size_t entries = coo.row.size();
  csr_matrix<double> a;
  try {
    a = coo_to_csr(std::move(coo));
  } catch (const std::bad_alloc&) {
    DSPMV_BAD_INPUT(source, "size line", "a " + to_string(header.rows) + " x " + to_string(header.cols) +
                                             " matrix does not fit in memory (its row pointers alone need " +
                                             to_string((header.rows + 1) / (1 << 17)) + " MiB)");
  } catch (const std::length_error&) {
    DSPMV_BAD_INPUT(source, "size line", to_string(header.rows) + " rows are more than this machine can index");
  }
  // Summing duplicates can overflow to Inf even when every value in the file is finite.
  if (!options.allow_nonfinite && static_cast<std::size_t>(a.nnz()) < entries) {
    for (global_index_type r = 0; r < a.rows; ++r)
      for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
        if (!std::isfinite(a.values[k]))
          DSPMV_BAD_INPUT(source, "entries", "summing the duplicate entries at (" + to_string(r + 1) + ", " +
                                                 to_string(a.col_idx[k] + 1) +
                                                 ") gives a non-finite value");
  }
  return a;
}

}  // namespace

bool is_gzip(const char* bytes, std::size_t size) noexcept {
  return size >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

byte_buffer gunzip(const char* bytes, std::size_t size, const std::string& source) {
  byte_buffer out;
  // The trailer's ISIZE (size mod 2^32) is a good first guess; deflate cannot expand more than
  // about 1032:1, which caps the guess for hostile trailers.
  std::size_t guess = 1 << 16;
  if (size >= 18) {
    const auto* t = reinterpret_cast<const unsigned char*>(bytes + size - 4);
    const std::size_t isize = t[0] | (t[1] << 8) | (t[2] << 16) | (static_cast<std::size_t>(t[3]) << 24);
    guess = std::max(guess, std::min(isize, size * 1032));
  }
  out.reserve(guess + 1);

  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
  struct end_guard {
    z_stream* z;
    ~end_guard() { inflateEnd(z); }
  } guard{&zs};

  std::size_t in_pos = 0, out_pos = 0;
  constexpr std::size_t max_chunk = 1u << 30;  // zlib counts in 32-bit uInt
  for (;;) {
    if (out.capacity() - out_pos < 2) out.reserve(out.capacity() + out.capacity() / 2 + (1 << 16));
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes + in_pos));
    zs.avail_in = static_cast<uInt>(std::min(size - in_pos, max_chunk));
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
    // Keep one spare byte for the '\n' the parser may append.
    zs.avail_out = static_cast<uInt>(std::min(out.capacity() - out_pos - 1, max_chunk));
    const uInt in_before = zs.avail_in, out_before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in_pos += in_before - zs.avail_in;
    out_pos += out_before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (as `cat a.gz b.gz` makes); anything else is ignored.
      if (in_pos < size && is_gzip(bytes + in_pos, size - in_pos)) {
        if (inflateReset(&zs) != Z_OK) DSPMV_BAD_INPUT(source, "gzip data", "corrupt gzip stream");
        continue;
      }
      break;
    }
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
      DSPMV_BAD_INPUT(source, "gzip data", std::string("corrupt gzip stream (zlib: ") + (zs.msg ? zs.msg : "data error") +
                                               ") after " + to_string(out_pos) + " decompressed bytes");
    if (in_pos == size && zs.avail_out != 0)
      DSPMV_BAD_INPUT(source, "gzip data", "truncated gzip file: the data end after " + to_string(out_pos) +
                                               " decompressed bytes, before the end of the stream");
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      DSPMV_BAD_INPUT(source, "gzip data", "corrupt gzip stream (zlib code " + to_string(rc) + ")");
  }
  out.resize(out_pos);
  return out;
}

csr_matrix<double> parse_matrix_market(byte_buffer&& bytes, const std::string& source,
                                       const mm_read_options& options, mm_header* header,
                                       const mm_parse_limits& limits) {
  byte_buffer text = is_gzip(bytes.data(), bytes.size()) ? gunzip(bytes.data(), bytes.size(), source)
                                                           : std::move(bytes);
  bytes = byte_buffer();  // drop the compressed bytes before the big allocations
  if (text.size() == 0) DSPMV_BAD_INPUT(source, "", "empty file, not a Matrix Market file");
  if (text.data()[text.size() - 1] != '\n') {
    const std::size_t n = text.size();
    text.resize(n + 1);
    text.data()[n] = '\n';
  }
  mm_header h;
  coo_matrix coo = parse_text(text.data(), text.data() + text.size(), source, options, h, limits);
  if (header) *header = h;
  text = byte_buffer();  // the text is no longer needed: lower the peak before building CSR
  return finish_csr(std::move(coo), h, source, options);
}

csr_matrix<double> parse_matrix_market(const char* bytes, std::size_t size, const std::string& source,
                                       const mm_read_options& options, mm_header* header,
                                       const mm_parse_limits& limits) {
  if (size > std::numeric_limits<std::size_t>::max() / 2) throw std::bad_alloc();
  byte_buffer copy;
  copy.reserve(size + 1);
  copy.resize(size);
  if (size > 0) std::memcpy(copy.data(), bytes, size);
  return parse_matrix_market(std::move(copy), source, options, header, limits);
}

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

std::string errno_text(int e) { return std::strerror(e); }

/// Reads a whole file into memory, with one spare byte for the parser's '\n'.
detail::byte_buffer read_file_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) DSPMV_BAD_INPUT(path, "", "cannot open: " + errno_text(errno));
  struct fd_guard {
    int fd;
    ~fd_guard() { ::close(fd); }
  } guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) DSPMV_BAD_INPUT(path, "", "cannot stat: " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) DSPMV_BAD_INPUT(path, "", "is a directory, not a Matrix Market file");
  detail::byte_buffer buf;
  // Regular files: size known; pipes and others: grow as needed.
  buf.reserve((st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : std::size_t{1} << 16) + 1);
  std::size_t n = 0;
  char probe[4096];
  for (;;) {
    // When the buffer is full (a regular file read to its stat size), probe for EOF with a
    // small read instead of doubling a buffer that is almost certainly large enough.
    const bool full = buf.capacity() - n <= 1;
    char* dst = full ? probe : buf.data() + n;
    const std::size_t want = full ? sizeof probe : std::min<std::size_t>(buf.capacity() - n - 1, std::size_t{1} << 30);
    const ssize_t got = ::read(fd, dst, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      DSPMV_BAD_INPUT(path, "", "cannot read: " + errno_text(errno));
    }
    if (got == 0) break;
    if (full) {  // the file grew or is not a regular file
      buf.reserve(buf.capacity() * 2 + sizeof probe);
      std::memcpy(buf.data() + n, probe, static_cast<std::size_t>(got));
    }
    n += static_cast<std::size_t>(got);
  }
  buf.resize(n);
  return buf;
}

/// Removes a temporary file unless committed (renamed into place).
class temp_file_guard {
 public:
  explicit temp_file_guard(std::string name) : name_(std::move(name)) {}
  temp_file_guard(const temp_file_guard&) = delete;
  temp_file_guard& operator=(const temp_file_guard&) = delete;
  ~temp_file_guard() {
    if (!committed_) std::remove(name_.c_str());
  }
  void commit() noexcept { committed_ = true; }

 private:
  std::string name_;
  bool committed_ = false;
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Creates "path.tmp.XXXXXX" with O_EXCL. mkstemp would create it with mode 0600; open()
/// with 0666 lets the umask decide, as for any other file the user writes.
int create_temp_file(const std::string& path, std::string& name) {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ static_cast<std::uint64_t>(::getpid()) ^
                      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = path + ".tmp.";
    for (int i = 0; i < 6; ++i) name += digits[rng() % 36];
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) DSPMV_BAD_INPUT(path, "", "cannot create the temporary file " + name + ": " + errno_text(errno));
  }
  DSPMV_BAD_INPUT(path, "", "cannot find a free temporary file name beside it");
}

}  // namespace

mm_header read_matrix_market_header(const std::string& path) {
  // gzread reads plain files as they are, so one loop serves both; read only until the size line.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    DSPMV_BAD_INPUT(path, "", "is a directory, not a Matrix Market file");
  errno = 0;
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) DSPMV_BAD_INPUT(path, "", "cannot open: " + errno_text(errno ? errno : ENOMEM));
  struct gz_guard {
    gzFile f;
    ~gz_guard() { gzclose(f); }
  } guard{gz};

  detail::byte_buffer text;
  std::size_t n = 0;
  bool eof = false;
  std::size_t scanned = 0;  // complete lines before this offset are banner, comments or blank
  std::int64_t complete_lines = 0;
  for (;;) {
    // Is the size line complete yet? Walk the new complete lines: banner, comments, blanks, size.
    const char* p = text.data() + scanned;
    const char* end = text.data() + n;
    const char* stop = nullptr;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (!nl) break;
      const char* q = p;
      while (q < nl && detail::is_blank(*q)) ++q;
      ++complete_lines;
      if (complete_lines > 1 && q < nl && *q != '%') {
        stop = nl + 1;
        break;
      }
      p = nl + 1;
    }
    scanned = static_cast<std::size_t>(p - text.data());
    if (stop || eof) {
      std::size_t len = stop ? static_cast<std::size_t>(stop - text.data()) : n;
      if (len == 0) DSPMV_BAD_INPUT(path, "", "empty file, not a Matrix Market file");
      if (text.data()[len - 1] != '\n') {
        text.reserve(len + 1);
        text.data()[len++] = '\n';
      }
      return detail::parse_header(text.data(), text.data() + len, path).header;
    }
    text.reserve(n + (1 << 16) + 1);
    const int got = gzread(gz, text.data() + n, 1 << 16);
    if (got < 0) {
      int code = 0;
      const char* msg = gzerror(gz, &code);
      if (code == Z_ERRNO) DSPMV_BAD_INPUT(path, "", "cannot read: " + errno_text(errno));
      DSPMV_BAD_INPUT(path, "gzip data", std::string("truncated or corrupt gzip file (zlib: ") + msg + ")");
    }
    if (got == 0) {
      int code = 0;
      const char* msg = gzerror(gz, &code);
      if (code != Z_OK && code != Z_STREAM_END)
        DSPMV_BAD_INPUT(path, "gzip data", std::string("truncated or corrupt gzip file (zlib: ") + msg + ")");
      eof = true;
    }
    n += static_cast<std::size_t>(got);
    text.resize(n);
  }
}

csr_matrix<double> read_matrix_market(const std::string& path, const mm_read_options& options) {
  return detail::parse_matrix_market(read_file_bytes(path), path, options);
}

void write_matrix_market(const std::string& path, const csr_matrix<double>& a, bool pattern) {
  std::string temp_name;
  const int fd = create_temp_file(path, temp_name);
  temp_file_guard temp(temp_name);
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
    struct fd_guard {
      int fd;
      ~fd_guard() {
        if (fd >= 0) ::close(fd);
      }
    } guard{fd};
    detail::format_matrix_market(a, pattern, [&](const char* data, std::size_t size) {
      while (size > 0) {
        const ssize_t put = ::write(fd, data, size);
        if (put < 0) {
          if (errno == EINTR) continue;
          write_error(errno_text(errno));
        }
        data += put;
        size -= static_cast<std::size_t>(put);
      }
    });
    guard.fd = -1;
    if (::close(fd) != 0) write_error(errno_text(errno));
  }
  if (std::rename(temp_name.c_str(), path.c_str()) != 0)
    throw error(path + ": cannot rename " + temp_name + " into place: " + errno_text(errno), __FILE__, __LINE__);
  temp.commit();
}

}  // namespace distspmv::io
