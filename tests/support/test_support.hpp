// Helpers shared by the tests: where the real matrices are, deterministic random data,
// tolerances derived from a bound.
#pragma once

#include <cmath>
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

/// std::uniform_real_distribution<double>(a, b) over std::mt19937_64, number for number (what
/// libstdc++'s generate_canonical computes for a 64-bit engine). libstdc++ takes std::log of the
/// engine's range in long double on every draw: gcc folds it, clang cannot (no constant folding of
/// x87 long double), and in clang's sanitizer builds (cpu-asan, cpu-tsan) the tests spent half
/// their time in logl drawing random values.
class uniform_real {
 public:
  uniform_real(double a, double b) : a_(a), b_(b) {}
  double operator()(std::mt19937_64& rng) const {
    double r = static_cast<double>(rng()) / 18446744073709551616.0;  // 2^64
    if (r >= 1.0) r = std::nextafter(1.0, 0.0);
    return r * (b_ - a_) + a_;
  }

 private:
  double a_, b_;
};

/// n values uniform in [-1, 1), deterministic by seed.
template <typename T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  uniform_real u(-1.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(u(rng));
  return v;
}

/// Relative error ||a - b||_inf / max(||b||_inf, tiny).
double max_relative_error(const std::vector<double>& a, const std::vector<double>& b);

/// The per-row check of y = alpha A x + beta y0 against a double oracle `ref` (STYLE.md §6):
///   |y_r - ref_r| <= 2 * eps * (len_r + 2) * (sum_k |alpha a_rk x_k| + |beta y0_r|),
/// eps that of the value type the product ran in. max_violation = the largest ratio of the two
/// sides (must be <= 1) at worst_row; a NaN in y stops the check at its row.
struct bound_check {
  double max_violation = 0;
  global_index_type worst_row = -1;
  bool nan = false;
};
bound_check check_rows_against_bound(const csr_matrix<double, index_type>& a, double alpha, const std::vector<double>& x,
                                     double beta, const std::vector<double>& y0, const std::vector<double>& y,
                                     const std::vector<double>& ref, double eps);

}  // namespace distspmv::test
