// NCCL transport of a build without NCCL: auto never picks it; asking for it is refused earlier
// by choose_transport, so reaching this is a programming error reported as not_compiled.
#include "dist/transport/transport.hpp"

namespace distspmv::dist {

template <typename V>
std::unique_ptr<halo_transport<V>> make_nccl_transport(MPI_Comm, const halo_pattern&, const V*, V*) {
  DSPMV_NOT_COMPILED("NCCL");
}

template std::unique_ptr<halo_transport<double>> make_nccl_transport(MPI_Comm, const halo_pattern&, const double*,
                                                                     double*);
template std::unique_ptr<halo_transport<float>> make_nccl_transport(MPI_Comm, const halo_pattern&, const float*,
                                                                    float*);

}  // namespace distspmv::dist
