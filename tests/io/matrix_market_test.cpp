// Matrix Market reader and writer: exact CSR for tiny inline matrices, every bad input named
// with file, line and problem, bounded lines (the same result wherever the parse windows fall,
// a huge comment line read with flat memory), exact round trips, the checked-in data, the fuzz
// regressions and the shared real matrices.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/detail/matrix_market_parse.hpp"
#include "io/matrix_market.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv::io {
namespace {

namespace fs = std::filesystem;

using matrix = csr_matrix<double>;

/// A CSR written out by hand: the expected result of a read.
matrix make_csr(global_index_type rows, global_index_type cols, std::vector<offset_type> row_ptr,
                std::vector<global_index_type> col_idx, std::vector<double> values) {
  matrix a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr = std::move(row_ptr);
  a.col_idx = std::move(col_idx);
  a.values = std::move(values);
  return a;
}

void expect_same(const matrix& actual, const matrix& expected) {
  EXPECT_EQ(actual.rows, expected.rows);
  EXPECT_EQ(actual.cols, expected.cols);
  EXPECT_EQ(actual.row_ptr, expected.row_ptr);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(actual.values, expected.values);
}

/// One temporary folder per test, removed at the end.
class temp_dir {
 public:
  temp_dir() : path_(test::make_temp_dir("distspmv-mm-test")) {}
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

  /// Writes `content` as it is (bytes) to a file of this folder.
  std::string write(const std::string& name, const std::string& content) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  /// Writes `content` gzip-compressed.
  std::string write_gz(const std::string& name, const std::string& content) const {
    const std::string p = file(name);
    gzFile gz = gzopen(p.c_str(), "wb");
    gzwrite(gz, content.data(), static_cast<unsigned>(content.size()));
    gzclose(gz);
    return p;
  }

 private:
  std::string path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

matrix read_text(const std::string& content, const mm_read_options& options = {}) {
  temp_dir dir;
  return read_matrix_market(dir.write("m.mtx", content), options);
}

// ---- reading valid files ---------------------------------------------------------------------

TEST(MatrixMarketRead, GeneralRealGivesExactCsrWithZeroBasedSortedColumns) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real general\n"
      "3 4 5\n"
      "3 4 5\n"
      "1 4 -2\n"
      "2 3 3.25\n"
      "1 1 1.5\n"
      "3 1 4e-3\n");
  expect_same(a, make_csr(3, 4, {0, 2, 3, 5}, {0, 3, 2, 0, 3}, {1.5, -2, 3.25, 4e-3, 5}));
}

TEST(MatrixMarketRead, SymmetricLowerTriangleIsExpandedToFullStorage) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 2\n"
      "2 1 -1\n"
      "3 2 0.5\n"
      "3 3 7\n");
  expect_same(a, make_csr(3, 3, {0, 2, 4, 6}, {0, 1, 0, 2, 1, 2}, {2, -1, -1, 0.5, 0.5, 7}));
}

TEST(MatrixMarketRead, SymmetricUpperTriangleIsAcceptedAndMirrored) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 3\n"
      "1 2 -1\n"
      "2 3 0.5\n"
      "2 2 4\n");
  expect_same(a, make_csr(3, 3, {0, 1, 4, 5}, {1, 0, 1, 2, 1}, {-1, -1, 4, 0.5, 0.5}));
}

TEST(MatrixMarketRead, SkewSymmetricMirrorsWithNegatedSign) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n"
      "3 3 2\n"
      "2 1 1.5\n"
      "3 1 -4\n");
  expect_same(a, make_csr(3, 3, {0, 2, 3, 4}, {1, 2, 0, 0}, {-1.5, 4, 1.5, -4}));
}

TEST(MatrixMarketRead, SkewSymmetricExplicitZeroDiagonalIsKept) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n"
      "2 2 2\n"
      "1 1 0\n"
      "2 1 3\n");
  expect_same(a, make_csr(2, 2, {0, 2, 3}, {0, 1, 0}, {0, -3, 3}));
}

TEST(MatrixMarketRead, PatternEntriesGetValueOne) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate pattern general\n"
      "2 3 3\n"
      "2 3\n"
      "1 1\n"
      "2 1\n");
  expect_same(a, make_csr(2, 3, {0, 1, 3}, {0, 0, 2}, {1, 1, 1}));
}

TEST(MatrixMarketRead, PatternSymmetricIsExpanded) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate pattern symmetric\n"
      "3 3 2\n"
      "2 1\n"
      "3 3\n");
  expect_same(a, make_csr(3, 3, {0, 1, 2, 3}, {1, 0, 2}, {1, 1, 1}));
}

TEST(MatrixMarketRead, IntegerFieldGivesDoubles) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate integer general\n"
      "2 2 3\n"
      "1 1 -3\n"
      "2 2 +12\n"
      "1 2 9007199254740993\n");
  expect_same(a, make_csr(2, 2, {0, 2, 3}, {0, 1, 1}, {-3, 9007199254740993.0, 12}));
}

TEST(MatrixMarketRead, DuplicatesAreSummedInFileOrder) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real general\n"
      "2 2 5\n"
      "2 2 -1\n"
      "1 1 1\n"
      "1 2 8\n"
      "1 1 2\n"
      "1 1 0.5\n");
  expect_same(a, make_csr(2, 2, {0, 2, 3}, {0, 1, 1}, {3.5, 8, -1}));
}

TEST(MatrixMarketRead, SymmetricEntryGivenInBothTrianglesIsSummed) {
  // Lenient reading mirrors every off-diagonal entry, so a file that stores both triangles
  // counts each value twice, as summing duplicates says it must.
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "2 2 2\n"
      "2 1 1\n"
      "1 2 1\n");
  expect_same(a, make_csr(2, 2, {0, 1, 2}, {1, 0}, {2, 2}));
}

TEST(MatrixMarketRead, CommentsAndBlankLinesAnywhereAfterTheBanner) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real general\n"
      "% comment\n"
      "\n"
      "   \t\n"
      "%another\n"
      "2 2 2\n"
      "\n"
      "% between entries\n"
      "1 1 1\n"
      "   % indented comment\n"
      "\n"
      "2 2 2\n"
      "% trailing comment\n"
      "\n");
  expect_same(a, make_csr(2, 2, {0, 1, 2}, {0, 1}, {1, 2}));
}

TEST(MatrixMarketRead, CrlfTabsLeadingBlanksAndMissingFinalNewlineAreAccepted) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real general\r\n"
      "  2\t3 \t2 \r\n"
      "\t1\t3\t-1.25e+2\t\r\n"
      "2 1   +7.5");
  expect_same(a, make_csr(2, 3, {0, 1, 2}, {2, 0}, {-125, 7.5}));
}

TEST(MatrixMarketRead, BannerWordsAreCaseInsensitive) {
  const matrix a = read_text("%%matrixmarket MATRIX Coordinate Real SYMMETRIC\n1 1 1\n1 1 3\n");
  expect_same(a, make_csr(1, 1, {0, 1}, {0}, {3}));
}

TEST(MatrixMarketRead, ZeroEntriesAndZeroRowsGiveEmptyMatrices) {
  expect_same(read_text("%%MatrixMarket matrix coordinate real general\n3 2 0\n"),
              make_csr(3, 2, {0, 0, 0, 0}, {}, {}));
  expect_same(read_text("%%MatrixMarket matrix coordinate real general\n0 0 0\n"), make_csr(0, 0, {0}, {}, {}));
  expect_same(read_text("%%MatrixMarket matrix coordinate real general\n0 0 0"), make_csr(0, 0, {0}, {}, {}));
}

TEST(MatrixMarketRead, EmptyRowsKeepEqualRowPointers) {
  const matrix a = read_text("%%MatrixMarket matrix coordinate real general\n5 3 2\n5 3 -1\n1 2 1\n");
  expect_same(a, make_csr(5, 3, {0, 1, 1, 1, 1, 2}, {1, 2}, {1, -1}));
}

TEST(MatrixMarketRead, NumberSpellingsOfOtherWritersAreAccepted) {
  // Fortran 'D' exponents, a leading '+', no digits after the point, leading zeros in indices.
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real general\n"
      "1 6 6\n"
      "1 1 1.0D+02\n"
      "1 2 -2.5d-1\n"
      "1 3 +3\n"
      "1 4 4.\n"
      "01 0005 .5\n"
      "1 6 -0\n");
  ASSERT_EQ(a.nnz(), 6);
  EXPECT_EQ(a.values, (std::vector<double>{100, -0.25, 3, 4, 0.5, -0.0}));
  EXPECT_TRUE(std::signbit(a.values[5]));
}

TEST(MatrixMarketRead, SubnormalAndUnderflowingValuesAreAccepted) {
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real general\n"
      "1 3 3\n"
      "1 1 4.9406564584124654e-324\n"
      "1 2 1e-400\n"
      "1 3 1.7976931348623157e308\n");
  EXPECT_EQ(a.values[0], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(a.values[1], 0.0);
  EXPECT_EQ(a.values[2], std::numeric_limits<double>::max());
}

TEST(MatrixMarketRead, NonFiniteValuesAreAcceptedWithAllowNonfinite) {
  mm_read_options options;
  options.allow_nonfinite = true;
  const matrix a = read_text(
      "%%MatrixMarket matrix coordinate real general\n1 3 3\n1 1 nan\n1 2 -inf\n1 3 Infinity\n", options);
  ASSERT_EQ(a.nnz(), 3);
  EXPECT_TRUE(std::isnan(a.values[0]));
  EXPECT_EQ(a.values[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(a.values[2], std::numeric_limits<double>::infinity());
}

TEST(MatrixMarketRead, GzipIsDetectedByMagicBytesNotByName) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2\n";
  const matrix expected = make_csr(2, 2, {0, 1, 2}, {0, 1}, {1, 2});
  temp_dir dir;
  expect_same(read_matrix_market(dir.write_gz("a.mtx.gz", text)), expected);
  expect_same(read_matrix_market(dir.write_gz("compressed_but_named.mtx", text)), expected);
  expect_same(read_matrix_market(dir.write("plain_but_named.mtx.gz", text)), expected);
}

TEST(MatrixMarketRead, ConcatenatedGzipMembersAreOneFile) {
  temp_dir dir;
  const std::string first = read_bytes(dir.write_gz("1.gz", "%%MatrixMarket matrix coordinate real general\n2 2 2\n"));
  const std::string second = read_bytes(dir.write_gz("2.gz", "1 1 1\n2 2 2\n"));
  const matrix a = read_matrix_market(dir.write("both.mtx.gz", first + second));
  expect_same(a, make_csr(2, 2, {0, 1, 2}, {0, 1}, {1, 2}));
}

TEST(MatrixMarketRead, CheckedInDataFilesGiveTheirDocumentedMatrices) {
  const std::string d = test::test_data_dir() + "/";
  expect_same(read_matrix_market(d + "general_real_3x4.mtx"),
              make_csr(3, 4, {0, 2, 3, 5}, {0, 3, 2, 0, 3}, {1.5, -2, 3.25, 4e-3, 5}));
  expect_same(read_matrix_market(d + "symmetric_real_4x4.mtx"),
              make_csr(4, 4, {0, 2, 5, 8, 10}, {0, 1, 0, 1, 2, 1, 2, 3, 2, 3}, {4, 1, 1, 4, 1, 1, 4, 2, 2, 4}));
  expect_same(read_matrix_market(d + "skew_symmetric_integer_3x3.mtx"),
              make_csr(3, 3, {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}, {-2, 3, 2, -7, -3, 7}));
  expect_same(read_matrix_market(d + "pattern_symmetric_5x5.mtx"),
              make_csr(5, 5, {0, 1, 3, 6, 8, 9}, {1, 0, 2, 1, 2, 3, 2, 4, 3}, std::vector<double>(9, 1.0)));
  expect_same(read_matrix_market(d + "duplicates_general_2x2.mtx"),
              make_csr(2, 2, {0, 2, 3}, {0, 1, 1}, {3.5, 8, -1}));
  expect_same(read_matrix_market(d + "crlf_tabs_2x3.mtx"), make_csr(2, 3, {0, 1, 2}, {2, 0}, {-125, 7.5}));
  expect_same(read_matrix_market(d + "empty_rows_5x3.mtx"), make_csr(5, 3, {0, 1, 1, 1, 1, 2}, {1, 2}, {1, -1}));
}

TEST(MatrixMarketHeader, ReadsBannerAndSizeLineOfPlainAndGzipFiles) {
  temp_dir dir;
  const std::string text =
      "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n\n 10 10 17 \n1 1\n this line is never read\n";
  for (const std::string& path : {dir.write("h.mtx", text), dir.write_gz("h.mtx.gz", text)}) {
    const mm_header h = read_matrix_market_header(path);
    EXPECT_EQ(h.field, "pattern");
    EXPECT_EQ(h.symmetry, "symmetric");
    EXPECT_EQ(h.rows, 10);
    EXPECT_EQ(h.cols, 10);
    EXPECT_EQ(h.entries, 17);
  }
}

TEST(MatrixMarketHeader, LongCommentBlockAndNoFinalNewlineAreHandled) {
  temp_dir dir;
  std::string text = "%%MatrixMarket matrix coordinate real general\n";
  for (int i = 0; i < 20000; ++i) text += "% a long comment block that spans many read chunks\n";
  text += "7 8 0";
  const mm_header h = read_matrix_market_header(dir.write("long.mtx", text));
  EXPECT_EQ(h.rows, 7);
  EXPECT_EQ(h.cols, 8);
  EXPECT_EQ(h.entries, 0);
}

// ---- bad input -------------------------------------------------------------------------------

/// One malformed file: its text, the line the error must name (0: none) and a word of the
/// problem the message must contain.
struct bad_case {
  const char* name;
  std::string text;
  int line;
  std::string problem;
  bool gzip = false;
};

std::ostream& operator<<(std::ostream& os, const bad_case& c) { return os << c.name; }

const std::string banner = "%%MatrixMarket matrix coordinate real general\n";

std::vector<bad_case> bad_cases() {
  return {
      {"EmptyFile", "", 0, "empty file"},
      {"NotMatrixMarketBanner", "hello world\n1 1 1\n", 1, "not a Matrix Market file"},
      {"SingleSharpBanner", "%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, "'%%MatrixMarket'"},
      {"UnknownObject", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "unknown object 'vector'"},
      {"ArrayFormat", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
       "dense 'array' Matrix Market files are not supported; convert to coordinate"},
      {"FormatTypo", "%%MatrixMarket matrix cordinate real general\n1 1 0\n", 1,
       "unknown format 'cordinate' in the banner; expected 'coordinate'"},
      {"FieldTypo", "%%MatrixMarket matrix coordinate reall general\n1 1 0\n", 1,
       "unknown field 'reall' in the banner; expected real, integer or pattern"},
      {"ComplexField", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n", 1,
       "complex matrices are not supported"},
      {"HermitianSymmetry", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
       "complex matrices are not supported"},
      {"SymmetryTypo", "%%MatrixMarket matrix coordinate real symetric\n1 1 0\n", 1,
       "unknown symmetry 'symetric' in the banner; expected general, symmetric or skew-symmetric"},
      {"MissingSymmetryWord", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "expected the symmetry word"},
      {"MissingObjectWord", "%%MatrixMarket\n1 1 0\n", 1, "expected the object word"},
      {"ExtraBannerWord", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "unexpected word 'extra'"},
      {"PatternSkewSymmetric", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1,
       "'pattern' with 'skew-symmetric'"},
      {"FileEndsBeforeSizeLine", banner + "% only a comment\n", 2, "file ends before the size line"},
      {"SizeLineTwoNumbers", banner + "% c\n3 3\n1 1 1\n", 3, "size line has no entries count"},
      {"SizeLineNotANumber", banner + "3 x 3\n", 2, "columns count 'x' is not an integer"},
      {"SizeLineFraction", banner + "3 3 2.5\n", 2, "entries count '2.5' is not an integer"},
      {"SizeLineNegative", banner + "3 -3 0\n", 2, "columns count -3 is negative"},
      {"SizeLineTooLarge", banner + "3 3 99999999999999999999\n", 2, "is too large"},
      {"SizeLineExtraText", banner + "3 3 0 7\n", 2, "size line has unexpected text '7'"},
      {"SymmetricNotSquare", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2, "must be square"},
      {"FewerEntries", banner + "3 3 3\n1 1 1\n2 2 2\n", 4, "file ends after 2 entries; the size line says 3"},
      {"FewerEntriesTrailingComment", banner + "3 3 3\n1 1 1\n% c\n\n", 5, "file ends after 1 entries"},
      {"MoreEntries", banner + "3 3 1\n1 1 1\n% c\n2 2 2\n", 5, "more entries than the 1 the size line says"},
      {"RowIndexZero", banner + "3 3 1\n0 1 1\n", 3, "row index 0 out of range [1, 3]"},
      {"ColumnIndexZero", banner + "3 4 1\n1 0 1\n", 3, "column index 0 out of range [1, 4]"},
      {"NegativeRowIndex", banner + "3 3 1\n-2 1 1\n", 3, "row index -2 out of range [1, 3]"},
      {"RowIndexAboveRange", banner + "3 3 2\n1 1 1\n4 1 1\n", 4, "row index 4 out of range [1, 3]"},
      {"ColumnIndexAboveRange", banner + "3 5 1\n1 6 1\n", 3, "column index 6 out of range [1, 5]"},
      {"IndexBeyondInt64", banner + "3 3 1\n1 99999999999999999999999 1\n", 3, "column index '99999999999999999999999' out of range"},
      {"FractionalIndex", banner + "3 3 1\n1.5 1 1\n", 3, "row index '1.5' is not a positive integer"},
      {"TextIndex", banner + "3 3 1\nx 1 1\n", 3, "row index 'x' is not a positive integer"},
      {"MissingColumn", banner + "3 3 1\n1\n", 3, "entry has a row index only"},
      {"MissingValue", banner + "3 3 1\n1 1\n", 3, "entry has no value"},
      {"UnparsableValue", banner + "3 3 1\n1 1 abc\n", 3, "value 'abc' is not a number"},
      {"ValueWithTwoPoints", banner + "3 3 1\n1 1 1.2.3\n", 3, "value '1.2.3' is not a number"},
      {"HexValue", banner + "3 3 1\n1 1 0x10\n", 3, "value '0x10' is not a number"},
      {"PlusMinusValue", banner + "3 3 1\n1 1 +-1\n", 3, "value '+-1' is not a number"},
      {"ValueTooLarge", banner + "3 3 1\n1 1 1e400\n", 3, "value '1e400' is too large for a double"},
      {"NanValue", banner + "3 3 2\n1 1 1\n2 2 nan\n", 4, "non-finite value 'nan'"},
      {"InfValue", banner + "3 3 1\n1 1 -inf\n", 3, "non-finite value '-inf'"},
      {"DuplicatesSumToInf", banner + "1 1 2\n1 1 1e308\n1 1 1e308\n", 0, "gives a non-finite value"},
      {"IntegerFieldFraction", "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n", 3,
       "value '2.5' is not an integer"},
      {"TrailingText", banner + "3 3 1\n1 1 1 junk\n", 3, "unexpected text 'junk' after the entry"},
      {"PatternWithValue", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
       "unexpected text '1' after the entry (a pattern entry is 'row column')"},
      {"SkewNonzeroDiagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 5\n", 4,
       "nonzero diagonal entry (2, 2)"},
      {"BinaryGarbage", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10), 1, "not a Matrix Market file"},
      {"CorruptGzip", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage-not-deflate", 29), 0,
       "corrupt gzip stream"},
  };
}

class MatrixMarketBadInput : public ::testing::TestWithParam<bad_case> {};

TEST_P(MatrixMarketBadInput, ThrowsBadInputNamingFileLineAndProblem) {
  const bad_case& c = GetParam();
  temp_dir dir;
  const std::string path = dir.write(std::string(c.name) + ".mtx", c.text);
  try {
    read_matrix_market(path);
    FAIL() << "no exception for " << c.name;
  } catch (const bad_input& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(path + ": ", 0), 0u) << m;
    if (c.line > 0) {
      EXPECT_NE(m.find(": line " + std::to_string(c.line) + ": "), std::string::npos) << m;
    }
    EXPECT_NE(m.find(c.problem), std::string::npos) << m;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryCase, MatrixMarketBadInput, ::testing::ValuesIn(bad_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(MatrixMarketBadInputFiles, MissingFileNamesTheFile) {
  temp_dir dir;
  const std::string path = dir.file("no_such_matrix.mtx");
  for (int header_only = 0; header_only < 2; ++header_only) {
    try {
      if (header_only) read_matrix_market_header(path);
      else read_matrix_market(path);
      FAIL() << "no exception";
    } catch (const bad_input& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(path), std::string::npos) << m;
      EXPECT_NE(m.find("cannot open"), std::string::npos) << m;
      EXPECT_NE(m.find("No such file"), std::string::npos) << m;
    }
  }
}

TEST(MatrixMarketBadInputFiles, DirectoryIsRejected) {
  temp_dir dir;
  EXPECT_THROW(read_matrix_market(dir.path()), bad_input);
  EXPECT_THROW(read_matrix_market_header(dir.path()), bad_input);
}

TEST(MatrixMarketBadInputFiles, TruncatedGzipIsRejectedAtEveryCut) {
  temp_dir dir;
  std::string text = "%%MatrixMarket matrix coordinate real general\n50 50 400\n";
  std::mt19937_64 rng(7);
  for (int k = 0; k < 400; ++k)
    text += std::to_string(rng() % 50 + 1) + " " + std::to_string(rng() % 50 + 1) + " " + std::to_string(k * 0.37) + "\n";
  const std::string gz = read_bytes(dir.write_gz("full.mtx.gz", text));
  for (std::size_t cut : {gz.size() - 1, gz.size() - 4, gz.size() - 8, gz.size() - 9, gz.size() / 2, std::size_t{12}}) {
    const std::string path = dir.write("cut" + std::to_string(cut) + ".mtx.gz", gz.substr(0, cut));
    try {
      read_matrix_market(path);
      FAIL() << "no exception at cut " << cut;
    } catch (const bad_input& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(path), std::string::npos) << m;
      EXPECT_NE(m.find("truncated gzip file"), std::string::npos) << m;
    }
  }
  // The header of a cut file is still readable when the size line survived the cut.
  const mm_header h = read_matrix_market_header(dir.file("cut" + std::to_string(gz.size() / 2) + ".mtx.gz"));
  EXPECT_EQ(h.entries, 400);
}

TEST(MatrixMarketBadInputFiles, HeaderReaderRejectsBannerTypos) {
  temp_dir dir;
  const std::string path = dir.write_gz("typo.mtx.gz", "%%MatrixMarket matrix coordinate real generl\n1 1 0\n");
  try {
    read_matrix_market_header(path);
    FAIL() << "no exception";
  } catch (const bad_input& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path + ": line 1: unknown symmetry 'generl'"), std::string::npos) << m;
  }
}

TEST(MatrixMarketBadInputFiles, SizeLineBeyondTheRowLimitIsRejectedBeforeAllocating) {
  const std::string text = banner + "1000000000000 3 0\n";
  detail::mm_parse_limits limits;
  limits.max_rows = 1 << 20;
  EXPECT_THROW(detail::parse_matrix_market(text.data(), text.size(), "mem", {}, nullptr, limits), bad_input);
}

// ---- bounded lines: memory stays flat whatever the file ---------------------------------------

/// Parses `text` from memory with the given window and line bound; "OK" or the message.
std::string parse_outcome(const std::string& text, std::size_t window, std::size_t max_line, matrix* out = nullptr) {
  detail::mm_parse_limits limits;
  limits.window_bytes = window;
  limits.max_line_bytes = max_line;
  try {
    matrix a = detail::parse_matrix_market(text.data(), text.size(), "mem", {}, nullptr, limits);
    if (out) *out = std::move(a);
    return "OK";
  } catch (const bad_input& e) {
    return e.what();
  }
}

/// Valid and invalid texts with comment lines and leading blanks longer than a small bound.
std::vector<std::string> window_edge_texts() {
  const std::string long_comment = "%" + std::string(300, 'c') + "\n";
  const std::string long_blanks(200, ' ');
  std::vector<std::string> texts = {
      banner + long_comment + "3 3 3\n1 1 1\n" + long_comment + long_blanks + "2 2 2.5\n  " + long_comment +
          "3 1 -4e-3\n" + long_comment,
      banner + long_blanks + "\t" + long_comment + long_blanks + "\n 2 2 1\n" + long_blanks + "2 1 7",
      "%%MatrixMarket matrix coordinate integer symmetric\n" + long_comment + "2 2 2\n1 1 3\n2 1 -4\n%" +
          std::string(1000, '%'),
      "%%MatrixMarket matrix coordinate pattern general\r\n" + long_blanks + long_comment + "2 3 2\r\n1 3\r\n2 1\r\n",
      banner + "2 2 1\n" + long_comment + "1 1 1\n" + long_comment + "2 2 2\n",  // more entries
      banner + long_comment + "2 2 1\n1 x 1\n",                                     // a bad index
      banner + long_comment + long_blanks,                                         // no size line
      banner + "2 2 2\n1 1 1\n" + long_comment,                                    // too few entries
  };
  for (const bad_case& c : bad_cases())
    if (!c.gzip && c.text.find('\x1f') == std::string::npos) texts.push_back(c.text);
  return texts;
}

TEST(MatrixMarketBoundedLines, EveryWindowSizeGivesTheSameMatrixOrTheSameMessage) {
  // The window edges (the carried incomplete line, long comments cut to '%', long leading
  // blanks dropped) must never show: 1-byte windows upwards, against one window for all.
  for (const std::string& text : window_edge_texts()) {
    matrix whole;
    const std::string expected = parse_outcome(text, 1 << 20, 64, &whole);
    for (std::size_t window = 1; window <= 70; ++window) {
      matrix a;
      ASSERT_EQ(parse_outcome(text, window, 64, &a), expected) << "window " << window << " text:\n" << text;
      if (expected == "OK") expect_same(a, whole);
    }
  }
  matrix a;
  ASSERT_EQ(parse_outcome(window_edge_texts()[0], 1, 64, &a), "OK");
  expect_same(a, make_csr(3, 3, {0, 1, 2, 3}, {0, 1, 0}, {1, 2.5, -4e-3}));
  ASSERT_EQ(parse_outcome(window_edge_texts()[2], 1, 64, &a), "OK");
  expect_same(a, make_csr(2, 2, {0, 2, 3}, {0, 1, 0}, {3, -4, -4}));
}

TEST(MatrixMarketBoundedLines, LinesPastTheBoundAreBadInputNamingTheLineWhereverTheWindowsFall) {
  struct long_line {
    std::string text;
    std::string message;
  };
  const std::string long_value = std::string(100, '1');
  const std::vector<long_line> cases = {
      {banner + "3 3 2\n1 1 1\n% c\n2 2 " + long_value + "\n",
       "mem: line 5: entry line is longer than this reader's limit of 64 bytes (only comment lines may be longer); "
       "it starts '2'"},
      {banner + "3 3 1\n   \t  1 1 1" + std::string(70, ' ') + "\n",
       "mem: line 3: entry line is longer than this reader's limit of 64 bytes"},
      {banner + "3 3 1\n1 1 1\n1" + std::string(70, ' ') + "2 2\n",  // and one entry too many
       "mem: line 4: entry line is longer than this reader's limit of 64 bytes"},
      {banner + "3 3 1\nx" + long_value + "\n", "mem: line 3: entry line is longer"},  // and not a number
      {banner + "% c\n\n3 3 " + long_value + "\n",
       "mem: line 4: size line is longer than this reader's limit of 64 bytes"},
      {"%%MatrixMarket matrix coordinate real general" + std::string(30, ' ') + "\n1 1 0\n",
       "mem: line 1: the banner line is longer than this reader's limit of 64 bytes"},
      {"%%MatrixMarket matrix coordinate real general" + std::string(30, ' '),
       "mem: line 1: the banner line is longer than this reader's limit of 64 bytes"},
      {std::string(100, 'x') + "\n", "mem: line 1: not a Matrix Market file"},
      {"garbage " + std::string(100, 'x'), "mem: line 1: not a Matrix Market file"},
  };
  for (const long_line& c : cases) {
    const std::string whole = parse_outcome(c.text, 1 << 20, 64);
    EXPECT_EQ(whole.rfind(c.message, 0), 0u) << whole;
    for (std::size_t window = 1; window <= 130; ++window)
      ASSERT_EQ(parse_outcome(c.text, window, 64), whole) << "window " << window;
  }
}

TEST(MatrixMarketBoundedLines, DataLineLongerThanOneMebibyteInAFileIsBadInput) {
  temp_dir dir;
  const std::string text = banner + "3 3 2\n1 1 1\n2 2 " + std::string(3 << 20, '5') + "\n";
  for (const std::string& path : {dir.write("long.mtx", text), dir.write_gz("long.mtx.gz", text)}) {
    try {
      read_matrix_market(path);
      FAIL() << "no exception for " << path;
    } catch (const bad_input& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ": line 4: entry line is longer than this reader's limit of 1048576 "
                                                   "bytes (only comment lines may be longer); it starts '2'",
                                            0),
                0u)
          << e.what();
    }
  }
}

/// Peak RSS (ru_maxrss, KiB) growth of `work` run in a child process: the child's peak starts
/// at what it inherits, so what the parent did before does not hide the growth. -1 when the
/// work threw; `message` gets the exception's text.
long child_peak_rss_growth_kib(const std::function<void()>& work, std::string& message) {
  int fds[2];
  if (::pipe(fds) != 0) return -2;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    rusage before{}, after{};
    ::getrusage(RUSAGE_SELF, &before);
    std::string report;
    try {
      work();
      ::getrusage(RUSAGE_SELF, &after);
      report = std::to_string(after.ru_maxrss - before.ru_maxrss);
    } catch (const std::exception& e) {
      report = std::string("-1 ") + e.what();
    }
    const ssize_t put = ::write(fds[1], report.data(), report.size());
    ::_exit(put == static_cast<ssize_t>(report.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string report;
  char buf[4096];
  for (ssize_t got; (got = ::read(fds[0], buf, sizeof buf)) > 0;) report.append(buf, static_cast<std::size_t>(got));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || report.empty()) return -2;
  const long growth = std::stol(report);
  if (growth < 0) message = report.substr(3);
  return growth;
}

TEST(MatrixMarketBoundedLines, HugeCommentLineInGzipIsReadWithFlatMemory) {
  // 320 MiB of one comment line (about 0.3 MB on disk): before, the whole text was held, and
  // the peak grew by the text's size; now the comment is skipped unstored.
  constexpr std::size_t comment_mib = 320;
  temp_dir dir;
  const std::string path = dir.file("huge_comment.mtx.gz");
  {
    gzFile gz = gzopen(path.c_str(), "wb1");
    ASSERT_NE(gz, nullptr);
    const std::string head = banner + "% " + std::string(1000, 'h') + "\n%";
    gzwrite(gz, head.data(), static_cast<unsigned>(head.size()));
    const std::string chunk(1 << 20, 'x');
    for (std::size_t i = 0; i < comment_mib; ++i) gzwrite(gz, chunk.data(), static_cast<unsigned>(chunk.size()));
    const std::string tail = "\n3 3 2\n1 1 1.5\n%" + chunk + "\n3 2 -2\n";
    gzwrite(gz, tail.data(), static_cast<unsigned>(tail.size()));
    ASSERT_EQ(gzclose(gz), Z_OK);
  }
  std::string message;
  const long growth_kib = child_peak_rss_growth_kib(
      [&] {
        const mm_header h = read_matrix_market_header(path);
        const matrix a = read_matrix_market(path);
        if (h.rows != 3 || h.entries != 2) throw std::runtime_error("wrong header");
        if (a.nnz() != 2 || a.values[0] != 1.5 || a.values[1] != -2) throw std::runtime_error("wrong matrix");
      },
      message);
  ASSERT_GE(growth_kib, 0) << message;
  RecordProperty("peak_rss_growth_kib", static_cast<int>(growth_kib));
  std::printf("reading a %zu MiB comment line from %.2f MB of gzip: peak RSS grew by %.1f MiB\n", comment_mib,
              static_cast<double>(fs::file_size(path)) / 1e6, static_cast<double>(growth_kib) / 1024.0);
  EXPECT_LT(growth_kib, 64 * 1024);
}

// ---- writing ---------------------------------------------------------------------------------

/// Random CSR with sorted unique columns, empty rows, and values that stress round-tripping.
matrix random_matrix(global_index_type rows, global_index_type cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  test::uniform_real u(-1.0, 1.0);
  const double specials[] = {0.1, -0.0, 1e308, -2.2250738585072014e-308, 4.9406564584124654e-324,
                             1.0 / 3.0, 123456789012345678.0, 1e-5, 5e-324};
  matrix a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(1, 0);
  for (global_index_type r = 0; r < rows; ++r) {
    std::map<global_index_type, double> row;
    const int len = static_cast<int>(rng() % 6);
    for (int k = 0; k < len && cols > 0; ++k) {
      const double v = rng() % 5 == 0 ? specials[rng() % 9] : u(rng) * std::pow(10.0, static_cast<int>(rng() % 40) - 20);
      row[static_cast<global_index_type>(rng() % static_cast<std::uint64_t>(cols))] = v;
    }
    for (const auto& [c, v] : row) {
      a.col_idx.push_back(c);
      a.values.push_back(v);
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

bool same_bits(const matrix& a, const matrix& b) {
  if (!(a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx)) return false;
  for (std::size_t k = 0; k < a.values.size(); ++k)
    if (std::memcmp(&a.values[k], &b.values[k], sizeof(double)) != 0) return false;
  return true;
}

TEST(MatrixMarketWrite, RoundTripIsBitExactForRandomMatricesPlainAndGzip) {
  temp_dir dir;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const matrix a = random_matrix(static_cast<global_index_type>(37 * seed), static_cast<global_index_type>(53 * seed - 20), seed);
    for (const char* name : {"r.mtx", "r.mtx.gz"}) {
      const std::string path = dir.file(name);
      write_matrix_market(path, a);
      const matrix b = read_matrix_market(path);
      EXPECT_TRUE(same_bits(a, b)) << name << " seed " << seed;
    }
  }
}

TEST(MatrixMarketWrite, GzipOutputIsCompressedAndPlainOutputIsText) {
  temp_dir dir;
  const matrix a = random_matrix(20, 20, 9);
  write_matrix_market(dir.file("a.mtx.gz"), a);
  write_matrix_market(dir.file("a.mtx"), a);
  const std::string gz = read_bytes(dir.file("a.mtx.gz"));
  const std::string plain = read_bytes(dir.file("a.mtx"));
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  EXPECT_EQ(plain.rfind("%%MatrixMarket matrix coordinate real general\n", 0), 0u);
}

TEST(MatrixMarketWrite, WritesGeneralOneBasedShortestValues) {
  temp_dir dir;
  const matrix a = make_csr(2, 3, {0, 2, 3}, {0, 2, 1}, {0.1, -2, 1e-300});
  write_matrix_market(dir.file("w.mtx"), a);
  EXPECT_EQ(read_bytes(dir.file("w.mtx")),
            "%%MatrixMarket matrix coordinate real general\n% written by distspmv\n2 3 3\n1 1 0.1\n1 3 -2\n2 2 1e-300\n");
}

TEST(MatrixMarketWrite, PatternWritesNoValuesAndReadsBackAsOnes) {
  temp_dir dir;
  const matrix a = make_csr(2, 3, {0, 2, 3}, {0, 2, 1}, {0.1, -2, 7});
  write_matrix_market(dir.file("p.mtx"), a, true);
  EXPECT_EQ(read_bytes(dir.file("p.mtx")),
            "%%MatrixMarket matrix coordinate pattern general\n% written by distspmv\n2 3 3\n1 1\n1 3\n2 2\n");
  expect_same(read_matrix_market(dir.file("p.mtx")), make_csr(2, 3, {0, 2, 3}, {0, 2, 1}, {1, 1, 1}));
}

TEST(MatrixMarketWrite, EmptyMatricesRoundTrip) {
  temp_dir dir;
  for (const matrix& a : {make_csr(0, 0, {0}, {}, {}), make_csr(4, 2, {0, 0, 0, 0, 0}, {}, {})}) {
    write_matrix_market(dir.file("e.mtx.gz"), a);
    expect_same(read_matrix_market(dir.file("e.mtx.gz")), a);
  }
}

/// Files of `dir` other than `keep`.
std::vector<std::string> other_files(const std::string& dir, const std::string& keep) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != keep) names.push_back(e.path().filename().string());
  return names;
}

TEST(MatrixMarketWrite, FailureLeavesNoPartialOrTemporaryFile) {
  temp_dir dir;
  const matrix good = make_csr(1, 1, {0, 1}, {0}, {5});
  write_matrix_market(dir.file("keep.mtx"), good);
  const std::string before = read_bytes(dir.file("keep.mtx"));
  // A matrix whose column is out of range is found only while writing, after the temporary
  // file exists: the old file must survive and no temporary file may stay behind.
  matrix bad = random_matrix(5000, 100, 3);
  bad.col_idx.back() = 100;
  for (const char* name : {"keep.mtx", "new.mtx.gz"}) {
    EXPECT_THROW(write_matrix_market(dir.file(name), bad), error);
  }
  EXPECT_EQ(read_bytes(dir.file("keep.mtx")), before);
  EXPECT_TRUE(other_files(dir.path(), "keep.mtx").empty());
  // Inconsistent shapes are refused up front.
  matrix short_ptr = good;
  short_ptr.row_ptr = {0};
  EXPECT_THROW(write_matrix_market(dir.file("s.mtx"), short_ptr), error);
  EXPECT_TRUE(other_files(dir.path(), "keep.mtx").empty());
}

TEST(MatrixMarketWrite, UnwritableFolderGivesBadInputNamingThePath) {
  temp_dir dir;
  const std::string path = dir.file("missing_folder/a.mtx");
  try {
    write_matrix_market(path, make_csr(1, 1, {0, 1}, {0}, {5}));
    FAIL() << "no exception";
  } catch (const bad_input& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

// ---- fuzz regressions and checked-in data ----------------------------------------------------

TEST(MatrixMarketFuzzRegressions, EveryRegressionSeedAndDataFileReadsOrThrowsBadInput) {
  const fs::path root = fs::path(test::test_data_dir()).parent_path();
  int files = 0;
  for (const fs::path& folder : {root / "fuzz" / "regressions", root / "fuzz" / "corpus", root / "data"}) {
    if (!fs::is_directory(folder)) continue;
    for (const auto& e : fs::directory_iterator(folder)) {
      if (!e.is_regular_file()) continue;
      ++files;
      for (bool allow : {false, true}) {
        mm_read_options options;
        options.allow_nonfinite = allow;
        try {
          const matrix a = read_matrix_market(e.path().string(), options);
          validate_csr(a, e.path().string(), true);
        } catch (const bad_input&) {
          // a clean rejection is a pass
        } catch (const std::exception& x) {
          ADD_FAILURE() << e.path() << ": unexpected exception " << x.what();
        }
      }
    }
  }
  EXPECT_GT(files, 0);
}

// ---- the shared real matrices ----------------------------------------------------------------

/// rows, columns and full nnz of every matrix, from the table of the folder's README.md
/// (columns: name | class | rows | nnz (full) | ...).
std::map<std::string, std::pair<long long, long long>> readme_table(const std::string& dir) {
  std::map<std::string, std::pair<long long, long long>> table;
  std::ifstream in(dir + "/README.md");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, '|')) {
      const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    if (cells.size() < 5) continue;
    auto number = [](std::string t) {
      t.erase(std::remove(t.begin(), t.end(), ','), t.end());
      return t.empty() || !std::isdigit(static_cast<unsigned char>(t[0])) ? -1LL : std::stoll(t);
    };
    const long long rows = number(cells[3]), nnz = number(cells[4]);
    if (rows >= 0 && nnz >= 0) table[cells[1]] = {rows, nnz};
  }
  return table;
}

TEST(MatrixMarketSharedMatrices, EveryFileReadsWithTheRowsAndNnzOfTheReadme) {
  const auto files = test::shared_matrix_files();
  if (files.empty()) GTEST_SKIP() << "no shared matrix folder (../shared/matrices or $DISTSPMV_MATRICES)";
  const auto table = readme_table(test::shared_matrices_dir());
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    const std::string name = fs::path(path).filename().string();
    const std::string stem = name.substr(0, name.size() - 7);  // drop .mtx.gz
    matrix a;
    ASSERT_NO_THROW(a = read_matrix_market(path)) << path;
    EXPECT_NO_THROW(validate_csr(a, path));
    const mm_header h = read_matrix_market_header(path);
    EXPECT_EQ(a.rows, h.rows);
    EXPECT_EQ(a.cols, h.cols);
    const auto it = table.find(stem);
    if (it == table.end()) {
      ADD_FAILURE() << stem << " is not in the README table";
      continue;
    }
    EXPECT_EQ(a.rows, it->second.first) << stem;
    EXPECT_EQ(a.nnz(), it->second.second) << stem;
  }
}

TEST(MatrixMarketSharedMatrices, SpotChecksOfKnownMatrices) {
  const std::string dir = test::shared_matrices_dir();
  if (dir.empty()) GTEST_SKIP() << "no shared matrix folder";
  struct known {
    const char* name;
    global_index_type rows, cols;
    offset_type nnz;
    const char* symmetry;
  };
  for (const known& k : {known{"bcsstk01", 48, 48, 400, "symmetric"}, known{"pores_1", 30, 30, 180, "general"},
                         known{"lp_e226", 223, 472, 2768, "general"}}) {
    const std::string path = dir + "/" + k.name + ".mtx.gz";
    if (!fs::exists(path)) continue;
    const matrix a = read_matrix_market(path);
    EXPECT_EQ(a.rows, k.rows) << k.name;
    EXPECT_EQ(a.cols, k.cols) << k.name;
    EXPECT_EQ(a.nnz(), k.nnz) << k.name;
    EXPECT_EQ(read_matrix_market_header(path).symmetry, k.symmetry) << k.name;
  }
  // bcsstk01 is symmetric: the expanded matrix equals its transpose.
  const matrix a = read_matrix_market(dir + "/bcsstk01.mtx.gz");
  std::map<std::pair<global_index_type, global_index_type>, double> entries;
  for (global_index_type r = 0; r < a.rows; ++r)
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) entries[{r, a.col_idx[k]}] = a.values[k];
  for (const auto& [rc, v] : entries) {
    const auto mirror = entries.find({rc.second, rc.first});
    ASSERT_NE(mirror, entries.end());
    EXPECT_EQ(mirror->second, v);
  }
}

}  // namespace
}  // namespace distspmv::io
