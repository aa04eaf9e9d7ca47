#include <string>

#include "common/errors.hpp"
#include "dist/distributed_matrix.hpp"

namespace distspmv {

const char* to_string(partitioner p) {
  switch (p) {
    case partitioner::metis: return "metis";
    case partitioner::block: return "block";
    case partitioner::ptscotch: return "ptscotch";
    case partitioner::lp: return "lp";
    case partitioner::automatic: return "auto";
  }
  return "?";
}

const char* to_string(transport_kind t) {
  switch (t) {
    case transport_kind::automatic: return "auto";
    case transport_kind::nccl: return "nccl";
    case transport_kind::mpi_cuda: return "mpi-cuda";
    case transport_kind::mpi_staged: return "mpi-staged";
    case transport_kind::mpi_host: return "mpi-host";
    case transport_kind::cuda_ipc: return "cuda-ipc";
    case transport_kind::peer_put: return "peer-put";
    case transport_kind::nvshmem: return "nvshmem";
  }
  return "?";
}

const char* to_string(row_order o) {
  switch (o) {
    case row_order::none: return "none";
    case row_order::degree: return "degree";
    case row_order::rcm: return "rcm";
    case row_order::automatic: return "auto";
  }
  return "?";
}

partitioner parse_partitioner(const std::string& name) {
  for (auto p : {partitioner::automatic, partitioner::metis, partitioner::ptscotch, partitioner::lp,
                 partitioner::block})
    if (name == to_string(p)) return p;
  DSPMV_BAD_INPUT("--partition", name, "unknown partitioner, expected auto, metis, ptscotch, lp or block");
}

transport_kind parse_transport(const std::string& name) {
  for (auto t : {transport_kind::automatic, transport_kind::nccl, transport_kind::peer_put, transport_kind::nvshmem,
                 transport_kind::cuda_ipc, transport_kind::mpi_cuda, transport_kind::mpi_staged, transport_kind::mpi_host})
    if (name == to_string(t)) return t;
  DSPMV_BAD_INPUT("--transport", name, "unknown transport, expected auto, nccl, peer-put, nvshmem, cuda-ipc, mpi-cuda, mpi-staged or mpi-host");
}

row_order parse_row_order(const std::string& name) {
  for (auto o : {row_order::none, row_order::degree, row_order::rcm, row_order::automatic})
    if (name == to_string(o)) return o;
  DSPMV_BAD_INPUT("--order", name, "unknown row order, expected none, degree, rcm or auto");
}

}  // namespace distspmv
