// File-descriptor helpers (io/detail/posix_file.hpp).
#include "io/detail/posix_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

#include "common/errors.hpp"

namespace distspmv::io::detail {

std::string errno_text(int e) { return std::strerror(e); }

fd_closer::~fd_closer() {
  if (fd_ >= 0) ::close(fd_);
}

int fd_closer::release() noexcept { return std::exchange(fd_, -1); }

int create_temp_file(const std::string& path, std::string& name) {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<std::uint64_t>(rd()) << 32) ^ static_cast<std::uint64_t>(::getpid()) ^
                      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = path + ".tmp.";
    for (int i = 0; i < 6; ++i) name += digits[rng() % 36];
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) DSPMV_BAD_INPUT(path, "", "cannot create the temporary file " + name + ": " + errno_text(errno));
  }
  DSPMV_BAD_INPUT(path, "", "cannot find a free temporary file name beside it");
}

temp_file_guard::~temp_file_guard() {
  if (!committed_) std::remove(name_.c_str());
}

void temp_file_guard::replace(const std::string& path) {
  if (std::rename(name_.c_str(), path.c_str()) != 0)
    throw error(path + ": cannot rename " + name_ + " into place: " + errno_text(errno), __FILE__, __LINE__);
  committed_ = true;
}

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t put = ::write(fd, p, size);
    if (put < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += put;
    size -= static_cast<std::size_t>(put);
  }
  return true;
}

bool write_at(int fd, std::uint64_t offset, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t put = ::pwrite(fd, p + done, size - done, static_cast<off_t>(offset + done));
    if (put < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(put);
  }
  return true;
}

std::int64_t read_at(int fd, std::uint64_t offset, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, p + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return static_cast<std::int64_t>(done);
}

}  // namespace distspmv::io::detail
