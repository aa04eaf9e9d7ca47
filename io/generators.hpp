// Deterministic matrix generators that produce any row range without building the whole matrix.
//
//   gen:poisson3d:N                   7-point Laplacian on an N^3 grid (6 on the diagonal, -1)
//   gen:stencil27:N                   27-point stencil on an N^3 grid (26 on the diagonal, -1)
//   gen:rmat:SCALE:EF                 R-MAT / Graph500 (a, b, c = 0.57, 0.19, 0.19), 2^SCALE
//                                     vertices, EF * 2^SCALE directed edges, vertices randomly
//                                     relabelled, duplicates summed, random values in (0, 1]
//   gen:lognormal:ROWS:MU:SIGMA:BAND  square, row lengths round(exp(N(MU, SIGMA))) clamped to
//                                     [1, 2*BAND+1], distinct columns within BAND of the diagonal,
//                                     random values in (0, 1]
// Rows of every generator depend only on (spec, seed, row id), so a range equals the same rows
// of the whole matrix.
#pragma once

#include <cstdint>
#include <string>

#include "common/csr_matrix.hpp"

namespace distspmv::io {

/// True when `source` starts with "gen:".
bool is_generator(const std::string& source);

struct generator_info {
  global_index_type rows = 0;
  global_index_type cols = 0;
  offset_type nnz_estimate = 0;  ///< exact for the stencils, expected value for the random ones
};

/// Parses and checks the spec; bad_input naming the spec and the faulty field otherwise.
generator_info describe_generator(const std::string& spec);

/// Rows [range.begin, range.end) of the generated matrix (global column ids).
csr_matrix<double> generate_rows(const std::string& spec, row_range range, std::uint64_t seed = 1);

/// The whole generated matrix.
csr_matrix<double> generate(const std::string& spec, std::uint64_t seed = 1);

namespace detail {
/// The vertex relabelling of gen:rmat, a bijection of [0, 2^scale) evaluated per id (no table).
/// Exposed so that tests can check it is a bijection; not for other callers.
std::uint64_t rmat_relabel(std::uint64_t vertex, int scale, std::uint64_t seed);
}  // namespace detail

}  // namespace distspmv::io
