#include "tests/support/test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "distspmv/config.hpp"

namespace distspmv::test {
namespace fs = std::filesystem;

std::string shared_matrices_dir() {
  if (const char* env = std::getenv("DISTSPMV_MATRICES"); env && fs::is_directory(env)) return env;
  const fs::path candidate = fs::path(DISTSPMV_SOURCE_DIR) / ".." / "shared" / "matrices";
  if (fs::is_directory(candidate)) return fs::canonical(candidate).string();
  return {};
}

std::vector<std::string> shared_matrix_files() {
  std::vector<std::string> files;
  const std::string dir = shared_matrices_dir();
  if (dir.empty()) return files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".mtx.gz") == 0) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string test_data_dir() { return (fs::path(DISTSPMV_SOURCE_DIR) / "tests" / "data").string(); }

std::string make_temp_dir(const std::string& prefix) {
  std::string templ = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
  return templ;
}

double max_relative_error(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double diff = 0, ref = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) != std::isnan(b[i])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::abs(a[i] - b[i]));
    ref = std::max(ref, std::abs(b[i]));
  }
  return diff / std::max(ref, std::numeric_limits<double>::min());
}

bound_check check_rows_against_bound(const csr_matrix<double, index_type>& a, double alpha, const std::vector<double>& x,
                                     double beta, const std::vector<double>& y0, const std::vector<double>& y,
                                     const std::vector<double>& ref, double eps) {
  bound_check res;
  for (global_index_type r = 0; r < a.rows; ++r) {
    if (std::isnan(y[r])) {
      res.nan = true;
      res.worst_row = r;
      return res;
    }
    double mag = std::abs(beta * y0[r]);
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) mag += std::abs(alpha * a.values[k] * x[a.col_idx[k]]);
    const double bound = 2.0 * eps * static_cast<double>(a.row_length(r) + 2) * mag + std::numeric_limits<double>::min();
    const double violation = std::abs(y[r] - ref[r]) / bound;
    if (violation > res.max_violation) {
      res.max_violation = violation;
      res.worst_row = r;
    }
  }
  return res;
}

}  // namespace distspmv::test
