// Helpers shared by the GPU tests (label cuda): a fixture that skips without a GPU, a bitwise
// comparison of a device array with its host twin, and the matrices the GPU builders are checked
// on. Plain C++: no CUDA header. Header only: download_array calls copy_to_host of
// distspmv_local_kernels, which the test programs link and distspmv_test_support does not.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv::test {

/// Fixture base of the GPU tests: each test skips where no CUDA device is present (or the build
/// has no CUDA).
class cuda_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  }
};

/// `device` holds host.size() entries with the same bit patterns as `host` (values too: -0.0 and
/// NaN payloads count); a failure names the first difference. Nothing is read for an empty
/// `host`, where `device` may be null.
template <class T>
void expect_bitwise(const std::vector<T>& host, const T* device, const std::string& what) {
  const std::vector<T> gpu = host.empty() ? std::vector<T>{} : download_array(device, host.size());
  const auto same_bits = [](const T& x, const T& y) { return std::memcmp(&x, &y, sizeof(T)) == 0; };
  const auto diff = std::mismatch(host.begin(), host.end(), gpu.begin(), same_bits);
  if (diff.first != host.end())
    ADD_FAILURE() << what << "[" << (diff.first - host.begin()) << "] of " << host.size() << ": host " << *diff.first
                  << ", GPU " << *diff.second;
}

/// The matrices the GPU builders are checked on: the edge cases, and random matrices of odd sizes
/// around a warp, a hack, a slice and a sort window; rows shorter and longer than CSR's adaptive
/// stage (2048 nonzeros) and a small IPCSR stage; row counts around the 512-row block cap and the
/// tiles; windows of 256 rows with spread lengths (the automatic sigma sorts); more than 1024
/// short rows per IPCSR stage; equal lengths (a sort that moves no row). Some sizes come twice,
/// with other seeds.
inline std::vector<named_matrix> builder_matrices() {
  std::vector<named_matrix> all = edge_case_matrices();
  all.push_back({"random_1x1", random_csr(1, 1, 0, 1, 11)});
  all.push_back({"random_31x40", random_csr(31, 40, 0, 9, 12)});
  all.push_back({"random_33x17", random_csr(33, 17, 0, 17, 12)});
  all.push_back({"random_33x17_seed13", random_csr(33, 17, 0, 17, 13)});
  all.push_back({"random_65x65", random_csr(65, 65, 2, 3, 14)});
  all.push_back({"random_300x300_equal_lengths", random_csr(300, 300, 5, 5, 17)});
  all.push_back({"random_1001x999_spread", random_csr(1001, 999, 0, 300, 15)});
  all.push_back({"random_1025x777", random_csr(1025, 777, 0, 60, 15)});
  all.push_back({"random_4097x3001", random_csr(4097, 3001, 0, 40, 13)});
  all.push_back({"random_4097x3001_seed16", random_csr(4097, 3001, 0, 40, 16)});
  all.push_back({"random_513x5003_long_rows", random_csr(513, 5003, 1500, 4000, 14)});
  all.push_back({"random_513x5003_long_rows_seed17", random_csr(513, 5003, 1500, 4000, 17)});
  all.push_back({"random_2049x100003", random_csr(2049, 100003, 0, 700, 15)});
  all.push_back({"random_70001x51_short", random_csr(70001, 51, 0, 3, 16)});
  return all;
}

}  // namespace distspmv::test
