// Compiled instead of vector_ops.cu when CUDA is off: every device vector kernel exists and throws
// not_compiled naming itself, so the solvers build unchanged (DESIGN.md §3).
#include "common/errors.hpp"
#include "dist/solvers/vector_kernels.hpp"

namespace distspmv::solvers::kernels::cuda {

void fill(std::int64_t, double, double*, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
void copy(std::int64_t, const double*, double*, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
void axpby(std::int64_t, double, const double*, double, double*, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
void scale(std::int64_t, double, double*, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
void multiply(std::int64_t, const double*, const double*, double*, cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }
void cg_update(std::int64_t, double, const double*, const double*, const double*, double*, double*, double*, double*,
               const device_scratch&, cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
void dots(std::int64_t, int, const double*, std::int64_t, const double*, bool, double*, const device_scratch&,
          cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
void combine(std::int64_t, int, const double*, std::int64_t, const double*, double*, const device_scratch&,
             cuda_stream_t) {
  DSPMV_NOT_COMPILED("CUDA");
}
void synchronize(cuda_stream_t) { DSPMV_NOT_COMPILED("CUDA"); }

}  // namespace distspmv::solvers::kernels::cuda
