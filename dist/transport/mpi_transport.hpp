// MPI halo exchange with persistent requests (MPI_Send_init / MPI_Recv_init / MPI_Startall),
// over host buffers or, with a CUDA-aware MPI, device buffers. Messages above
// max_message_elements() are split so that counts fit an int. The wait is the watchdog's
// (dist/watchdog.hpp): a neighbour that never sends ends the job with its rank named.
#pragma once

#include <string>
#include <vector>

#include "dist/transport/transport.hpp"

namespace distspmv::dist {

template <typename V>
class mpi_persistent_exchange {
 public:
  /// `kind`: the transport it serves, as the watchdog names it.
  mpi_persistent_exchange(MPI_Comm comm, const halo_pattern& pattern, const V* send, V* recv, transport_kind kind);
  mpi_persistent_exchange(const mpi_persistent_exchange&) = delete;
  mpi_persistent_exchange& operator=(const mpi_persistent_exchange&) = delete;
  ~mpi_persistent_exchange();
  void start();
  void wait();

 private:
  MPI_Comm comm_;
  std::string name_;
  std::vector<MPI_Request> requests_;
  std::vector<int> peers_;  ///< the rank at the other end of each request
};

}  // namespace distspmv::dist
