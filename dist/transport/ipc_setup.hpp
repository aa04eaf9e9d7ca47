// Pieces the CUDA IPC transports (cuda-ipc, peer-put) share: the setup messages that carry IPC
// handles between neighbours, and a neighbour's buffer mapped into this process. CUDA translation
// units only (cuda_runtime.h).
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "common/mpi_check.hpp"
#include "dist/watchdog.hpp"

namespace distspmv::dist {

/// Non-blocking messages of one trivially copyable record each, to and from neighbours, waited for
/// together under the watchdog (a neighbour that never answers is named after
/// DISTSPMV_HALO_TIMEOUT, not waited for). The records must stay in place until wait().
class setup_messages {
 public:
  explicit setup_messages(MPI_Comm comm) : comm_(comm) {}
  template <typename T>
  void send(const T& record, int peer, int tag) {
    DSPMV_MPI_CHECK(MPI_Isend(&record, static_cast<int>(sizeof(T)), MPI_BYTE, peer, tag, comm_, next(peer)));
  }
  template <typename T>
  void receive(T& record, int peer, int tag) {
    DSPMV_MPI_CHECK(MPI_Irecv(&record, static_cast<int>(sizeof(T)), MPI_BYTE, peer, tag, comm_, next(peer)));
  }
  /// Waits for every message posted; `transport` names the step in a timeout's message.
  void wait(const std::string& transport) {
    watchdog::wait_all(requests_, peers_, comm_, transport + " setup");
    requests_.clear();
    peers_.clear();
  }

 private:
  MPI_Request* next(int peer) {
    requests_.emplace_back();
    peers_.push_back(peer);
    return &requests_.back();
  }
  MPI_Comm comm_;
  std::vector<MPI_Request> requests_;
  std::vector<int> peers_;
};

/// A neighbour's buffer mapped into this process (cudaIpcOpenMemHandle), unmapped on destruction.
struct ipc_closer {
  void operator()(void* p) const noexcept { cudaIpcCloseMemHandle(p); }
};
using mapped_ptr = std::unique_ptr<void, ipc_closer>;

}  // namespace distspmv::dist
