// Check macro for MPI calls. Our communicators use MPI_ERRORS_RETURN so that codes come back.
#pragma once

#include <mpi.h>

#include <string>

#include "common/errors.hpp"

namespace distspmv::detail {
inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, len);
}
}  // namespace distspmv::detail

#define DSPMV_MPI_CHECK(call)                                                                        \
  do {                                                                                               \
    const int dspmv_rc_ = (call);                                                                    \
    if (dspmv_rc_ != MPI_SUCCESS)                                                                    \
      throw ::distspmv::mpi_error(#call, ::distspmv::detail::mpi_error_text(dspmv_rc_), __FILE__, __LINE__); \
  } while (0)
