// Deterministic matrix generators (the specs are listed in generators.hpp).
//
// Randomness is counter-based: every draw is a hash of (seed, stream, object id, draw number),
// never the next value of a sequential stream. Any rank can therefore regenerate any row (or
// R-MAT edge) on its own, a row range equals the same rows of the whole matrix bit for bit, and
// the result does not depend on the number of OpenMP threads.
//
// The stencils and lognormal write CSR directly, in two passes over the requested rows: row
// lengths (then a prefix sum), then columns and values at their final place. R-MAT edges arrive
// in edge order, not row order: it goes through all edges once, keeps those of the range, and
// sorts them into rows (see generate_rmat).
#include "io/generators.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <vector>

#include <sys/mman.h>

namespace distspmv::io {

namespace {

// ---- counter-based randomness ------------------------------------------------------------------

constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;  // splitmix64's increment

/// splitmix64's output function: a bijection of 64-bit words with full avalanche, so that
/// consecutive counters give independent-looking words.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/// Key of one named stream (edges, row lengths, relabelling...) under one seed.
inline std::uint64_t stream_key(std::uint64_t seed, std::uint64_t salt) {
  return mix64(mix64(seed ^ 0x243f6a8885a308d3ULL) + salt * golden_gamma);
}

/// Key of object `id` (an edge or a row) within a stream.
inline std::uint64_t object_key(std::uint64_t stream, std::uint64_t id) {
  return mix64(stream + id * golden_gamma);
}

// GCC and Clang have a 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef unsigned __int128 uint128;

/// Draw number `k` (k >= 1) of an object: step k of wyrand (Wang Yi's generator, which passes
/// BigCrush) started at the object key. One 64x64->128 multiply instead of splitmix64's two
/// multiplies and three shifts: the draws are most of R-MAT's cost.
inline std::uint64_t draw(std::uint64_t key, std::uint64_t k) {
  const std::uint64_t state = key + k * 0xa0761d6478bd642fULL;
  const uint128 product = static_cast<uint128>(state) * (state ^ 0xe7037ed1a0b428dbULL);
  return static_cast<std::uint64_t>(product >> 64) ^ static_cast<std::uint64_t>(product);
}

/// Uniform in (0, 1]: never 0, so it is a valid nonzero value and a valid argument of log.
inline double unit_open_closed(std::uint64_t bits) {
  return static_cast<double>((bits >> 11) + 1) * 0x1.0p-53;
}

/// Uniform in [0, 1).
inline double unit_closed_open(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// ---- spec parsing ------------------------------------------------------------------------------

/// 2^62: the largest nonzero count a spec may ask for, so that offsets and sums stay in int64.
constexpr long double max_nnz = 4611686018427387904.0L;

constexpr const char* known_kinds =
    "poisson3d:N, stencil27:N, rmat:SCALE:EF, lognormal:ROWS:MU:SIGMA:BAND";

enum class generator_kind { poisson3d, stencil27, rmat, lognormal };

/// A checked spec. Fields not used by a kind stay at their defaults.
struct parsed_spec {
  generator_kind kind = generator_kind::poisson3d;
  global_index_type n = 0;      ///< grid side (stencils) or ROWS (lognormal)
  int scale = 0;                ///< R-MAT
  std::int64_t edge_factor = 0; ///< R-MAT
  double mu = 0, sigma = 0;     ///< lognormal
  global_index_type band = 0;   ///< lognormal
  global_index_type rows = 0;
  global_index_type cols = 0;
};

std::vector<std::string> split_fields(const std::string& spec) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = spec.find(':', start);
    fields.push_back(spec.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return fields;
}

std::int64_t parse_integer(const std::string& spec, const std::string& name, const std::string& text) {
  if (text.empty()) DSPMV_BAD_INPUT(spec, name, "is empty, expected an integer");
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range)
    DSPMV_BAD_INPUT(spec, name, "'" + text + "' does not fit a 64-bit integer");
  if (ec != std::errc() || end != text.data() + text.size())
    DSPMV_BAD_INPUT(spec, name, "'" + text + "' is not an integer");
  return value;
}

double parse_real(const std::string& spec, const std::string& name, const std::string& text) {
  if (text.empty()) DSPMV_BAD_INPUT(spec, name, "is empty, expected a number");
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    DSPMV_BAD_INPUT(spec, name, "'" + text + "' is not a number");
  // from_chars accepts "inf" and "nan"; neither makes a matrix.
  if (!std::isfinite(value)) DSPMV_BAD_INPUT(spec, name, "'" + text + "' is not a finite number");
  return value;
}

void require_field_count(const std::string& spec, const std::vector<std::string>& fields,
                         const std::string& usage) {
  const std::size_t expected = static_cast<std::size_t>(std::count(usage.begin(), usage.end(), ':')) + 1;
  if (fields.size() != expected)
    DSPMV_BAD_INPUT(spec, "fields", "expected " + std::to_string(expected - 2) + " argument(s) as in " + usage +
                                        ", got " + std::to_string(fields.size() - 2));
}

global_index_type parse_grid_side(const std::string& spec, const std::string& text, long double nnz_per_row) {
  const std::int64_t n = parse_integer(spec, "N", text);
  if (n <= 0) DSPMV_BAD_INPUT(spec, "N", "must be positive, got " + text);
  const long double cube = static_cast<long double>(n) * n * n;
  if (cube * nnz_per_row > max_nnz)
    DSPMV_BAD_INPUT(spec, "N", "N = " + text + " gives more than 2^62 nonzeros");
  return n;
}

parsed_spec parse_spec(const std::string& spec) {
  if (!is_generator(spec)) DSPMV_BAD_INPUT(spec, "", "not a generator spec, expected gen:KIND:ARGS");
  const std::vector<std::string> fields = split_fields(spec);
  const std::string& kind = fields.size() > 1 ? fields[1] : std::string();
  parsed_spec p;
  if (kind == "poisson3d" || kind == "stencil27") {
    const bool seven = kind == "poisson3d";
    require_field_count(spec, fields, "gen:" + kind + ":N");
    p.kind = seven ? generator_kind::poisson3d : generator_kind::stencil27;
    p.n = parse_grid_side(spec, fields[2], seven ? 7 : 27);
    p.rows = p.cols = p.n * p.n * p.n;
  } else if (kind == "rmat") {
    require_field_count(spec, fields, "gen:rmat:SCALE:EF");
    p.kind = generator_kind::rmat;
    const std::int64_t scale = parse_integer(spec, "SCALE", fields[2]);
    if (scale < 1 || scale > 40) DSPMV_BAD_INPUT(spec, "SCALE", fields[2] + " is outside [1, 40]");
    p.scale = static_cast<int>(scale);
    p.edge_factor = parse_integer(spec, "EF", fields[3]);
    if (p.edge_factor <= 0) DSPMV_BAD_INPUT(spec, "EF", "must be positive, got " + fields[3]);
    if (p.edge_factor > (std::int64_t{1} << (62 - p.scale)))
      DSPMV_BAD_INPUT(spec, "EF", "EF * 2^SCALE = " + fields[3] + " * 2^" + fields[2] + " exceeds 2^62 edges");
    p.rows = p.cols = global_index_type{1} << p.scale;
  } else if (kind == "lognormal") {
    require_field_count(spec, fields, "gen:lognormal:ROWS:MU:SIGMA:BAND");
    p.kind = generator_kind::lognormal;
    p.n = parse_integer(spec, "ROWS", fields[2]);
    if (p.n <= 0) DSPMV_BAD_INPUT(spec, "ROWS", "must be positive, got " + fields[2]);
    p.mu = parse_real(spec, "MU", fields[3]);
    p.sigma = parse_real(spec, "SIGMA", fields[4]);
    if (p.sigma < 0) DSPMV_BAD_INPUT(spec, "SIGMA", "must be non-negative, got " + fields[4]);
    p.band = parse_integer(spec, "BAND", fields[5]);
    if (p.band < 0) DSPMV_BAD_INPUT(spec, "BAND", "must be non-negative, got " + fields[5]);
    // The generator may fill every window completely, so bound the largest possible count.
    const long double window = std::min(2.0L * p.band + 1, static_cast<long double>(p.n));
    if (window * p.n > max_nnz)
      DSPMV_BAD_INPUT(spec, "BAND", "ROWS * min(2 * BAND + 1, ROWS) exceeds 2^62 possible nonzeros");
    p.rows = p.cols = p.n;
  } else {
    DSPMV_BAD_INPUT(spec, "kind", "unknown generator '" + kind + "', known: " + known_kinds);
  }
  return p;
}

/// Below this many rows (or entries) a parallel region costs more than it saves: starting one
/// took milliseconds on a loaded two-core machine, where tiny specs took microseconds alone.
constexpr global_index_type parallel_rows = 8192;

// ---- shared CSR helpers ------------------------------------------------------------------------

/// Sizes `v` (empty before) to n zeros, first asking the kernel for transparent huge pages on its
/// fresh allocation. First-touch page faults were most of the time of a large generation on our
/// VMs (a 900 MB zero fill took 1.6 to 3.2 s): with THP in "madvise" mode this hint makes them
/// 512 times fewer. Where THP is off, or the memory is not a fresh mapping, the hint is ignored.
template <typename T>
void resize_fresh(std::vector<T>& v, std::size_t n) {
  v.reserve(n);  // allocates without touching the pages
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t huge = std::uintptr_t{1} << 21;
  const auto first = reinterpret_cast<std::uintptr_t>(v.data()), last = first + n * sizeof(T);
  const std::uintptr_t begin = (first + huge - 1) & ~(huge - 1), end = last & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
  v.resize(n);
}

/// Turns row lengths stored at row_ptr[1..rows] into offsets and sizes the entry arrays.
void finish_row_ptr(csr_matrix<double>& a) {
  for (global_index_type r = 0; r < a.rows; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
  resize_fresh(a.col_idx, static_cast<std::size_t>(a.nnz()));
  resize_fresh(a.values, static_cast<std::size_t>(a.nnz()));
}

csr_matrix<double> empty_rows(const parsed_spec& p, row_range range) {
  csr_matrix<double> a;
  a.rows = range.size();
  a.cols = p.cols;
  a.row_ptr.clear();
  a.row_ptr.shrink_to_fit();
  resize_fresh(a.row_ptr, static_cast<std::size_t>(a.rows) + 1);
  return a;
}

// ---- stencils ----------------------------------------------------------------------------------

/// Grid points along one axis that a stencil of reach 1 sees from coordinate x (itself included).
inline global_index_type axis_span(global_index_type x, global_index_type n) {
  return 1 + (x > 0) + (x < n - 1);
}

csr_matrix<double> generate_stencil(const parsed_spec& p, row_range range) {
  const global_index_type n = p.n, plane = n * n;
  const bool seven = p.kind == generator_kind::poisson3d;
  csr_matrix<double> a = empty_rows(p, range);

#pragma omp parallel for schedule(static) if (a.rows >= parallel_rows)
  for (global_index_type r = 0; r < a.rows; ++r) {
    const global_index_type i = range.begin + r;
    const global_index_type x = i % n, y = (i / n) % n, z = i / plane;
    const global_index_type sx = axis_span(x, n), sy = axis_span(y, n), sz = axis_span(z, n);
    a.row_ptr[r + 1] = seven ? sx + sy + sz - 2 : sx * sy * sz;
  }
  finish_row_ptr(a);

  // Entries are emitted in increasing column order: z slowest, x fastest, as in the numbering.
#pragma omp parallel for schedule(static) if (a.rows >= parallel_rows)
  for (global_index_type r = 0; r < a.rows; ++r) {
    const global_index_type i = range.begin + r;
    const global_index_type x = i % n, y = (i / n) % n, z = i / plane;
    global_index_type* col = a.col_idx.data() + a.row_ptr[r];
    double* val = a.values.data() + a.row_ptr[r];
    auto emit = [&](global_index_type c, double v) {
      *col++ = c;
      *val++ = v;
    };
    if (seven) {
      if (z > 0) emit(i - plane, -1.0);
      if (y > 0) emit(i - n, -1.0);
      if (x > 0) emit(i - 1, -1.0);
      emit(i, 6.0);
      if (x < n - 1) emit(i + 1, -1.0);
      if (y < n - 1) emit(i + n, -1.0);
      if (z < n - 1) emit(i + plane, -1.0);
    } else {
      for (int dz = -1; dz <= 1; ++dz) {
        if (z + dz < 0 || z + dz >= n) continue;
        for (int dy = -1; dy <= 1; ++dy) {
          if (y + dy < 0 || y + dy >= n) continue;
          const global_index_type base = i + dz * plane + dy * n;
          for (int dx = -1; dx <= 1; ++dx) {
            if (x + dx < 0 || x + dx >= n) continue;
            emit(base + dx, (dz == 0 && dy == 0 && dx == 0) ? 26.0 : -1.0);
          }
        }
      }
    }
  }
  return a;
}

// ---- R-MAT -------------------------------------------------------------------------------------

// Quadrant probabilities a, b, c, d = 0.57, 0.19, 0.19, 0.05 (Graph500), quantised to 15 bits:
// the cumulative thresholds are round(2^15 * {a, a + b, a + b + c}), within 2e-5 of the exact
// values. describe_generator uses the same quantised values.
constexpr std::uint64_t rmat_t_a = 18678;    // 0.57
constexpr std::uint64_t rmat_t_ab = 24904;   // 0.76
constexpr std::uint64_t rmat_t_abc = 31130;  // 0.95
constexpr double rmat_unit = 32768.0;

constexpr std::uint64_t salt_rmat_edges = 1;
constexpr std::uint64_t salt_rmat_relabel = 2;
constexpr std::uint64_t salt_lognormal_rows = 3;
constexpr std::uint64_t salt_lognormal_values = 4;

// One 64-bit hash decides four recursion levels at once, SWAR style: four 16-bit lanes each hold
// a 15-bit uniform below a spare bit that catches the carry of a comparison. Deciding the levels
// one by one with scalar compares cost twice as much (33 vs 16.5 ns per edge at scale 20).
constexpr std::uint64_t lane_low_bits = 0x0001000100010001ULL;
constexpr std::uint64_t lane_values = 0x7fff7fff7fff7fffULL;

/// Bit 16j set where lane j of `v` is >= t (no lane overflows: v_j + 2^15 - t < 2^16).
inline std::uint64_t lanes_at_least(std::uint64_t v, std::uint64_t t) {
  return ((v + (0x8000 - t) * lane_low_bits) >> 15) & lane_low_bits;
}

/// Multiplier that packs lane bits: bits 0, 16, 32, 48 move to 48..51 and bits 8, 24, 40, 56 to
/// 56..59 (shifts 48, 33, 18, 3), while every cross term lands on some other bit below 64, so no
/// carries interfere. Row bits go in at 16j and column bits at 16j + 8: one multiply packs both.
constexpr std::uint64_t lane_spread = (std::uint64_t{1} << 48) | (std::uint64_t{1} << 33) |
                                      (std::uint64_t{1} << 18) | (std::uint64_t{1} << 3);

/// Everything an R-MAT edge needs, derived once from (spec, seed).
class rmat_model {
 public:
  rmat_model(const parsed_spec& p, std::uint64_t seed)
      : scale_(p.scale), mask_((std::uint64_t{1} << p.scale) - 1),
        edges_(static_cast<std::uint64_t>(p.edge_factor) << p.scale),
        edge_stream_(stream_key(seed, salt_rmat_edges)),
        shift_(std::max(1, (p.scale + 1) / 2)) {
    const std::uint64_t relabel_stream = stream_key(seed, salt_rmat_relabel);
    for (int r = 0; r < relabel_rounds; ++r) {
      multiplier_[r] = draw(relabel_stream, 2 * r + 1) | 1;  // odd: invertible modulo 2^SCALE
      offset_[r] = draw(relabel_stream, 2 * r + 2);
    }
  }

  std::uint64_t edges() const { return edges_; }

  /// Key of edge e: its endpoints and value are drawn from it.
  std::uint64_t edge_key(std::uint64_t e) const { return object_key(edge_stream_, e); }

  /// Endpoints of an edge before relabelling: SCALE levels of quadrant choices, four per draw.
  /// With WithDestination false only the source is computed (the counting pass needs no more).
  template <bool WithDestination>
  void endpoints(std::uint64_t key, std::uint64_t& src, std::uint64_t& dst) const {
    std::uint64_t s = 0, d = 0, k = 1;
    // `take` is the constant 4 in the loop, so the masks fold away there.
    auto decide = [&](int take) {
      const std::uint64_t v = draw(key, k++) & lane_values;
      const std::uint64_t keep = (std::uint64_t{1} << take) - 1;
      // Quadrants a (0,0), b (0,1), c (1,0), d (1,1) in order of u: the row bit is u >= a + b
      // and the column bit flips at each threshold.
      const std::uint64_t row_bits = lanes_at_least(v, rmat_t_ab);
      if (WithDestination) {
        const std::uint64_t col_bits = lanes_at_least(v, rmat_t_a) ^ row_bits ^ lanes_at_least(v, rmat_t_abc);
        const std::uint64_t packed = (row_bits | (col_bits << 8)) * lane_spread;
        s = (s << take) | ((packed >> 48) & keep);
        d = (d << take) | ((packed >> 56) & keep);
      } else {
        s = (s << take) | (((row_bits * lane_spread) >> 48) & keep);
      }
    };
    for (int g = 0; g < scale_ / 4; ++g) decide(4);
    if (scale_ % 4 != 0) decide(scale_ % 4);
    src = s;
    dst = d;
  }

  /// Edge value in (0, 1], drawn from the edge's key (draw 0 is unused by endpoints()).
  static double value(std::uint64_t key) { return unit_open_closed(mix64(key)); }

  /// The vertex relabelling: a bijection of [0, 2^SCALE) built from steps that are each
  /// invertible there (multiplication by an odd number, addition, xor with a right shift), so
  /// it needs no permutation table and any rank can evaluate it for any id.
  std::uint64_t relabel(std::uint64_t v) const {
    auto round = [&](int r) {
      v = (v * multiplier_[r]) & mask_;
      v ^= v >> shift_;
      v = (v + offset_[r]) & mask_;
    };
    static_assert(relabel_rounds == 3, "unrolled by hand: a loop here was not unrolled at -O2");
    round(0);
    round(1);
    round(2);
    return v;
  }

 private:
  static constexpr int relabel_rounds = 3;
  int scale_;
  std::uint64_t mask_, edges_, edge_stream_;
  int shift_;
  std::uint64_t multiplier_[relabel_rounds] = {};
  std::uint64_t offset_[relabel_rounds] = {};
};

/// One generated edge of a row before duplicates are summed: its column (the key) and value.
struct rmat_entry {
  std::uint64_t key;
  double val;
};

/// Pass 2 packs an edge's row within its bucket (bits 40..63, at most 2^24 rows per bucket) above
/// its column (bits 0..39, as SCALE <= 40) in one 64-bit key.
constexpr int rmat_col_bits = 40;
constexpr std::uint64_t rmat_col_mask = (std::uint64_t{1} << rmat_col_bits) - 1;

/// Stable sort of a row's entries by column (equal columns keep their edge order). Short rows use
/// insertion sort; long ones (the hubs, which hold most edges) an LSD radix sort on the column
/// bits, which beat std::sort's O(n log n) comparisons on a single-threaded scale-22 run.
void sort_row_by_column(rmat_entry* first, rmat_entry* last, int column_bits, std::vector<rmat_entry>& buffer,
                        std::vector<std::uint32_t>& count) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  // An empty row of an empty bucket may come as (nullptr, nullptr): first + 1 would be UB.
  if (n < 2) return;
  if (n <= 48) {
    for (rmat_entry* i = first + 1; i < last; ++i) {
      const rmat_entry moving = *i;
      rmat_entry* j = i;
      for (; j > first && j[-1].key > moving.key; --j) *j = j[-1];
      *j = moving;
    }
    return;
  }
  const int digit_bits = n < 4096 ? 8 : 11;
  const std::uint64_t digits = std::uint64_t{1} << digit_bits;
  buffer.resize(n);
  rmat_entry* from = first;
  rmat_entry* to = buffer.data();
  for (int low = 0; low < column_bits; low += digit_bits) {
    count.assign(digits + 1, 0);
    for (std::size_t k = 0; k < n; ++k) ++count[((from[k].key >> low) & (digits - 1)) + 1];
    for (std::uint64_t d = 0; d < digits; ++d) count[d + 1] += count[d];
    for (std::size_t k = 0; k < n; ++k) to[count[(from[k].key >> low) & (digits - 1)]++] = from[k];
    std::swap(from, to);
  }
  if (from != first) std::copy(from, from + n, first);
}

// R-MAT edges arrive in random row order. Scattering them straight into rows touches a random
// page per edge (measured: 35 s for scale 22, edge factor 16, on a VM whose TLB misses are
// costly). Instead the rows of the range are cut into at most 1024 buckets of contiguous rows.
// One pass generates every edge and keeps those of the range, grouped by bucket per chunk of
// edges; a copy then makes each bucket contiguous (in edge order); each bucket, small enough for
// the cache, is then sorted by row and column and its duplicates summed. Generating the edges
// twice (count, then place) instead of storing them cost 40% more time for half the memory.
csr_matrix<double> generate_rmat(const parsed_spec& p, row_range range, std::uint64_t seed) {
  const rmat_model model(p, seed);
  csr_matrix<double> a = empty_rows(p, range);
  if (a.rows == 0) return a;
  const std::uint64_t lo = static_cast<std::uint64_t>(range.begin), rows = static_cast<std::uint64_t>(a.rows);

  int shift = 0;  // rows per bucket = 2^shift, at most 2^24 so the row fits the key's top bits
  while (shift < 24 && ((rows - 1) >> shift) >= 1024) ++shift;
  const std::uint64_t buckets = ((rows - 1) >> shift) + 1;
  // Chunks of edges are the unit of OpenMP work; at most 1024 of them keep the per-(bucket,
  // chunk) counters small. Neither number affects the result.
  const std::uint64_t edges = model.edges();
  const std::uint64_t chunk = std::max<std::uint64_t>(std::uint64_t{1} << 15, (edges + 1023) / 1024);
  const std::uint64_t chunks = (edges + chunk - 1) / chunk;

  // Pass 1: the range's edges of each chunk, grouped by bucket (counting sort in the cache).
  // place[b * chunks + c] = how many of chunk c's edges fall in bucket b.
  std::vector<std::vector<rmat_entry>> kept_edges(chunks);
  std::vector<offset_type> place(static_cast<std::size_t>(buckets * chunks) + 1, 0);
#pragma omp parallel if (chunks > 1)
  {
    std::vector<rmat_entry> found;
    std::vector<std::uint32_t> found_bucket;
    std::vector<offset_type> slot(buckets + 1);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
      found.clear();
      found_bucket.clear();
      const std::uint64_t end = std::min(edges, (static_cast<std::uint64_t>(c) + 1) * chunk);
      for (std::uint64_t e = static_cast<std::uint64_t>(c) * chunk; e < end; ++e) {
        std::uint64_t s, d;
        const std::uint64_t key = model.edge_key(e);
        model.endpoints<true>(key, s, d);
        const std::uint64_t r = model.relabel(s) - lo;  // wraps to a huge value below the range
        if (r < rows) {
          const std::uint64_t row_in_bucket = r & ((std::uint64_t{1} << shift) - 1);
          found.push_back({(row_in_bucket << rmat_col_bits) | model.relabel(d), rmat_model::value(key)});
          found_bucket.push_back(static_cast<std::uint32_t>(r >> shift));
        }
      }
      std::fill(slot.begin(), slot.end(), 0);
      for (std::uint32_t b : found_bucket) ++slot[b + 1];
      for (std::uint64_t b = 0; b < buckets; ++b) {
        place[b * chunks + c] = slot[b + 1];
        slot[b + 1] += slot[b];
      }
      std::vector<rmat_entry>& grouped = kept_edges[c];
      grouped.resize(found.size());
      for (std::size_t k = 0; k < found.size(); ++k) grouped[slot[found_bucket[k]]++] = found[k];
    }
  }
  // Bucket-major prefix: bucket b's entries are contiguous, its chunks (hence edges) in order.
  offset_type total = 0;
  for (auto& n : place) {
    const offset_type here = n;
    n = total;
    total += here;
  }

  // Pass 2: copy each chunk's groups to their buckets, key and value in two arrays that become
  // col_idx and values after compaction (reusing them halves the memory the VM must fault in).
  resize_fresh(a.col_idx, static_cast<std::size_t>(total));
  resize_fresh(a.values, static_cast<std::size_t>(total));
  auto* keys = reinterpret_cast<std::uint64_t*>(a.col_idx.data());  // same size and alignment
  static_assert(sizeof(global_index_type) == sizeof(std::uint64_t), "keys share col_idx's storage");
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
    const rmat_entry* from = kept_edges[c].data();
    for (std::uint64_t b = 0; b < buckets; ++b) {
      const std::uint64_t at = b * chunks + c;
      for (offset_type k = place[at]; k < place[at + 1]; ++k, ++from) {
        keys[k] = from->key;
        a.values[k] = from->val;
      }
    }
    std::vector<rmat_entry>().swap(kept_edges[c]);
  }

  // Per bucket, in a cache-sized scratch: counting sort by row, stable sort of each row by column,
  // duplicates summed in edge order, columns written back compacted at the bucket's start. Edge
  // order makes the sums bit-identical whatever the thread count and whichever range the row
  // was generated in. (Sorting whole buckets with std::sort took 60% of a single-threaded
  // scale-22 run.)
  std::vector<offset_type> kept(buckets);
#pragma omp parallel if (total >= parallel_rows)
  {
    std::vector<rmat_entry> scratch, buffer;
    std::vector<offset_type> row_end;
    std::vector<std::uint32_t> count;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(buckets); ++b) {
      const offset_type first = place[b * chunks], last = place[(b + 1) * chunks];
      const std::uint64_t row0 = static_cast<std::uint64_t>(b) << shift;
      const std::uint64_t span = std::min(std::uint64_t{1} << shift, rows - row0);
      row_end.assign(span + 1, 0);
      for (offset_type k = first; k < last; ++k) ++row_end[(keys[k] >> rmat_col_bits) + 1];
      for (std::uint64_t r = 0; r < span; ++r) row_end[r + 1] += row_end[r];
      // row_end[r] starts as row r's first slot and ends as its end (= row r + 1's start).
      scratch.resize(static_cast<std::size_t>(last - first));
      for (offset_type k = first; k < last; ++k)
        scratch[row_end[keys[k] >> rmat_col_bits]++] = {keys[k] & rmat_col_mask, a.values[k]};
      offset_type out = first;
      for (std::uint64_t r = 0; r < span; ++r) {
        rmat_entry* const begin = scratch.data() + (r == 0 ? 0 : row_end[r - 1]);
        rmat_entry* const end = scratch.data() + row_end[r];
        sort_row_by_column(begin, end, p.scale, buffer, count);
        const offset_type row_start = out;
        for (const rmat_entry* e = begin; e != end; ++e) {
          if (e != begin && e->key == e[-1].key) {
            a.values[out - 1] += e->val;
          } else {
            a.col_idx[out] = static_cast<global_index_type>(e->key);
            a.values[out++] = e->val;
          }
        }
        a.row_ptr[row0 + r + 1] = out - row_start;
      }
      kept[b] = out - first;
    }
  }
  for (std::uint64_t r = 0; r < rows; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
  // Close the gaps left by the duplicates: buckets only move towards the front, so moving them in
  // order never overwrites one not yet moved.
  for (std::uint64_t b = 1; b < buckets; ++b) {
    const offset_type from = place[b * chunks], to = a.row_ptr[b << shift];
    std::copy(a.col_idx.begin() + from, a.col_idx.begin() + from + kept[b], a.col_idx.begin() + to);
    std::copy(a.values.begin() + from, a.values.begin() + from + kept[b], a.values.begin() + to);
  }
  a.col_idx.resize(static_cast<std::size_t>(a.nnz()));
  a.values.resize(static_cast<std::size_t>(a.nnz()));
  return a;
}

/// Expected number of distinct (row, column) pairs: the cell reached by i, j, k, l choices of
/// the quadrants a, b, c, d has probability a^i b^j c^k d^l, and there are
/// SCALE! / (i! j! k! l!) such cells, each present with probability 1 - (1 - p)^edges.
/// Relabelling permutes cells and does not change the count.
offset_type rmat_expected_nnz(const parsed_spec& p) {
  const double la = std::log(rmat_t_a / rmat_unit), lb = std::log((rmat_t_ab - rmat_t_a) / rmat_unit),
               lc = std::log((rmat_t_abc - rmat_t_ab) / rmat_unit), ld = std::log((rmat_unit - rmat_t_abc) / rmat_unit);
  const double edges = std::ldexp(static_cast<double>(p.edge_factor), p.scale);
  const int s = p.scale;
  const double lfs = std::lgamma(s + 1.0);
  double expected = 0;
  for (int i = 0; i <= s; ++i)
    for (int j = 0; i + j <= s; ++j)
      for (int k = 0; i + j + k <= s; ++k) {
        const int l = s - i - j - k;
        const double log_cells = lfs - std::lgamma(i + 1.0) - std::lgamma(j + 1.0) - std::lgamma(k + 1.0) -
                                 std::lgamma(l + 1.0);
        const double prob = std::exp(i * la + j * lb + k * lc + l * ld);
        expected += std::exp(log_cells) * -std::expm1(edges * std::log1p(-prob));
      }
  return static_cast<offset_type>(std::llround(expected));
}

// ---- lognormal row lengths ---------------------------------------------------------------------

/// Row model of gen:lognormal: window, length and the row's random key.
class lognormal_model {
 public:
  lognormal_model(const parsed_spec& p, std::uint64_t seed)
      : rows_(p.n), band_(std::min(p.band, p.n)), mu_(p.mu), sigma_(p.sigma),
        row_stream_(stream_key(seed, salt_lognormal_rows)),
        value_stream_(stream_key(seed, salt_lognormal_values)) {}

  /// First column of row i's window [i - BAND, i + BAND] ∩ [0, ROWS).
  global_index_type window_begin(global_index_type i) const { return std::max<global_index_type>(0, i - band_); }
  global_index_type window_size(global_index_type i) const {
    return std::min(rows_ - 1, i + band_) - window_begin(i) + 1;
  }

  std::uint64_t row_key(global_index_type i) const { return object_key(row_stream_, static_cast<std::uint64_t>(i)); }
  std::uint64_t value_key(global_index_type i) const {
    return object_key(value_stream_, static_cast<std::uint64_t>(i));
  }

  /// round(exp(MU + SIGMA z)) clamped to [1, window], z standard normal by Box-Muller from the
  /// row key's draws 1 and 2 (column draws start at 3).
  global_index_type length(global_index_type i) const {
    const std::uint64_t key = row_key(i);
    const double u1 = unit_open_closed(draw(key, 1)), u2 = unit_closed_open(draw(key, 2));
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    const double x = std::exp(mu_ + sigma_ * z);
    const global_index_type w = window_size(i);
    if (!(x < static_cast<double>(w))) return w;  // also catches exp overflowing to inf
    return std::max<global_index_type>(1, static_cast<global_index_type>(std::round(x)));
  }

 private:
  global_index_type rows_, band_;
  double mu_, sigma_;
  std::uint64_t row_stream_, value_stream_;
};

/// Picks `len` distinct sorted columns of [lo, lo + w) into `out`, drawing from `key` (draws 3...).
void pick_columns(std::uint64_t key, global_index_type lo, global_index_type w, global_index_type len,
                  global_index_type* out) {
  std::uint64_t k = 3;
  if (len == w) {
    for (global_index_type t = 0; t < w; ++t) out[t] = lo + t;
  } else if (len * 4 >= w) {
    // Dense pick: selection sampling (Knuth's algorithm S) costs O(w) <= O(4 len) draws and
    // yields the columns already sorted.
    global_index_type need = len;
    for (global_index_type t = 0; need > 0; ++t) {
      if (static_cast<double>(w - t) * unit_closed_open(draw(key, k++)) < static_cast<double>(need)) {
        *out++ = lo + t;
        --need;
      }
    }
  } else {
    // Sparse pick: draw, sort, drop repeats, redraw the missing ones. With len < w / 4 repeats are
    // rare, so this is O(len log len); iid draws until len distinct values make every subset
    // equally likely.
    global_index_type have = 0;
    while (have < len) {
      for (global_index_type t = have; t < len; ++t) {
        const auto off = static_cast<global_index_type>(unit_closed_open(draw(key, k++)) * static_cast<double>(w));
        out[t] = lo + std::min(off, w - 1);
      }
      std::sort(out, out + len);
      have = std::unique(out, out + len) - out;
    }
  }
}

csr_matrix<double> generate_lognormal(const parsed_spec& p, row_range range, std::uint64_t seed) {
  const lognormal_model model(p, seed);
  csr_matrix<double> a = empty_rows(p, range);
#pragma omp parallel for schedule(static) if (a.rows >= parallel_rows)
  for (global_index_type r = 0; r < a.rows; ++r) a.row_ptr[r + 1] = model.length(range.begin + r);
  finish_row_ptr(a);
#pragma omp parallel for schedule(dynamic, 1024) if (a.rows >= parallel_rows)
  for (global_index_type r = 0; r < a.rows; ++r) {
    const global_index_type i = range.begin + r;
    const offset_type first = a.row_ptr[r], len = a.row_ptr[r + 1] - first;
    pick_columns(model.row_key(i), model.window_begin(i), model.window_size(i), len, a.col_idx.data() + first);
    const std::uint64_t vkey = model.value_key(i);
    for (offset_type t = 0; t < len; ++t)
      a.values[first + t] = unit_open_closed(draw(vkey, static_cast<std::uint64_t>(t) + 1));
  }
  return a;
}

/// P(row length > k) for a row whose window exceeds k: P(X >= k + 1/2), X = exp(MU + SIGMA z).
double lognormal_tail(const parsed_spec& p, double k) {
  const double t = std::log(k + 0.5);
  if (p.sigma == 0) return std::exp(p.mu) >= k + 0.5 ? 1.0 : 0.0;
  return 0.5 * std::erfc((t - p.mu) / (p.sigma * std::sqrt(2.0)));
}

/// Expected nonzeros: E[len_i] = 1 + sum_{k=1}^{w_i - 1} P(X >= k + 1/2), so the total is
/// ROWS + sum_k P(X >= k + 1/2) * #{rows whose window exceeds k}.
offset_type lognormal_expected_nnz(const parsed_spec& p) {
  const global_index_type rows = p.n;
  const lognormal_model model(p, 1);
  // Window sizes rise from the first row to the middle and fall symmetrically after it, so the
  // rows whose window exceeds k are [i0, rows - 1 - i0] for the first such i0.
  const global_index_type mid = (rows - 1) / 2, widest = model.window_size(mid);
  auto rows_wider_than = [&](global_index_type k) -> double {
    if (widest <= k) return 0;
    global_index_type lo = 0, hi = mid;  // first i in [0, mid] with window_size(i) > k
    while (lo < hi) {
      const global_index_type m = lo + (hi - lo) / 2;
      if (model.window_size(m) > k) hi = m; else lo = m + 1;
    }
    return static_cast<double>(rows - 2 * lo);
  };
  long double expected = rows;
  constexpr global_index_type exact_terms = global_index_type{1} << 20;
  global_index_type k = 1;
  for (; k < widest && k <= exact_terms; ++k) {
    const double tail = lognormal_tail(p, static_cast<double>(k));
    if (tail < 1e-18) return static_cast<offset_type>(std::llround(expected));
    expected += tail * rows_wider_than(k);
  }
  if (k < widest) {
    // Far tail of a huge band: integrate over log k (Simpson) instead of summing every term.
    constexpr int pieces = 4096;
    const double t0 = std::log(static_cast<double>(k)), t1 = std::log(static_cast<double>(widest));
    const double h = (t1 - t0) / pieces;
    long double integral = 0;
    for (int j = 0; j <= pieces; ++j) {
      const double x = std::exp(t0 + j * h);
      const double f = lognormal_tail(p, x) * rows_wider_than(static_cast<global_index_type>(x)) * x;
      integral += f * ((j == 0 || j == pieces) ? 1 : (j % 2 ? 4 : 2));
    }
    expected += integral * h / 3;
  }
  return static_cast<offset_type>(std::llround(expected));
}

}  // namespace

bool is_generator(const std::string& source) { return source.rfind("gen:", 0) == 0; }

generator_info describe_generator(const std::string& spec) {
  const parsed_spec p = parse_spec(spec);
  generator_info info;
  info.rows = p.rows;
  info.cols = p.cols;
  switch (p.kind) {
    case generator_kind::poisson3d:
      // Every grid edge gives two off-diagonal entries: 3 N^2 (N - 1) edges.
      info.nnz_estimate = p.n * p.n * p.n + 6 * p.n * p.n * (p.n - 1);
      break;
    case generator_kind::stencil27: {
      // The neighbourhood is a product over the axes, so nnz = (sum over x of axis_span)^3.
      const offset_type line = p.n == 1 ? 1 : 3 * p.n - 2;
      info.nnz_estimate = line * line * line;
      break;
    }
    case generator_kind::rmat: info.nnz_estimate = rmat_expected_nnz(p); break;
    case generator_kind::lognormal: info.nnz_estimate = lognormal_expected_nnz(p); break;
  }
  return info;
}

csr_matrix<double> generate_rows(const std::string& spec, row_range range, std::uint64_t seed) {
  const parsed_spec p = parse_spec(spec);
  if (range.begin < 0 || range.end < range.begin || range.end > p.rows)
    DSPMV_BAD_INPUT(spec, "row range", "[" + std::to_string(range.begin) + ", " + std::to_string(range.end) +
                                           ") is not within [0, " + std::to_string(p.rows) + ")");
  switch (p.kind) {
    case generator_kind::poisson3d:
    case generator_kind::stencil27: return generate_stencil(p, range);
    case generator_kind::rmat: return generate_rmat(p, range, seed);
    case generator_kind::lognormal: return generate_lognormal(p, range, seed);
  }
  return {};  // unreachable: parse_spec accepted one of the kinds above
}

csr_matrix<double> generate(const std::string& spec, std::uint64_t seed) {
  return generate_rows(spec, row_range{0, parse_spec(spec).rows}, seed);
}

namespace detail {
std::uint64_t rmat_relabel(std::uint64_t vertex, int scale, std::uint64_t seed) {
  DSPMV_REQUIRE(scale >= 1 && scale <= 40, "rmat_relabel: scale " + std::to_string(scale) + " outside [1, 40]");
  parsed_spec p;
  p.scale = scale;
  p.edge_factor = 1;
  return rmat_model(p, seed).relabel(vertex);
}
}  // namespace detail

}  // namespace distspmv::io
