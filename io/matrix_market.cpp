// Matrix Market reader (the writer is matrix_market_write.cpp).
//
// Reading streams the (decompressed) text through one pass: the text comes a window of whole
// lines at a time (line_windows: about 4 MiB, the incomplete last line carried into the next
// window), so memory does not grow with the file's text, only with its entries; a line may be
// at most 1 MiB, except comment lines, which are skipped unstored and may be any length. The
// parse: a hand-written integer parser for the indices, std::from_chars for the values, and a
// line counter bumped once per '\n' consumed, so that every error can name its line at no cost
// to the fast path. Every window ends in '\n' (one is appended after a last line that lacks
// it): every scanning loop then stops at a '\n' without a separate end-of-buffer test.
#include "io/matrix_market.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "io/coo.hpp"
#include "io/detail/matrix_market_parse.hpp"
#include "io/detail/posix_file.hpp"

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

/// What the banner and the size line say.
struct parsed_header {
  mm_header header;
  bool pattern = false;
  bool integer = false;
  bool symmetric = false;  // symmetric or skew-symmetric: mirror off-diagonal entries
  bool skew = false;
};

/// Splits one line into blank-separated words, at most `max_words` of them (the banner's
/// checks look at six: a line of a million words costs no more than one of six).
std::vector<std::string_view> split_words(const char* p, const char* line_end, std::size_t max_words) {
  std::vector<std::string_view> words;
  while (p < line_end && words.size() < max_words) {
    while (p < line_end && is_blank(*p)) ++p;
    const char* s = p;
    while (p < line_end && !is_blank(*p)) ++p;
    if (p > s) words.emplace_back(s, static_cast<std::size_t>(p - s));
  }
  return words;
}

std::string quote(std::string_view w) { return quote_token(w.data(), w.data() + w.size()); }

/// Parses the banner, line 1: [p, line_end) without its '\n'.
parsed_header parse_banner(const char* p, const char* line_end, const std::string& source) {
  parsed_header h;
  // A UTF-8 byte order mark, as some Windows editors write, is not part of the banner.
  if (line_end - p >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
  const auto words = split_words(p, line_end, 6);
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
  return h;
}

/// True when `word`, the first word of line 1, is (or, when `cut` short by the line bound,
/// may be) '%%MatrixMarket'.
bool banner_word(std::string_view word, bool cut) {
  const std::string w = lower(word);
  const std::string_view m = "%%matrixmarket";
  if (!cut) return w == m;
  return w.size() <= m.size() ? m.compare(0, w.size(), w) == 0 : w.compare(0, m.size(), m) == 0;
}

/// The bad_input for line `line`, longer than `max_line` bytes past its leading blanks (not a
/// comment; `what` it was to be: "size", "entry"). [begin, end) holds at least its first
/// max_line bytes. The same message whether the line was met whole in a window or cut short
/// at a window's edge, so that where the windows fall never shows.
[[noreturn, gnu::noinline, gnu::cold]] void line_too_long(const std::string& source, std::int64_t line,
                                                          const char* what, const char* begin, const char* end,
                                                          std::size_t max_line) {
  end = begin + std::min(max_line, static_cast<std::size_t>(end - begin));
  if (line == 1) {
    // When its first word already shows that this is no banner, say that instead.
    const auto words = split_words(begin, end, 2);
    if (!words.empty() && !banner_word(words[0], words.size() < 2)) parse_banner(begin, end, source);
    DSPMV_BAD_INPUT(source, line_where(1), "the banner line is longer than this reader's limit of " +
                                               to_string(max_line) + " bytes");
  }
  DSPMV_BAD_INPUT(source, line_where(line),
                  std::string(what) + " line is longer than this reader's limit of " + to_string(max_line) +
                      " bytes (only comment lines may be longer); it starts " + quote_token(begin, end));
}

/// Parses the size line at p (its first non-blank byte; the window ends in '\n') into `h`, and
/// returns the first byte after it. `line` is its line number.
const char* parse_size_line(parsed_header& h, const char* p, const char* end, std::int64_t line,
                            std::size_t max_line, const std::string& source) {
  const char* size_line = p;
  const char* size_end = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
  if (static_cast<std::size_t>(size_end - p) > max_line) line_too_long(source, line, "size", p, size_end, max_line);
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
    DSPMV_BAD_INPUT(source, where, "a " + h.header.symmetry + " matrix must be square, the size line says " +
                                       to_string(h.header.rows) + " x " + to_string(h.header.cols));
  return p + 1;
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
  std::size_t max_line;
};

/// Throws line_too_long when the entry line starting at `start` (its first non-blank byte) is
/// past the bound.
void check_entry_length(const char* start, const entry_context& ctx, std::int64_t line) {
  const char* nl = static_cast<const char*>(std::memchr(start, '\n', static_cast<std::size_t>(ctx.end - start)));
  if (static_cast<std::size_t>(nl - start) > ctx.max_line)
    line_too_long(*ctx.source, line, "entry", start, nl, ctx.max_line);
}

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
entry careful_entry_parse(const char*& p, const entry_context& ctx, std::int64_t line) {
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

/// careful_entry_parse, and the line bound: a line past it is reported as such whatever else is
/// wrong with it, as it is when the line is cut short at a window's edge.
[[gnu::noinline, gnu::cold]] entry careful_entry(const char*& p, const entry_context& ctx, std::int64_t line) {
  const char* const start = p;
  entry e;
  try {
    e = careful_entry_parse(p, ctx, line);
  } catch (const bad_input&) {
    check_entry_length(start, ctx, line);
    throw;
  }
  if (static_cast<std::size_t>(p - 1 - start) > ctx.max_line) check_entry_length(start, ctx, line);
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

/// The text of an input, handed out piece by piece into the caller's buffer: from bytes in
/// memory or from an open file, plain or gzip (inflated on the fly, several concatenated
/// members allowed, trailing garbage after a complete member ignored, as gzip(1) and zlib's
/// gzread do). It holds at most 1 MiB of a file's compressed input and zlib's state.
class text_stream {
 public:
  /// Bytes in memory (kept by the caller), gzip or plain as told.
  text_stream(const char* bytes, std::size_t size, bool gzip, const std::string& source)
      : source_(source), in_(bytes), in_size_(size), in_eof_(true) {
    size_guess_ = size;
    if (gzip) start_gzip(size, size >= 18 ? trailer_isize(bytes + size - 4) : 0);
  }
  /// An open file (kept open by the caller); gzip or plain is told by its first bytes.
  text_stream(int fd, const std::string& source) : source_(source), fd_(fd) {
    struct stat st {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
#ifdef POSIX_FADV_SEQUENTIAL
    if (regular) ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    in_buf_.reserve(peek_bytes);
    in_ = in_buf_.data();
    in_size_ = raw_read(in_buf_.data(), peek_bytes);
    in_eof_ = in_size_ < peek_bytes;  // raw_read stops short only at the end
    const auto file_size = regular ? static_cast<std::size_t>(st.st_size) : std::size_t{0};
    size_guess_ = file_size;
    if (is_gzip(in_, in_size_)) {
      unsigned char t[4] = {0, 0, 0, 0};
      const bool have_isize = file_size >= 18 && read_at(fd, file_size - 4, t, 4) == 4;
      start_gzip(file_size, have_isize ? trailer_isize(reinterpret_cast<const char*>(t)) : 0);
    }
  }
  text_stream(const text_stream&) = delete;
  text_stream& operator=(const text_stream&) = delete;
  ~text_stream() {
    if (gzip_) inflateEnd(&zs_);
  }

  /// Up to `n` (> 0) bytes of text into dst; 0 only at the end of the text. Throws bad_input for
  /// unreadable files and corrupt or truncated gzip data.
  std::size_t read(char* dst, std::size_t n) { return gzip_ ? inflate_some(dst, n) : copy_some(dst, n); }

  /// A guess of the text's size in bytes (0: unknown): exact for plain input, the gzip
  /// trailer's size (mod 2^32, capped at deflate's 1032:1) for gzip.
  std::size_t size_guess() const noexcept { return size_guess_; }

 private:
  static constexpr std::size_t peek_bytes = std::size_t{1} << 16;
  static constexpr std::size_t input_bytes = std::size_t{1} << 20;  // compressed input per read
  static constexpr std::size_t max_chunk = std::size_t{1} << 30;    // zlib counts in 32-bit uInt

  static std::size_t trailer_isize(const char* p) noexcept {
    const auto* t = reinterpret_cast<const unsigned char*>(p);
    return t[0] | (t[1] << 8) | (t[2] << 16) | (static_cast<std::size_t>(t[3]) << 24);
  }

  void start_gzip(std::size_t compressed, std::size_t isize) {
    // The trailer's ISIZE (size mod 2^32) is a good guess; deflate cannot expand more than
    // about 1032:1, which caps the guess for hostile trailers.
    size_guess_ = compressed >= 18 ? std::min(isize, compressed * 1032) : 0;
    if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
    gzip_ = true;
  }

  /// read(2) into dst until n bytes or the end of the file.
  std::size_t raw_read(char* dst, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      const ssize_t got = ::read(fd_, dst + done, std::min(n - done, max_chunk));
      if (got < 0) {
        if (errno == EINTR) continue;
        DSPMV_BAD_INPUT(source_, "", "cannot read: " + errno_text(errno));
      }
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  }

  /// Plain text: what is left of the peeked or in-memory bytes, then the file.
  std::size_t copy_some(char* dst, std::size_t n) {
    if (in_size_ > 0) {
      const std::size_t k = std::min(n, in_size_);
      std::memcpy(dst, in_, k);
      in_ += k;
      in_size_ -= k;
      return k;
    }
    if (fd_ < 0 || in_eof_) return 0;
    const std::size_t got = raw_read(dst, n);
    if (got == 0) in_eof_ = true;
    return got;
  }

  /// More compressed input from the file (the unread rest moves to the front); at its end,
  /// sets in_eof_.
  void refill_input() {
    if (in_eof_) return;
    if (in_buf_.capacity() < input_bytes) {
      if (in_size_ > 0 && in_ != in_buf_.data()) std::memmove(in_buf_.data(), in_, in_size_);
      in_buf_.reserve(input_bytes);
    } else if (in_size_ > 0 && in_ != in_buf_.data()) {
      std::memmove(in_buf_.data(), in_, in_size_);
    }
    in_ = in_buf_.data();
    const std::size_t got = raw_read(in_buf_.data() + in_size_, in_buf_.capacity() - in_size_);
    if (got == 0) in_eof_ = true;
    in_size_ += got;
  }

  std::size_t inflate_some(char* dst, std::size_t n) {
    std::size_t out = 0;
    while (out < n && !done_) {
      if (in_size_ == 0) refill_input();
      zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_));
      zs_.avail_in = static_cast<uInt>(std::min(in_size_, max_chunk));
      zs_.next_out = reinterpret_cast<Bytef*>(dst + out);
      zs_.avail_out = static_cast<uInt>(std::min(n - out, max_chunk));
      const uInt in_before = zs_.avail_in, out_before = zs_.avail_out;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      in_ += in_before - zs_.avail_in;
      in_size_ -= in_before - zs_.avail_in;
      out += out_before - zs_.avail_out;
      produced_ += out_before - zs_.avail_out;
      if (rc == Z_STREAM_END) {
        // Another gzip member may follow (as `cat a.gz b.gz` makes); anything else is ignored.
        if (in_size_ < 2) refill_input();
        if (is_gzip(in_, in_size_)) {
          if (inflateReset(&zs_) != Z_OK) DSPMV_BAD_INPUT(source_, "gzip data", "corrupt gzip stream");
          continue;
        }
        done_ = true;
        break;
      }
      if (rc == Z_MEM_ERROR) throw std::bad_alloc();
      const bool stuck = rc != Z_OK || (in_size_ == 0 && in_eof_ && zs_.avail_out != 0);
      // Hand out the text before a fault first, as gzread does: a header before a cut stays
      // readable. The next call meets the fault again, with nothing to hand out.
      if (stuck && out > 0) break;
      if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
        DSPMV_BAD_INPUT(source_, "gzip data", std::string("corrupt gzip stream (zlib: ") +
                                                  (zs_.msg ? zs_.msg : "data error") + ") after " +
                                                  to_string(produced_) + " decompressed bytes");
      if (in_size_ == 0 && in_eof_ && zs_.avail_out != 0)
        DSPMV_BAD_INPUT(source_, "gzip data", "truncated gzip file: the data end after " + to_string(produced_) +
                                                  " decompressed bytes, before the end of the stream");
      if (rc != Z_OK && rc != Z_BUF_ERROR)
        DSPMV_BAD_INPUT(source_, "gzip data", "corrupt gzip stream (zlib code " + to_string(rc) + ")");
    }
    return out;
  }

  const std::string& source_;
  int fd_ = -1;
  const char* in_ = nullptr;  // unread input: [in_, in_ + in_size_)
  std::size_t in_size_ = 0;
  bool in_eof_ = false;       // no input beyond [in_, in_ + in_size_)
  byte_buffer in_buf_;        // input read from the file
  std::size_t size_guess_ = 0;
  bool gzip_ = false;
  bool done_ = false;         // the last gzip member has ended
  z_stream zs_{};
  std::uint64_t produced_ = 0;  // text bytes inflated so far
};

/// Hands the parser the text as windows of whole lines, [begin, end) with end[-1] == '\n' (a
/// '\n' is added after a last line that lacks one), in one reused buffer of at most window +
/// max_line + 1 bytes, so that every scanning loop stops at a '\n' without an end-of-buffer test and the
/// text never costs more than that buffer. The incomplete last line of a window is carried
/// into the next. A line may exceed max_line bytes only as leading blanks (dropped, but for
/// the last, which keeps a blank line a line) or as a
/// comment (cut to "%": it is skipped, so its rest is never stored); any other line past the
/// bound, and line 1 (the banner) whatever it is, ends the text with `overlong`, for the
/// parser to report with its line number.
class line_windows {
 public:
  enum class status { window, end, overlong };

  line_windows(text_stream& in, std::size_t window_bytes, std::size_t max_line)
      : in_(in), window_(std::max<std::size_t>(window_bytes, 1)), max_line_(std::max<std::size_t>(max_line, 1)) {
    constexpr std::size_t most = std::numeric_limits<std::size_t>::max() / 4;
    if (window_ > most || max_line_ > most) throw std::bad_alloc();
    // The first reads are small, and the buffer grows with them (to window + max_line + 1 at
    // most), so that a header or a small input costs little whatever the window.
    fill_ = std::min<std::size_t>(window_, std::size_t{1} << 16);
  }

  status next(const char*& begin, const char*& end) {
    if (eof_) return status::end;
    char* b = buf_.data();
    std::size_t n = carry_end_ - carry_begin_;
    if (n > 0 && carry_begin_ > 0) std::memmove(b, b + carry_begin_, n);
    carry_begin_ = carry_end_ = 0;
    for (;;) {
      // [b, b + n) is an incomplete line: bound it before reading more.
      if (n > max_line_ && !skipping_) {
        std::size_t k = 0;
        while (!first_line_ && k + 1 < n && is_blank(b[k])) ++k;  // the banner keeps its blanks
        if (!first_line_ && k < n && b[k] == '%') {
          b[0] = '%';
          n = 1;
          skipping_ = true;
        } else if (n - k > max_line_) {
          overlong_at_ = k;
          overlong_size_ = n - k;
          eof_ = true;
          return status::overlong;
        } else if (k > 0) {
          std::memmove(b, b + k, n - k);
          n -= k;
        }
      }
      if (buf_.capacity() < n + fill_ + 1) {  // + 1: the '\n' a last line may need
        buf_.reserve(n + fill_ + 1);
        b = buf_.data();
      }
      char* const dst = b + n;
      std::size_t got = in_.read(dst, fill_);
      fill_ = std::min(2 * fill_, window_);
      if (got == 0) {
        eof_ = true;
        if (n == 0) return status::end;
        b[n++] = '\n';
        skipping_ = first_line_ = false;
        begin = b;
        end = b + n;
        return status::window;
      }
      if (skipping_) {
        const char* nl = static_cast<const char*>(std::memchr(dst, '\n', got));
        if (!nl) continue;  // the comment goes on: drop what was read
        skipping_ = false;
        got = static_cast<std::size_t>(dst + got - nl);
        std::memmove(dst, nl, got);
      }
      n += got;
      const char* last = static_cast<const char*>(::memrchr(dst, '\n', got));
      if (!last) continue;
      first_line_ = false;
      begin = b;
      end = last + 1;
      carry_begin_ = static_cast<std::size_t>(end - b);
      carry_end_ = n;
      return status::window;
    }
  }

  /// After `overlong`: the start of the line past its leading blanks, more than max_line bytes.
  const char* overlong_begin() const noexcept { return buf_.data() + overlong_at_; }
  const char* overlong_end() const noexcept { return buf_.data() + overlong_at_ + overlong_size_; }
  std::size_t max_line() const noexcept { return max_line_; }

 private:
  text_stream& in_;
  byte_buffer buf_;
  std::size_t window_, max_line_, fill_;
  std::size_t carry_begin_ = 0, carry_end_ = 0;  // the incomplete last line after a window
  bool first_line_ = true;  // no '\n' handed out yet: the carry is line 1, the banner
  bool skipping_ = false;   // the carry is the '%' of a long comment whose rest is dropped
  bool eof_ = false;
  std::size_t overlong_at_ = 0, overlong_size_ = 0;
};

/// The parser's place in the text: the current window [p, end) and the number of p's line.
struct text_cursor {
  line_windows& windows;
  const std::string& source;
  const char* p = nullptr;
  const char* end = nullptr;
  std::int64_t line = 1;

  /// Moves to the next window once [p, end) is consumed; false at the end of the text. A line
  /// past the bound is bad input naming it (`what` it was to be: "banner", "size", "entry").
  bool next_window(const char* what) {
    switch (windows.next(p, end)) {
      case line_windows::status::window: return true;
      case line_windows::status::end: return false;
      case line_windows::status::overlong: break;
    }
    line_too_long(source, line, what, windows.overlong_begin(), windows.overlong_end(), windows.max_line());
  }
};

/// Reads the banner and the size line; leaves the cursor on the line after the size line.
parsed_header read_header(text_cursor& c) {
  const std::string& source = c.source;
  const std::size_t max_line = c.windows.max_line();
  if (!c.next_window("banner")) DSPMV_BAD_INPUT(source, "", "empty file, not a Matrix Market file");
  const char* banner_end = static_cast<const char*>(std::memchr(c.p, '\n', static_cast<std::size_t>(c.end - c.p)));
  if (static_cast<std::size_t>(banner_end - c.p) > max_line)
    line_too_long(source, 1, "banner", c.p, banner_end, max_line);
  parsed_header h = parse_banner(c.p, banner_end, source);
  c.p = banner_end + 1;
  c.line = 2;
  // Size line: the first line after the banner that is neither a comment nor blank.
  for (;;) {
    if (c.p == c.end) {
      if (!c.next_window("size"))
        DSPMV_BAD_INPUT(source, line_where(c.line - 1), "file ends before the size line 'rows columns entries'");
      continue;
    }
    c.p = skip_blanks(c.p);
    if (*c.p == '\n') {
      ++c.p;
      ++c.line;
      continue;
    }
    if (*c.p == '%') {
      c.p = static_cast<const char*>(std::memchr(c.p, '\n', static_cast<std::size_t>(c.end - c.p))) + 1;
      ++c.line;
      continue;
    }
    break;
  }
  c.p = parse_size_line(h, c.p, c.end, c.line, max_line, source);
  ++c.line;
  return h;
}

/// Parses the entries after the header into triplets (0-based), mirroring symmetric ones.
coo_matrix parse_entries(const parsed_header& h, text_cursor& c, std::size_t text_size_guess,
                         const mm_read_options& options) {
  const std::string& source = c.source;
  coo_matrix coo;
  coo.rows = h.header.rows;
  coo.cols = h.header.cols;
  const std::int64_t expected = h.header.entries;
  // Triplets the file can give: what the size line says, twice over for symmetric files.
  const std::int64_t most = h.symmetric && expected <= std::numeric_limits<std::int64_t>::max() / 2 ? 2 * expected
                                                                                                    : expected;
  // Reserve that, but no more than the text could hold ("1 1\n" is the shortest entry), so that
  // a lying size line cannot make us allocate terabytes; grow (up to `most`) past a low guess.
  std::int64_t cap = std::min<std::int64_t>(expected, static_cast<std::int64_t>(text_size_guess / 4) + 1);
  if (h.symmetric) cap *= 2;
  auto reserve = [&](std::int64_t n) {
    coo.row.reserve(static_cast<std::size_t>(n));
    coo.col.reserve(static_cast<std::size_t>(n));
    coo.val.reserve(static_cast<std::size_t>(n));
    advise_huge_pages(coo.row);
    advise_huge_pages(coo.col);
    advise_huge_pages(coo.val);
  };
  reserve(cap);

  const std::size_t max_line = c.windows.max_line();
  entry_context ctx{&h, c.end, &source, options.allow_nonfinite, max_line};
  const auto rows_u = static_cast<std::uint64_t>(h.header.rows);
  const auto cols_u = static_cast<std::uint64_t>(h.header.cols);
  // The fast path handles real values only; integer files take the careful path for values.
  const bool fast_value = !h.pattern && !h.integer;
  const bool allow_nonfinite = options.allow_nonfinite;
  std::int64_t line = c.line;
  std::int64_t count = 0;
  const char* p = c.p;
  const char* end = c.end;

  for (;;) {
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
      if (count == expected) {
        check_entry_length(p, ctx, line);
        DSPMV_BAD_INPUT(source, line_where(line), "more entries than the " + to_string(expected) + " the size line says");
      }
      if (static_cast<std::int64_t>(coo.row.size()) + 2 > cap) {
        cap = std::min(most, std::max<std::int64_t>(2 * cap, 1 << 16));
        reserve(cap);
      }

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
      ok = ok && *p == '\n' && e.row - 1 < rows_u && e.col - 1 < cols_u &&
           static_cast<std::size_t>(p - start) <= max_line;
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
      const auto col = static_cast<global_index_type>(e.col);
      coo.row.push_back(r);
      coo.col.push_back(col);
      coo.val.push_back(e.value);
      if (h.symmetric) {
        if (r != col) {
          coo.row.push_back(col);
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
    c.line = line;
    if (!c.next_window("entry")) break;
    p = c.p;
    end = ctx.end = c.end;
  }
  if (count < expected)
    DSPMV_BAD_INPUT(source, line_where(line - 1),
                    "file ends after " + to_string(count) + " entries; the size line says " + to_string(expected));
  return coo;
}

/// The parse proper: header and entries into triplets.
coo_matrix parse_text(text_stream& in, const std::string& source, const mm_read_options& options,
                      mm_header& header, const mm_parse_limits& limits) {
  line_windows windows(in, limits.window_bytes, limits.max_line_bytes);
  text_cursor c{windows, source};
  const parsed_header h = read_header(c);
  header = h.header;
  if (h.header.rows > limits.max_rows)
    DSPMV_BAD_INPUT(source, "size line", to_string(h.header.rows) + " rows exceed this reader's limit of " +
                                             to_string(limits.max_rows));
  return parse_entries(h, c, in.size_guess(), options);
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
  text_stream in(bytes, size, true, source);
  byte_buffer out;
  out.reserve(std::max(in.size_guess(), std::size_t{1} << 16) + 1);
  std::size_t n = 0;
  for (;;) {
    if (out.capacity() - n < 2) out.reserve(out.capacity() + out.capacity() / 2 + (1 << 16));
    const std::size_t got = in.read(out.data() + n, out.capacity() - n - 1);  // one spare byte, as before
    if (got == 0) break;
    n += got;
  }
  out.resize(n);
  return out;
}

csr_matrix<double> parse_matrix_market(const char* bytes, std::size_t size, const std::string& source,
                                       const mm_read_options& options, mm_header* header,
                                       const mm_parse_limits& limits) {
  text_stream in(bytes, size, is_gzip(bytes, size), source);
  mm_header h;
  coo_matrix coo = parse_text(in, source, options, h, limits);
  if (header) *header = h;
  return finish_csr(std::move(coo), h, source, options);
}

csr_matrix<double> parse_matrix_market(byte_buffer&& bytes, const std::string& source,
                                       const mm_read_options& options, mm_header* header,
                                       const mm_parse_limits& limits) {
  const byte_buffer mine = std::move(bytes);
  return parse_matrix_market(mine.data(), mine.size(), source, options, header, limits);
}

}  // namespace detail

namespace {

using std::to_string;

using detail::errno_text;

/// Opens a Matrix Market file for reading: bad_input naming it when it cannot be opened or is
/// a directory.
int open_for_reading(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) DSPMV_BAD_INPUT(path, "", "cannot open: " + errno_text(errno));
  detail::fd_closer guard(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) DSPMV_BAD_INPUT(path, "", "cannot stat: " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) DSPMV_BAD_INPUT(path, "", "is a directory, not a Matrix Market file");
  return guard.release();
}

}  // namespace

mm_header read_matrix_market_header(const std::string& path) {
  // Reads only until the size line: the first reads are small whatever the window.
  const detail::fd_closer file(open_for_reading(path));
  detail::text_stream in(file.get(), path);
  const detail::mm_parse_limits limits;
  detail::line_windows windows(in, limits.window_bytes, limits.max_line_bytes);
  detail::text_cursor c{windows, path};
  return detail::read_header(c).header;
}

csr_matrix<double> read_matrix_market(const std::string& path, const mm_read_options& options) {
  mm_header h;
  coo_matrix coo;
  {
    const detail::fd_closer file(open_for_reading(path));
    detail::text_stream in(file.get(), path);
    coo = detail::parse_text(in, path, options, h, {});
  }  // the file, the compressed input and the text window are freed before CSR is built
  return detail::finish_csr(std::move(coo), h, path, options);
}

}  // namespace distspmv::io
