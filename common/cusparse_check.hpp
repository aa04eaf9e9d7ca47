// Check macro for cuSPARSE calls. Include only from CUDA translation units.
#pragma once

#include <cusparse.h>

#include "common/errors.hpp"

#define DSPMV_CUSPARSE_CHECK(call)                                                                 \
  do {                                                                                             \
    const cusparseStatus_t dspmv_st_ = (call);                                                     \
    if (dspmv_st_ != CUSPARSE_STATUS_SUCCESS)                                                      \
      throw ::distspmv::cuda_error(#call, cusparseGetErrorString(dspmv_st_), __FILE__, __LINE__); \
  } while (0)
