// Helpers shared by the tests: where the real matrices are, deterministic random data,
// tolerances derived from a bound.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"

namespace distspmv::test {

/// Folder of the real matrices (../shared/matrices beside the checkout, or $DISTSPMV_MATRICES);
/// empty when absent, so that tests can GTEST_SKIP() on a user's fresh clone.
std::string shared_matrices_dir();

/// Every *.mtx.gz file of shared_matrices_dir(), sorted by name.
std::vector<std::string> shared_matrix_files();

/// Folder of tests/data (tiny .mtx files checked in).
std::string test_data_dir();

/// A fresh temporary directory, removed by the caller (or left in /tmp).
std::string make_temp_dir(const std::string& prefix);

/// n values uniform in [-1, 1), deterministic by seed.
template <typename T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(u(rng));
  return v;
}

/// Relative error ||a - b||_inf / max(||b||_inf, tiny).
double max_relative_error(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace distspmv::test
