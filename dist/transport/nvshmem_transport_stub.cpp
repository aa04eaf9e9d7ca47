// NVSHMEM transport of a build without NVSHMEM: auto never picks it; asking for it is refused
// earlier by choose_transport, so reaching this is a programming error reported as not_compiled.
#include "dist/transport/transport.hpp"

namespace distspmv::dist {

template <typename V>
std::unique_ptr<halo_transport<V>> make_nvshmem_transport(MPI_Comm, const halo_pattern&) {
  DSPMV_NOT_COMPILED("NVSHMEM");
}

template std::unique_ptr<halo_transport<double>> make_nvshmem_transport(MPI_Comm, const halo_pattern&);
template std::unique_ptr<halo_transport<float>> make_nvshmem_transport(MPI_Comm, const halo_pattern&);

}  // namespace distspmv::dist
