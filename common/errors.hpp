// One exception hierarchy for the whole project (STYLE.md §4).
//
//   error                       what() is a complete sentence a user can act on
//   ├── bad_input               a file, generator spec or argument that is wrong: names the
//   │                           source, the place (line, dataset, option) and the problem
//   ├── cuda_error              a failing CUDA / cuSPARSE / NCCL call, with its text
//   ├── mpi_error               a failing MPI call, with its text
//   └── not_compiled            a backend entry point of a build that left the backend out
//
// Every error also records the source location that raised it (file:line); for the library
// failures (cuda_error, mpi_error) what() includes it and the failing call, since that is what
// one needs to debug them.
#pragma once

#include <stdexcept>
#include <string>

namespace distspmv {

/// Tag of the constructors that take a finished message (used to re-raise an error received from
/// another rank with its type intact).
struct from_message_t {};
inline constexpr from_message_t from_message{};

/// Base of every exception thrown by distspmv.
class error : public std::runtime_error {
 public:
  error(const std::string& message, const char* file, int line)
      : std::runtime_error(message), file_(file), line_(line) {}
  /// Source file of the code that raised the error.
  const char* file() const noexcept { return file_; }
  /// Source line of the code that raised the error.
  int line() const noexcept { return line_; }
  /// True when every rank of the communicator throws this same error (dist/setup/mpi_util.hpp
  /// agrees on failures), so a program may exit cleanly instead of aborting the job.
  bool collective() const noexcept { return collective_; }
  void mark_collective() noexcept { collective_ = true; }

 private:
  const char* file_;
  int line_;
  bool collective_ = false;
};

/// Bad user input: what() reads "SOURCE: WHERE: PROBLEM", e.g.
/// "A.mtx: line 17: column index 0 out of range [1, 40]".
class bad_input : public error {
 public:
  bad_input(const std::string& source, const std::string& where, const std::string& problem,
            const char* file, int line)
      : error(compose(source, where, problem), file, line), source_(source), where_(where),
        problem_(problem) {}
  const std::string& source() const noexcept { return source_; }
  const std::string& where() const noexcept { return where_; }
  const std::string& problem() const noexcept { return problem_; }

 private:
  static std::string compose(const std::string& source, const std::string& where,
                             const std::string& problem) {
    std::string s = source;
    if (!where.empty()) s += (s.empty() ? "" : ": ") + where;
    return s + (s.empty() ? "" : ": ") + problem;
  }
  std::string source_, where_, problem_;
};

/// A CUDA runtime, cuSPARSE or NCCL call failed.
class cuda_error : public error {
 public:
  cuda_error(const std::string& call, const std::string& text, const char* file, int line)
      : error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + text,
              file, line) {}
  cuda_error(from_message_t, const std::string& message, const char* file, int line) : error(message, file, line) {}
};

/// An MPI call failed.
class mpi_error : public error {
 public:
  mpi_error(const std::string& call, const std::string& text, const char* file, int line)
      : error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + text,
              file, line) {}
  mpi_error(from_message_t, const std::string& message, const char* file, int line) : error(message, file, line) {}
};

/// A backend function was called in a build that does not contain that backend.
class not_compiled : public error {
 public:
  not_compiled(const std::string& function, const std::string& backend, const char* file, int line)
      : error(function + ": distspmv was built without " + backend +
                  " (reconfigure with DISTSPMV_ENABLE_" + backend + "=ON)",
              file, line) {}
  not_compiled(from_message_t, const std::string& message, const char* file, int line) : error(message, file, line) {}
};

}  // namespace distspmv

/// Throw distspmv::bad_input naming the source (file or spec), the place and the problem.
#define DSPMV_BAD_INPUT(source, where, problem) \
  throw ::distspmv::bad_input((source), (where), (problem), __FILE__, __LINE__)

/// Check a precondition of a public entry point; the message names the function and sizes.
#define DSPMV_REQUIRE(cond, message)                                               \
  do {                                                                             \
    if (!(cond)) throw ::distspmv::error((message), __FILE__, __LINE__);           \
  } while (0)

/// Body of a backend stub in a build without that backend.
#define DSPMV_NOT_COMPILED(backend) \
  throw ::distspmv::not_compiled(__func__, backend, __FILE__, __LINE__)
