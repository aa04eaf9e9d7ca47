// Self-diagnosis at start (issue 4): which rank runs on which host and GPU, whether ranks share
// a GPU, the MPI library and whether it is CUDA-aware. The transport choice uses these facts.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "local_kernels/local_operator.hpp"

namespace distspmv::dist {

struct rank_placement {
  int rank = 0;
  int local_rank = 0;   ///< rank among the ranks of its node (MPI_Comm_split_type shared)
  int local_ranks = 1;
  std::string host;
  int device = -1;      ///< CUDA device index, -1 on the host backend
  std::string gpu;      ///< device name and PCI bus id
};

struct mpi_facts {
  std::string library;      ///< MPI_Get_library_version, first line
  bool cuda_aware = false;  ///< MPIX_Query_cuda_support() where the library has it
};

/// Local rank of this process on its node.
int local_rank(MPI_Comm comm, int* local_size = nullptr);

/// Makes device local_rank % device_count current (one GPU per rank when there are enough) and
/// returns it. Collective. Throws on every rank when any rank sees no GPU.
int select_local_device(MPI_Comm comm);

/// The command line's --backend: auto is cuda when every rank sees a GPU, cuda needs one on every
/// rank, host is host. With cuda it also makes local_rank % GPUs current (select_local_device).
/// Collective; a bad request throws the same bad_input on every rank.
backend select_backend(const std::string& name, MPI_Comm comm);

/// Every rank's placement, on every rank. `device` is this rank's device (-1 for none).
std::vector<rank_placement> gather_placement(MPI_Comm comm, int device);

/// True when two ranks of one host use the same GPU.
bool gpu_shared(const std::vector<rank_placement>& placement);

/// The ranks (ascending) that use the same GPU as `rank`, `rank` among them; just `rank` where it
/// has no GPU (one_rank_per_gpu_at_a_time's mates).
std::vector<int> gpu_mates(const std::vector<rank_placement>& placement, int rank);

/// The number of hosts the ranks run on: the distinct host names, or more where MPI's
/// shared-memory split puts ranks of one name on several nodes (machines or containers that share
/// a host name; the multinode test's namespace hosts without their own UTS namespace).
int host_count(const std::vector<rank_placement>& placement);

/// True when every rank runs on the same host: one host name, and MPI sees one node.
bool single_host(const std::vector<rank_placement>& placement);

mpi_facts query_mpi();

}  // namespace distspmv::dist
