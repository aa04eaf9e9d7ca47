// RAII owners for HDF5 identifiers, HDF5's error text and our file access properties (internal
// to io/ and its tests; includes hdf5.h).
//
// Every hid_t we open is owned by exactly one h5_handle, so an exception thrown half way through
// a read or a write still closes the datasets, spaces, types and the file; HDF5's default
// "weak" file close would otherwise keep the file open while any object in it stays open.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

namespace distspmv::io::detail {

/// Owns one HDF5 identifier and closes it with CloseFunction.
/// @tparam CloseFunction  H5Fclose, H5Gclose, H5Dclose, H5Sclose, H5Tclose, H5Aclose, H5Pclose
///                        or H5Oclose: the function matching the kind of identifier.
template <herr_t (*CloseFunction)(hid_t)>
class h5_handle {
 public:
  h5_handle() = default;
  /// Takes ownership of `id` (a negative id, HDF5's failure value, owns nothing).
  explicit h5_handle(hid_t id) noexcept : id_(id) {}
  h5_handle(const h5_handle&) = delete;
  h5_handle& operator=(const h5_handle&) = delete;
  h5_handle(h5_handle&& other) noexcept : id_(std::exchange(other.id_, -1)) {}
  h5_handle& operator=(h5_handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, -1);
    }
    return *this;
  }
  ~h5_handle() { reset(); }

  hid_t get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }

  /// Closes now; returns false when HDF5 reports a failure (a file close that could not flush).
  bool close() noexcept {
    if (id_ < 0) return true;
    const herr_t status = CloseFunction(std::exchange(id_, -1));
    return status >= 0;
  }

 private:
  // Destructors never throw (STYLE.md §4). A failing close here only leaks an id of a file
  // that is already failing (the explicit close() path reports errors), so it is not fatal.
  void reset() noexcept { close(); }

  hid_t id_ = -1;
};

using h5_file = h5_handle<H5Fclose>;
using h5_group = h5_handle<H5Gclose>;
using h5_dataset = h5_handle<H5Dclose>;
using h5_space = h5_handle<H5Sclose>;
using h5_type = h5_handle<H5Tclose>;
using h5_attribute = h5_handle<H5Aclose>;
using h5_plist = h5_handle<H5Pclose>;
using h5_object = h5_handle<H5Oclose>;

/// Turns off HDF5's printing of its error stack to stderr for this process: failures become
/// our exceptions, which name the file and dataset. Cheap; call at every entry point.
inline void silence_hdf5_errors() noexcept { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

inline herr_t keep_innermost_error(unsigned, const H5E_error2_t* e, void* data) {
  if (e != nullptr && e->desc != nullptr && e->desc[0] != '\0') *static_cast<std::string*>(data) = e->desc;
  return 0;
}

/// The innermost message of HDF5's error stack (walking down from the API call, the last entry is
/// where the failure was detected, e.g. "truncated file: eof = ..."), then clears the stack.
inline std::string hdf5_error_text() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, keep_innermost_error, &text);
  H5Eclear2(H5E_DEFAULT);
  return text.empty() ? std::string("HDF5 gave no detail") : text;
}

/// File access properties for reading and writing our files.
inline h5_plist file_access_list() {
  h5_plist fapl(H5Pcreate(H5P_FILE_ACCESS));
#if H5_VERSION_GE(1, 10, 7)
  // Keep HDF5's file locking, but do not fail on file systems without flock (some Lustre and NFS
  // mounts), where HDF5 1.10 otherwise refuses to open any file.
  if (fapl) H5Pset_file_locking(fapl.get(), true, true);
#endif
  return fapl;
}

}  // namespace distspmv::io::detail
