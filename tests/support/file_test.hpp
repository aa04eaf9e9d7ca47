// Helpers shared by the tests of file readers and writers: a fixture with a fresh temporary folder
// per test, and the check that a call throws one bad_input naming the file and the problem.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv::test {

/// Fixture base: dir_ is a new folder for each test (prefix-XXXXXX under the system's temporary
/// folder), removed after it.
class temp_dir_test : public ::testing::Test {
 protected:
  explicit temp_dir_test(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override { dir_ = make_temp_dir(prefix_); }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  /// dir_/name.
  std::string file(const std::string& name) const { return (std::filesystem::path(dir_) / name).string(); }

  std::string dir_;

 private:
  std::string prefix_;
};

/// Asserts that `call` throws bad_input whose message names `source` and every one of `needles`.
template <typename F>
void expect_bad_input(F&& call, const std::string& source, const std::vector<std::string>& needles) {
  try {
    call();
    ADD_FAILURE() << "no bad_input for " << source;
  } catch (const bad_input& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(source), std::string::npos) << message;
    for (const auto& n : needles) EXPECT_NE(message.find(n), std::string::npos) << "missing '" << n << "' in: " << message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected bad_input, got: " << e.what();
  }
}

}  // namespace distspmv::test
