// MPI halo exchange with persistent requests (MPI_Send_init / MPI_Recv_init / MPI_Startall),
// over host buffers or, with a CUDA-aware MPI, device buffers. Messages above
// max_message_elements() are split so that counts fit an int.
#pragma once

#include <vector>

#include "dist/transport/transport.hpp"

namespace distspmv::dist {

template <typename V>
class mpi_persistent_exchange {
 public:
  mpi_persistent_exchange(MPI_Comm comm, const halo_pattern& pattern, const V* send, V* recv);
  mpi_persistent_exchange(const mpi_persistent_exchange&) = delete;
  mpi_persistent_exchange& operator=(const mpi_persistent_exchange&) = delete;
  ~mpi_persistent_exchange();
  void start();
  void wait();

 private:
  std::vector<MPI_Request> requests_;
};

}  // namespace distspmv::dist
