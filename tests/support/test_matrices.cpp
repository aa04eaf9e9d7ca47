#include "tests/support/test_matrices.hpp"
#include "tests/support/test_support.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace distspmv::test {

csr_matrix<double, index_type> from_lengths(global_index_type cols, const std::vector<global_index_type>& lengths,
                                            std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  uniform_real value(-1.0, 1.0);
  csr_matrix<double, index_type> a;
  a.rows = static_cast<global_index_type>(lengths.size());
  a.cols = cols;
  a.row_ptr.assign(1, 0);
  std::vector<index_type> row;
  for (global_index_type len : lengths) {
    len = std::min(len, cols);
    row.clear();
    if (len * 2 > cols) {  // dense-ish: choose by selection sampling
      for (global_index_type c = 0, need = len; c < cols && need > 0; ++c)
        if (std::uniform_int_distribution<global_index_type>(0, cols - c - 1)(rng) < need) {
          row.push_back(static_cast<index_type>(c));
          --need;
        }
    } else {
      std::uniform_int_distribution<global_index_type> col(0, cols - 1);
      while (static_cast<global_index_type>(row.size()) < len) {
        row.push_back(static_cast<index_type>(col(rng)));
        if (static_cast<global_index_type>(row.size()) == len) {
          std::sort(row.begin(), row.end());
          row.erase(std::unique(row.begin(), row.end()), row.end());
        }
      }
    }
    std::sort(row.begin(), row.end());
    for (index_type c : row) {
      a.col_idx.push_back(c);
      a.values.push_back(value(rng));
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

csr_matrix<double, index_type> from_rows(global_index_type cols, const row_entries& rows) {
  csr_matrix<double, index_type> a;
  a.rows = static_cast<global_index_type>(rows.size());
  a.cols = cols;
  for (const auto& row : rows) {
    for (const auto& [c, v] : row) {
      a.col_idx.push_back(c);
      a.values.push_back(v);
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  return a;
}

csr_matrix<double, index_type> random_csr(global_index_type rows, global_index_type cols, int min_len, int max_len,
                                          std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::uniform_int_distribution<int> len(min_len, max_len);
  std::vector<global_index_type> lengths(rows);
  for (auto& l : lengths) l = len(rng);
  return from_lengths(cols, lengths, seed);
}

csr_matrix<double, index_type> spilling_rows(global_index_type rows, global_index_type cols, std::uint64_t seed) {
  std::vector<global_index_type> lengths(static_cast<std::size_t>(rows));
  for (global_index_type r = 0; r < rows; ++r) lengths[r] = r % 997 == 0 ? 400 : r % 150 == 0 ? 60 + r % 40 : 3 + r % 5;
  return from_lengths(cols, lengths, seed);
}

std::vector<named_matrix> edge_case_matrices() {
  std::vector<named_matrix> m;
  m.push_back({"zero_rows", random_csr(0, 0, 0, 0, 1)});
  m.push_back({"zero_rows_five_cols", random_csr(0, 5, 0, 0, 2)});
  m.push_back({"all_rows_empty", random_csr(77, 50, 0, 0, 3)});
  m.push_back({"single_entry", random_csr(1, 1, 1, 1, 4)});
  m.push_back({"odd_999", random_csr(999, 999, 1, 12, 5)});
  m.push_back({"odd_1001_rect", random_csr(1001, 1500, 0, 40, 6)});
  m.push_back({"odd_50007", random_csr(50007, 50007, 3, 9, 7)});
  m.push_back({"many_empty_rows", random_csr(4000, 3000, 0, 1, 8)});
  {
    std::vector<global_index_type> lengths(3000, 5);
    lengths[1234] = 200000;  // longer than any shared-memory stage
    m.push_back({"one_very_long_row", from_lengths(250000, lengths, 9)});
  }
  // x gathered from far apart: the CSR builder streams the matrix past L2 (csr.hpp, stream_matrix)
  m.push_back({"wide_random", random_csr(2000, 600000, 1, 30, 15)});
  {
    std::vector<global_index_type> lengths(513, 0);
    lengths[0] = 513;
    m.push_back({"single_dense_row", from_lengths(513, lengths, 10)});
  }
  {
    // a dense column: every row holds column 7 plus a few others
    auto a = random_csr(2049, 2049, 0, 3, 11);
    csr_matrix<double, index_type> b;
    b.rows = a.rows;
    b.cols = a.cols;
    for (global_index_type r = 0; r < a.rows; ++r) {
      bool has7 = false;
      for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        if (!has7 && a.col_idx[k] > 7) {
          b.col_idx.push_back(7);
          b.values.push_back(0.5);
          has7 = true;
        }
        if (a.col_idx[k] == 7) has7 = true;
        b.col_idx.push_back(a.col_idx[k]);
        b.values.push_back(a.values[k]);
      }
      if (!has7) {
        b.col_idx.push_back(7);
        b.values.push_back(0.5);
      }
      b.row_ptr.push_back(static_cast<offset_type>(b.col_idx.size()));
    }
    m.push_back({"single_dense_column", b});
  }
  {
    // power-law row lengths (Zipf-like), as graphs have
    std::mt19937_64 rng(12);
    uniform_real u(0.0, 1.0);
    std::vector<global_index_type> lengths(20000);
    for (auto& l : lengths) l = static_cast<global_index_type>(std::min(5000.0, std::floor(1.0 / std::pow(u(rng) + 1e-9, 0.8))));
    m.push_back({"power_law", from_lengths(20000, lengths, 13)});
    // the same rows with every value 1 (a graph's adjacency matrix: CSR stores no values)
    auto pattern = from_lengths(20000, lengths, 13);
    std::fill(pattern.values.begin(), pattern.values.end(), 1.0);
    m.push_back({"pattern_power_law", pattern});
  }
  {
    // banded: tridiagonal plus two far diagonals (few diagonals: HDIA's case)
    csr_matrix<double, index_type> b;
    b.rows = b.cols = 10007;
    for (global_index_type r = 0; r < b.rows; ++r) {
      for (global_index_type off : {-300, -1, 0, 1, 300}) {
        const global_index_type c = r + off;
        if (c >= 0 && c < b.cols) {
          b.col_idx.push_back(static_cast<index_type>(c));
          b.values.push_back(off == 0 ? 4.0 : -1.0 + 0.001 * static_cast<double>(r % 7));
        }
      }
      b.row_ptr.push_back(static_cast<offset_type>(b.col_idx.size()));
    }
    m.push_back({"banded_five_diagonals", b});
  }
  {
    std::vector<global_index_type> lengths(33, 1);
    auto d = from_lengths(33, lengths, 14);
    for (global_index_type r = 0; r < 33; ++r) d.col_idx[r] = static_cast<index_type>(r);
    m.push_back({"diagonal_33", d});
  }
  return m;
}

csr_matrix<double, index_type> stencil27_part(int n) {
  const auto id = [n](int x, int y, int z) { return (static_cast<global_index_type>(z) * n + y) * n + x; };
  const auto kept = [n](int x, int y, int z) { return x < n / 2 + 3 * ((y / 8 + z / 8) % 3) - 3; };
  std::vector<index_type> new_id(static_cast<std::size_t>(n) * n * n, -1);
  index_type next = 0;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        if (kept(x, y, z)) new_id[id(x, y, z)] = next++;
  row_entries rows(static_cast<std::size_t>(next));
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const index_type r = new_id[id(x, y, z)];
        if (r < 0) continue;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || Y < 0 || Z < 0 || X >= n || Y >= n || Z >= n) continue;
              const index_type c = new_id[id(X, Y, Z)];
              if (c >= 0) rows[r].push_back({c, dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0 - 0.01 * (r % 7)});
            }
      }
  return from_rows(next, rows);
}

csr_matrix<double> randomly_relabelled(const csr_matrix<double>& a, std::uint64_t seed) {
  std::vector<global_index_type> perm(a.rows);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
  std::vector<global_index_type> inv(a.rows);
  for (global_index_type i = 0; i < a.rows; ++i) inv[perm[i]] = i;
  csr_matrix<double> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr.assign(1, 0);
  std::vector<std::pair<global_index_type, double>> row;
  for (global_index_type nr = 0; nr < a.rows; ++nr) {
    const global_index_type r = perm[nr];
    row.clear();
    for (offset_type k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) row.push_back({inv[a.col_idx[k]], a.values[k]});
    std::sort(row.begin(), row.end());
    for (auto& [c, v] : row) {
      b.col_idx.push_back(c);
      b.values.push_back(v);
    }
    b.row_ptr.push_back(static_cast<offset_type>(b.col_idx.size()));
  }
  return b;
}

}  // namespace distspmv::test
