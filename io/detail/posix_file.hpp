// File-descriptor helpers shared by the Matrix Market and PETSc binary readers and writers
// (internal to io/): errno's text, a temporary file beside the target that replaces it only once
// complete, and write/pread loops that survive EINTR and short counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace distspmv::io::detail {

/// strerror(e).
std::string errno_text(int e);

/// Closes a file descriptor at scope exit unless release()d.
class fd_closer {
 public:
  explicit fd_closer(int fd) noexcept : fd_(fd) {}
  fd_closer(const fd_closer&) = delete;
  fd_closer& operator=(const fd_closer&) = delete;
  ~fd_closer();
  int get() const noexcept { return fd_; }
  int release() noexcept;

 private:
  int fd_;
};

/// Creates "path.tmp.XXXXXX" with O_EXCL (mode 0666 less the umask, as for any other file the
/// user writes; mkstemp would use 0600) and returns its descriptor; `name` receives the name.
int create_temp_file(const std::string& path, std::string& name);

/// Removes a temporary file at scope exit unless replace() renamed it into place.
class temp_file_guard {
 public:
  explicit temp_file_guard(std::string name) : name_(std::move(name)) {}
  temp_file_guard(const temp_file_guard&) = delete;
  temp_file_guard& operator=(const temp_file_guard&) = delete;
  ~temp_file_guard();
  /// Renames the (closed, complete) temporary file over `path`; throws distspmv::error on failure.
  void replace(const std::string& path);

 private:
  std::string name_;
  bool committed_ = false;
};

/// Writes all `size` bytes; false (errno set) on failure.
bool write_all(int fd, const void* data, std::size_t size);

/// Writes all `size` bytes at `offset` (pwrite); false (errno set) on failure.
bool write_at(int fd, std::uint64_t offset, const void* data, std::size_t size);

/// Reads up to `size` bytes at `offset`; returns how many were read (fewer only at the end of the
/// file), or -1 with errno set.
std::int64_t read_at(int fd, std::uint64_t offset, void* data, std::size_t size);

}  // namespace distspmv::io::detail
