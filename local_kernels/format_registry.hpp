// The only place that maps a format name and a backend to code (STYLE.md §3).
//
// Names are those of the command line (DESIGN.md §8) plus concrete variants:
//   csr (adaptive), csr-scalar, csr-vector, csr-merge, ellr (T picked), ellr-t1/t2/t4/t8, pellr,
//   hll, ell-g, hdia, ipcsr, sell, panel, cusparse (CSR default), cusparse-alg1, cusparse-alg2, cusparse-sell
// "auto" asks the selector (format_selector.hpp); "all" is what format_names() lists.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/csr_matrix.hpp"
#include "local_kernels/device_csr.hpp"
#include "local_kernels/format_selector.hpp"
#include "local_kernels/local_operator.hpp"

namespace distspmv {

/// What a build may be asked beyond the format's own parameters.
struct build_options {
  /// Mixed precision (`--precision mixed`, in double): formats that can store their values in float
  /// do so and multiply in double (the CSR family: csr_params::float_values; their stats().params
  /// then say "float-values"); the others keep double values.
  bool float_values = false;
};

/// One registered format variant.
struct format_info {
  std::string name;
  std::string family;       ///< e.g. "csr", "ell", "cusparse"
  bool host = true;         ///< has a host SpMV
  bool cuda = true;         ///< has a CUDA SpMV
  std::string description;  ///< one line for --help
  bool gpu_build = false;   ///< has a GPU builder (built from a device CSR without a host copy)
};

/// Every variant, in the order `--format all` runs them.
const std::vector<format_info>& registered_formats();

/// Looks a name up; bad_input listing the valid names when unknown.
const format_info& find_format(const std::string& name);

/// Bytes the build of `name` needs beyond the CSR block it starts from (new arrays and scratch),
/// estimated from the block's statistics, an upper bound within the estimate's accuracy (the out
/// of memory check before a build; DESIGN.md §11). The CSR formats built on the GPU take the
/// block's arrays over and need almost nothing more.
std::size_t estimate_build_bytes(const std::string& name, const row_statistics& s);

/// Builds `name` from a local CSR block for backend `where` (uploading for CUDA). The input is
/// never changed. Throws bad_input for an unknown name or a backend the format lacks.
template <typename ValueType>
std::unique_ptr<local_operator<ValueType>> make_operator(const std::string& name,
                                                         const csr_matrix<ValueType, index_type>& a,
                                                         backend where, const build_options& options = {});

/// The same, consuming `a`: the host CSR formats take its arrays over (no second copy of the
/// block); on the CUDA backend the block is uploaded and freed before the GPU build.
template <typename ValueType>
std::unique_ptr<local_operator<ValueType>> make_operator(const std::string& name,
                                                         csr_matrix<ValueType, index_type>&& a, backend where,
                                                         const build_options& options = {});

/// Builds `name` for the CUDA backend from a device CSR block, consuming it (DESIGN.md §11).
/// Formats with a GPU builder (format_info::gpu_build) never copy the matrix to the host; the
/// others are built on the host from a downloaded copy and uploaded, and their stats().params
/// say "built on the host".
template <typename ValueType>
std::unique_ptr<local_operator<ValueType>> make_operator(const std::string& name, device_csr<ValueType>&& a,
                                                         const build_options& options = {});

}  // namespace distspmv
