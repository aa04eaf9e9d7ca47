// The ELL family's GPU builders (label cuda; skipped without a GPU): ellr::build_cuda,
// pellr::build_cuda and hll::build_cuda on a device CSR give build()'s arrays on download_csr of
// it, bit for bit, its statistics and its refusals (the same where and problem), for every
// registered variant and more parameters, float and double, over the edge-case matrices and
// random ones of odd sizes.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/device_storage.hpp"
#include "local_kernels/ellr/ellr.hpp"
#include "local_kernels/hll/hll.hpp"
#include "local_kernels/pellr/pellr.hpp"
#include "tests/support/gpu_test.hpp"
#include "tests/support/test_matrices.hpp"

namespace distspmv {
namespace {

using EllFamilyBuildCuda = test::cuda_test;

void expect_stats(const format_stats& gpu, const format_stats& host) {
  EXPECT_EQ(std::tie(gpu.stored_bytes, gpu.padding_ratio, gpu.n_iter, gpu.n_p, gpu.params),
            std::tie(host.stored_bytes, host.padding_ratio, host.n_iter, host.n_p, host.params));
}

/// The bad_input `f` throws, if any.
template <typename F>
std::optional<bad_input> refusal_of(F&& f) {
  try {
    f();
  } catch (const bad_input& e) {
    return e;
  }
  return std::nullopt;
}

std::string verdict(const std::optional<bad_input>& refusal) { return refusal ? refusal->what() : "accepted"; }

template <typename V>
using upload_of = std::function<device_csr<V>(const csr_matrix<V, index_type>&)>;

/// build() on download_csr(d) and build_cuda(d), d = upload(a): both accept and `compare` gets
/// both results, or both refuse with the same where and problem (the sources name the builders).
template <typename V, typename HostBuild, typename GpuBuild, typename Compare>
void expect_same(const csr_matrix<V, index_type>& a, const upload_of<V>& upload, HostBuild&& host_build,
                 GpuBuild&& gpu_build, Compare&& compare) {
  device_csr<V> d = upload(a);
  std::optional<decltype(host_build(a))> host;
  std::optional<decltype(gpu_build(std::move(d)))> built;
  const auto host_refusal = refusal_of([&] { host.emplace(host_build(download_csr(d.view()))); });
  const auto gpu_refusal = refusal_of([&] { built.emplace(gpu_build(std::move(d))); });
  ASSERT_EQ(built.has_value(), host.has_value()) << "GPU: " << verdict(gpu_refusal) << "\nhost: " << verdict(host_refusal);
  if (host) {
    compare(*host, *built);
  } else {
    EXPECT_EQ(gpu_refusal->where(), host_refusal->where()) << gpu_refusal->what() << "\nhost: " << host_refusal->what();
    EXPECT_EQ(gpu_refusal->problem(), host_refusal->problem()) << gpu_refusal->what() << "\nhost: " << host_refusal->what();
  }
}

template <typename V>
device_csr<V> plain_upload(const csr_matrix<V, index_type>& a) {
  return upload_csr(a);
}

template <typename V>
void check_ellr(const csr_matrix<V, index_type>& a, const ellr::ellr_params& p,
                const upload_of<V>& upload = plain_upload<V>) {
  expect_same<V>(
      a, upload, [&](const csr_matrix<V, index_type>& h) { return ellr::build(h, p); },
      [&](device_csr<V>&& d) { return ellr::build_cuda(std::move(d), p); },
      [](const ellr::ellr_matrix<V>& h, const device_built<ellr::ellr_view<V>>& built) {
        const ellr::ellr_view<V>& v = built.view;
        EXPECT_EQ(v.rows, h.rows);
        EXPECT_EQ(v.cols, h.cols);
        EXPECT_EQ(v.threads_per_row, h.threads_per_row);
        EXPECT_EQ(v.stripe, h.rows_padded * h.threads_per_row);
        EXPECT_EQ(v.stored_stripes, h.width / h.threads_per_row);
        ASSERT_EQ(v.n_tail, static_cast<global_index_type>(h.tail_rows.size()));
        test::expect_bitwise(h.row_length, v.row_length, "row_length");
        EXPECT_EQ(v.col_offset != nullptr, !h.col_offset.empty()) << "16-bit column offsets on one side only";
        test::expect_bitwise(h.col_idx, v.col_idx, "col_idx");
        test::expect_bitwise(h.col_offset, v.col_offset, "col_offset");
        test::expect_bitwise(h.values, v.values, "values");
        test::expect_bitwise(h.tail_rows, v.tail_rows, "tail_rows");
        test::expect_bitwise(h.tail_ptr, v.tail_ptr, "tail_ptr");
        test::expect_bitwise(h.tail_col_idx, v.tail_col_idx, "tail_col_idx");
        test::expect_bitwise(h.tail_values, v.tail_values, "tail_values");
        expect_stats(built.stats, h.stats);
      });
}

template <typename V>
void check_pellr(const csr_matrix<V, index_type>& a,
                 const upload_of<V>& upload = plain_upload<V>) {
  expect_same<V>(
      a, upload, [](const csr_matrix<V, index_type>& h) { return pellr::build(h, pellr::pellr_params{}); },
      [](device_csr<V>&& d) { return pellr::build_cuda(std::move(d), pellr::pellr_params{}); },
      [](const pellr::pellr_matrix<V>& h, const device_built<pellr::pellr_view<V>>& built) {
        const pellr::pellr_view<V>& v = built.view;
        EXPECT_EQ(v.rows, h.rows);
        EXPECT_EQ(v.cols, h.cols);
        test::expect_bitwise(h.perm, v.perm, "perm");
        test::expect_bitwise(h.row_length, v.row_length, "row_length");
        test::expect_bitwise(h.warp_ptr, v.warp_ptr, "warp_ptr");
        test::expect_bitwise(h.col_idx, v.col_idx, "col_idx");
        test::expect_bitwise(h.values, v.values, "values");
        expect_stats(built.stats, h.stats);
      });
}

template <typename V>
void check_hll(const csr_matrix<V, index_type>& a, const hll::hll_params& p,
               const upload_of<V>& upload = plain_upload<V>) {
  expect_same<V>(
      a, upload, [&](const csr_matrix<V, index_type>& h) { return hll::build(h, p); },
      [&](device_csr<V>&& d) { return hll::build_cuda(std::move(d), p); },
      [](const hll::hll_matrix<V>& h, const device_built<hll::hll_view<V>>& built) {
        const hll::hll_view<V>& v = built.view;
        EXPECT_EQ(v.rows, h.rows);
        EXPECT_EQ(v.cols, h.cols);
        EXPECT_EQ(v.hack_size, h.hack_size);
        EXPECT_EQ(v.threads_per_row, h.params.threads_per_row);
        EXPECT_EQ(v.row_idx == nullptr, h.row_idx.empty());
        test::expect_bitwise(h.hack_offsets, v.hack_offsets, "hack_offsets");
        test::expect_bitwise(h.row_length, v.row_length, "row_length");
        test::expect_bitwise(h.col_idx, v.col_idx, "col_idx");
        test::expect_bitwise(h.values, v.values, "values");
        test::expect_bitwise(h.row_idx, v.row_idx, "row_idx");
        expect_stats(built.stats, h.stats);
      });
}

ellr::ellr_params ellr_with(int t, bool force_tail, bool column_offsets = true) {
  ellr::ellr_params p;
  p.threads_per_row = t;
  p.column_offsets = column_offsets;
  if (force_tail) {  // the tail whenever the padded width stores more entries than nnz
    p.overflow_padding_ratio = 1.0;
    p.overflow_min_entries = 0;
  }
  return p;
}

hll::hll_params hll_with(int hack_size, global_index_type sort_window, int threads_per_row = 1,
                         double max_padding_ratio = 32.0) {
  hll::hll_params p;
  p.hack_size = hack_size;
  p.sort_window = sort_window;
  p.threads_per_row = threads_per_row;
  p.max_padding_ratio = max_padding_ratio;
  return p;
}

/// The registry's variants (hll, hll-sorted, ell-g) and others: larger hacks, windows of a hack,
/// ELL-G sorted in windows that are no multiple of 32, padding limits that refuse or never do
/// (not for ELL-G: one_very_long_row would store 250000 x 200000 entries).
std::vector<std::pair<std::string, hll::hll_params>> hll_cases() {
  return {{"hll", hll_with(32, 0)},
          {"hll-sorted", hll_with(32, 1024)},
          {"ell-g", hll_with(0, 0)},
          {"H=64 W=128 T=2", hll_with(64, 128, 2)},
          {"H=32 W=32 T=4", hll_with(32, 32, 4)},
          {"ell-g W=100", hll_with(0, 100)},
          {"H=32 limit 1.5", hll_with(32, 0, 1, 1.5)},
          {"H=32 no limit", hll_with(32, 0, 1, 0.0)}};
}

template <typename V>
void check_every_format(const csr_matrix<double, index_type>& a64, const std::string& name,
                        const upload_of<V>& upload = plain_upload<V>) {
  const auto a = convert_csr<V, index_type>(a64);
  const std::string type = sizeof(V) == 4 ? " float" : " double";
  for (const int t : {0, 1, 2, 4, 8}) {
    for (const bool tail : {false, true}) {
      SCOPED_TRACE(name + type + " ellr T=" + std::to_string(t) + (tail ? " forced tail" : ""));
      check_ellr<V>(a, ellr_with(t, tail), upload);
    }
  }
  {
    SCOPED_TRACE(name + type + " ellr 32-bit columns");
    check_ellr<V>(a, ellr_with(0, false, false), upload);
  }
  {
    SCOPED_TRACE(name + type + " pellr");
    check_pellr<V>(a, upload);
  }
  for (const auto& [variant, p] : hll_cases()) {
    SCOPED_TRACE(name + type + " " + variant);
    check_hll<V>(a, p, upload);
  }
}

TEST_F(EllFamilyBuildCuda, EveryVariantMatchesTheHostBuilderBitwise) {
  for (const auto& m : test::builder_matrices()) {
    check_every_format<float>(m.a, m.name);
    check_every_format<double>(m.a, m.name);
  }
}

TEST_F(EllFamilyBuildCuda, ValuesAreCopiedBitForBit) {
  // Signed zeros, infinities, NaN and denormals (the builders accept non-finite values).
  auto a = test::random_csr(300, 200, 0, 25, 31);
  const double specials[] = {-0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(), 0.0, std::numeric_limits<double>::denorm_min()};
  for (std::size_t k = 0; k < a.values.size(); k += 3) a.values[k] = specials[(k / 3) % 6];
  check_every_format<float>(a, "special values");
  check_every_format<double>(a, "special values");
}

TEST_F(EllFamilyBuildCuda, TheTailTakesEveryRowPastTheHybWidth) {
  // Rows of 1..64 entries plus two of 3000: with the default limits ELLR keeps a HYB width and
  // puts the rest of the long rows (and of the rows above that width) in the tail.
  csr_matrix<double, index_type> a;
  a.rows = 2000;
  a.cols = 5000;
  for (global_index_type r = 0; r < a.rows; ++r) {
    const index_type len = (r == 7 || r == 1500) ? 3000 : static_cast<index_type>(1 + (r * 37) % 64);
    for (index_type k = 0; k < len; ++k) {
      a.col_idx.push_back(k);
      a.values.push_back(static_cast<double>(r) + 1e-4 * k);
    }
    a.row_ptr.push_back(static_cast<offset_type>(a.col_idx.size()));
  }
  for (const int t : {0, 1, 2, 4, 8}) {
    ellr::ellr_params p;
    p.threads_per_row = t;
    p.overflow_min_entries = 1000;
    const auto host = ellr::build(a, p);
    ASSERT_FALSE(host.tail_rows.empty()) << "the case must exercise the tail";
    SCOPED_TRACE("T=" + std::to_string(t));
    check_ellr<double>(a, p);
    check_ellr<float>(convert_csr<float, index_type>(a), p);
  }
}

TEST_F(EllFamilyBuildCuda, ColumnOffsetsAtTheirLimits) {
  // Rows reaching exactly 32767 columns right and 32768 left of their row keep 16-bit offsets;
  // one column further, on either side, and the whole ELL part keeps 32-bit columns. One long
  // row sends its entries past K to the tail, whose columns stay 32-bit whatever their span.
  const auto limits = [](index_type right, index_type left) {
    test::row_entries rows(40000);
    for (index_type r = 0; r < 40000; ++r) rows[r].push_back({r, 1.0 + r});
    rows[3].push_back({3 + right, -2.0});
    rows[39999].insert(rows[39999].begin(), {39999 - left, 0.5});
    return test::from_rows(80000, rows);
  };
  for (const auto& [right, left, fits] :
       std::vector<std::tuple<index_type, index_type, bool>>{{32767, 32768, true}, {32768, 1, false}, {1, 32769, false}}) {
    const auto a = limits(right, left);
    SCOPED_TRACE("right " + std::to_string(right) + " left " + std::to_string(left));
    for (const int t : {1, 2, 8}) {
      EXPECT_EQ(ellr::build(a, ellr_with(t, false)).col_offset.empty(), !fits);
      check_ellr<double>(a, ellr_with(t, false));
      check_ellr<float>(convert_csr<float, index_type>(a), ellr_with(t, true));
    }
  }
}

TEST_F(EllFamilyBuildCuda, RefusesInvalidMatricesAsTheHostDoes) {
  const auto good = test::random_csr(100, 50, 1, 5, 22);
  std::vector<test::named_matrix> bad;
  {
    auto a = good;
    a.col_idx[a.row_ptr[38] - 1] = 50;  // row 37's last column, one past the end
    bad.push_back({"column 50 of 50", a});
  }
  {
    auto a = good;
    a.col_idx[a.row_ptr[60]] = -1;
    bad.push_back({"negative column", a});
  }
  {
    auto a = test::random_csr(100, 50, 3, 5, 23);
    std::swap(a.col_idx[a.row_ptr[41]], a.col_idx[a.row_ptr[41] + 1]);  // row 41 unsorted
    a.col_idx[a.row_ptr[70] + 2] = a.col_idx[a.row_ptr[70] + 1];         // row 70 repeats a column
    bad.push_back({"unsorted row 41", a});
  }
  {
    auto a = test::random_csr(100, 50, 3, 5, 24);
    a.col_idx[a.row_ptr[88] + 1] = a.col_idx[a.row_ptr[88]];
    bad.push_back({"repeated column in row 88", a});
  }
  {
    auto a = good;
    std::swap(a.row_ptr[20], a.row_ptr[21]);  // decreases at row 20 (rows have at least one entry)
    bad.push_back({"row pointer decreasing", a});
  }
  for (const auto& m : bad) {
    check_every_format<float>(m.a, m.name);
    check_every_format<double>(m.a, m.name);
  }
}

TEST_F(EllFamilyBuildCuda, RefusesABadRowPointerStartOrEndAsTheHostDoes) {
  // Device blocks whose row pointer does not start at 0, or ends before or past nnz (upload_csr
  // cannot make these: it sizes the arrays from the row pointer).
  const auto a = convert_csr<double, index_type>(test::random_csr(70, 40, 1, 6, 25));
  // row_ptr[0] or row_ptr[rows] moved by `first` and `last`; nnz stays that of `a`.
  const auto moved = [](offset_type first, offset_type last) {
    return upload_of<double>(
        [first, last](const csr_matrix<double, index_type>& h) {
          device_csr<double> d = allocate_device_csr<double>(h.rows, h.cols, h.nnz());
          std::vector<offset_type> row_ptr = h.row_ptr;
          row_ptr.front() += first;
          row_ptr.back() += last;
          copy_to_device(d.row_ptr, row_ptr.data(), row_ptr.size() * sizeof(offset_type));
          copy_to_device(d.col_idx, h.col_idx.data(), h.col_idx.size() * sizeof(index_type));
          copy_to_device(d.values, h.values.data(), h.values.size() * sizeof(double));
          return d;
        });
  };
  check_every_format<double>(a, "start 1", moved(1, 0));
  check_every_format<double>(a, "end nnz - 1", moved(0, -1));
  check_every_format<double>(a, "end nnz + 1", moved(0, 1));
}

TEST_F(EllFamilyBuildCuda, RefusesBadParametersAsTheHostDoes) {
  const auto a = convert_csr<double, index_type>(test::random_csr(100, 80, 0, 9, 26));
  for (const int t : {3, 16, -7}) check_ellr<double>(a, ellr_with(t, false));  // -7: T from the mean, accepted
  check_hll<double>(a, hll_with(48, 0));
  check_hll<double>(a, hll_with(-32, 0));
  check_hll<double>(a, hll_with(32, 48));
  check_hll<double>(a, hll_with(32, -1));
  check_hll<double>(a, hll_with(32, 0, 3));
  check_hll<double>(a, hll_with(32, 0, 1, -1.0));
}

}  // namespace
}  // namespace distspmv
