#include "dist/transport/transport.hpp"

#include "common/errors.hpp"

#include <cstdio>
#include <string>

namespace distspmv::dist {

transport_choice choose_transport(transport_kind requested, const transport_context& c) {
  const bool host = c.where == backend::host;
  auto refuse = [&](const std::string& why) {
    DSPMV_BAD_INPUT("--transport", to_string(requested), why);
  };
  switch (requested) {
    case transport_kind::automatic:
      if (host) return {transport_kind::mpi_host, "host backend: MPI on host buffers"};
      if (c.ranks == 1) return {transport_kind::mpi_staged, "one rank: no halo to exchange"};
      // One host, one GPU per rank (ipc_min_nnz_per_rank says why which). Not where ranks share a
      // GPU: there a kernel spinning on a flag, or a handshake, waits for the other process's
      // time slice (H100, 2 ranks, poisson3d:96 over cuda-ipc: apply 4485 us, 353 us staged).
      if (c.single_node && !c.gpu_shared) {
        char figures[160];
        std::snprintf(figures, sizeof figures, "%.1f M nonzeros a rank, %.1f%% of them in ghost columns",
                      c.mean_nnz_per_rank / 1e6, 100 * c.halo_fraction);
        if (c.mean_nnz_per_rank >= ipc_min_nnz_per_rank && c.halo_fraction <= ipc_max_halo_fraction)
          return {transport_kind::cuda_ipc, std::string("one host, one GPU per rank, ") + figures +
                                                ": the local SpMV hides the halo, and the copy engines move it "
                                                "without taking SMs from the SpMV (cuda-ipc)"};
        return {transport_kind::peer_put, std::string("one host, one GPU per rank, ") + figures +
                                              ": the GPUs put the halo into each other's memory, no host in the "
                                              "exchange, the apply one CUDA graph (peer-put)"};
      }
      if (c.nccl_compiled && !c.gpu_shared) return {transport_kind::nccl, "several hosts, NCCL available, one GPU per rank"};
      if (c.mpi_cuda_aware)
        return {transport_kind::mpi_cuda, c.gpu_shared ? "ranks share a GPU (NCCL refuses that); MPI is CUDA-aware"
                                                       : "built without NCCL; MPI is CUDA-aware"};
      return {transport_kind::mpi_staged,
              std::string(c.gpu_shared ? "ranks share a GPU (NCCL refuses that)" : "built without NCCL") +
                  "; MPI is not CUDA-aware: staging through pinned host memory"};
    case transport_kind::mpi_host:
      if (!host) refuse("is the host backend's transport; with --backend cuda use mpi-staged, mpi-cuda or nccl");
      return {requested, "requested"};
    case transport_kind::nccl:
      if (host) refuse("needs --backend cuda");
      if (!c.nccl_compiled) refuse("distspmv was built without NCCL");
      if (c.gpu_shared) refuse("two ranks share a GPU on one node and NCCL refuses that; use cuda-ipc or mpi-staged");
      return {requested, "requested"};
    case transport_kind::nvshmem:
      if (host) refuse("needs --backend cuda");
      if (!c.nvshmem_compiled)
        refuse("distspmv was built without NVSHMEM (configure with -DNVSHMEM_ROOT=<its prefix>; docs/design.md#transports)");
      return {requested, "requested"};
    case transport_kind::mpi_cuda:
      if (host) refuse("needs --backend cuda");
      if (!c.mpi_cuda_aware) refuse("this MPI library is not CUDA-aware (MPIX_Query_cuda_support() == 0)");
      return {requested, "requested"};
    case transport_kind::mpi_staged:
      if (host) refuse("needs --backend cuda; the host backend uses mpi-host");
      return {requested, "requested"};
    case transport_kind::peer_put:
    case transport_kind::cuda_ipc:
      if (host && !c.single_node)
        refuse("needs --backend cuda and all ranks on one host: the ranks run on several hosts and CUDA IPC "
               "reaches only the GPUs of one; the host backend uses mpi-host");
      if (host) refuse("needs --backend cuda");
      if (!c.single_node) refuse("the ranks run on several hosts and CUDA IPC reaches only one; use nccl");
      return {requested, "requested"};
  }
  return {transport_kind::mpi_host, ""};
}

template <typename V>
std::unique_ptr<halo_transport<V>> make_transport(transport_kind kind, MPI_Comm comm, const halo_pattern& pattern,
                                                  const V* send, V* recv) {
  switch (kind) {
    case transport_kind::mpi_host: return make_mpi_transport(comm, pattern, send, recv, false);
    case transport_kind::mpi_cuda: return make_mpi_transport(comm, pattern, send, recv, true);
    case transport_kind::mpi_staged: return make_staged_transport(comm, pattern, send, recv);
    case transport_kind::nccl: return make_nccl_transport(comm, pattern, send, recv);
    case transport_kind::cuda_ipc: return make_ipc_transport(comm, pattern, send, recv);
    case transport_kind::peer_put: return make_peer_put_transport(comm, pattern, recv);
    case transport_kind::nvshmem: return make_nvshmem_transport<V>(comm, pattern);
    case transport_kind::automatic: break;
  }
  throw error("make_transport: transport not chosen", __FILE__, __LINE__);
}

template std::unique_ptr<halo_transport<double>> make_transport(transport_kind, MPI_Comm, const halo_pattern&,
                                                                const double*, double*);
template std::unique_ptr<halo_transport<float>> make_transport(transport_kind, MPI_Comm, const halo_pattern&,
                                                               const float*, float*);

}  // namespace distspmv::dist
