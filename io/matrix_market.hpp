// Matrix Market (.mtx, .mtx.gz) reader and writer.
//
// Reads `matrix coordinate real|integer|pattern general|symmetric|skew-symmetric`; symmetric
// and skew-symmetric files are expanded to full storage, 1-based indices become 0-based,
// duplicates are summed, columns sorted within rows, `pattern` entries get the value 1.0.
// Comments (%) and blank lines may stand anywhere after the banner. Complex and Hermitian files
// and dense `array` files are rejected with a clear error. Every error is a bad_input naming the
// file, the line and the problem. The text is streamed (gzip inflated on the fly) in bounded
// windows, so memory grows with the entries, not the text: a line may be at most 1 MiB, leading
// blanks aside (a longer one is bad input naming it), except comment lines, which are skipped
// without being stored and may be any length.
#pragma once

#include <string>

#include "common/csr_matrix.hpp"

namespace distspmv::io {

struct mm_read_options {
  /// Accept NaN and Inf values (rejected by default).
  bool allow_nonfinite = false;
};

/// What the banner and size line say.
struct mm_header {
  std::string field;     ///< real, integer or pattern
  std::string symmetry;  ///< general, symmetric or skew-symmetric
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type entries = 0;  ///< entries stored in the file (one triangle for symmetric)
};

/// Reads the banner and size line only.
mm_header read_matrix_market_header(const std::string& path);

/// Reads the whole matrix (plain or gzip, told by the magic bytes, not the name).
csr_matrix<double> read_matrix_market(const std::string& path, const mm_read_options& options = {});

/// Writes `general` coordinate real (or pattern when `pattern` is true), 1-based, 17 significant
/// digits so that doubles round-trip exactly. A path ending in .gz is gzip-compressed. The file is
/// written under a temporary name and renamed at the end: a failure leaves no partial file.
void write_matrix_market(const std::string& path, const csr_matrix<double>& a, bool pattern = false);

}  // namespace distspmv::io
