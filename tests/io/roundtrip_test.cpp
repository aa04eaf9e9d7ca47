// Every real matrix of the shared folder survives Matrix Market -> HDF5 -> Matrix Market exactly:
// mtx.gz -> read_matrix_market -> write_hdf5 -> read_hdf5 -> write_matrix_market ->
// read_matrix_market gives the same shape, pattern and (bit-identical) values at each step.
// Skips with a message where ../shared/matrices is absent (a user's fresh clone).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/hdf5_io.hpp"
#include "io/matrix_market.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv::io {
namespace {

namespace fs = std::filesystem;

TEST(MatrixMarketHdf5RoundTrip, SharedMatricesAreExactlyEqual) {
  const auto files = test::shared_matrix_files();
  if (files.empty()) GTEST_SKIP() << "no shared matrices (../shared/matrices or $DISTSPMV_MATRICES)";
  const std::string dir = test::make_temp_dir("dspmv-roundtrip");
  for (const auto& file : files) {
    const std::string name = fs::path(file).filename().string();
    SCOPED_TRACE(name);
    const auto a = read_matrix_market(file);
    const std::string h5 = (fs::path(dir) / "m.h5").string(), mtx = (fs::path(dir) / "m.mtx").string();
    write_hdf5(h5, a);
    const auto b = read_hdf5(h5);
    EXPECT_TRUE(b == a) << name << ": HDF5 round trip differs";
    const auto info = read_hdf5_info(h5);
    EXPECT_EQ(info.nnz, a.nnz());
    write_matrix_market(mtx, b);
    const auto c = read_matrix_market(mtx);
    EXPECT_TRUE(c == a) << name << ": Matrix Market after HDF5 differs";
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace distspmv::io
