#include "dist/diagnostics.hpp"

#include <unistd.h>

#include <algorithm>
#include <set>
#include <utility>

#include "common/errors.hpp"
#include "dist/gpu.hpp"
#include "dist/setup/mpi_util.hpp"

// Open MPI declares MPIX_Query_cuda_support in mpi-ext.h. This is platform detection, kept here.
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace distspmv::dist {
int local_rank(MPI_Comm comm, int* local_size) {
  MPI_Comm node = MPI_COMM_NULL;
  DSPMV_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  const int r = comm_rank(node);
  if (local_size) *local_size = comm_size(node);
  MPI_Comm_free(&node);
  return r;
}

int select_local_device(MPI_Comm comm) {
  int device = -1;
  const int lr = local_rank(comm);
  collective_try(comm, "backend", [&] {
    const int n = gpu::device_count();
    if (n == 0) throw error("no CUDA device visible to this rank (use --backend host)", __FILE__, __LINE__);
    device = lr % n;
    gpu::set_device(device);
  });
  return device;
}

backend select_backend(const std::string& name, MPI_Comm comm) {
  int gpus = gpu::device_count();
  DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &gpus, 1, MPI_INT, MPI_MIN, comm));
  backend where = backend::host;
  collective_try(comm, "backend", [&] {
    if (name != "auto" && name != "cuda" && name != "host")
      DSPMV_BAD_INPUT("--backend", name, "expected auto, cuda or host");
    if (name == "cuda" && gpus == 0)
      DSPMV_BAD_INPUT("--backend", "cuda", "a rank sees no CUDA device (or distspmv was built without CUDA)");
    where = name == "cuda" || (name == "auto" && gpus > 0) ? backend::cuda : backend::host;
  });
  if (where == backend::cuda) select_local_device(comm);
  return where;
}

std::vector<rank_placement> gather_placement(MPI_Comm comm, int device) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  int local_size = 1;
  const int lr = local_rank(comm, &local_size);
  const std::string gpu_name = device >= 0 ? gpu::device_description(device) : std::string();
  const auto hosts = allgather(std::string(host), comm);
  const auto gpus = allgather(gpu_name, comm);
  const auto devices = allgather(device, comm);
  const auto locals = allgather(lr, comm);
  const auto local_sizes = allgather(local_size, comm);
  std::vector<rank_placement> out(hosts.size());
  for (std::size_t r = 0; r < out.size(); ++r)
    out[r] = {static_cast<int>(r), static_cast<int>(locals[r]), static_cast<int>(local_sizes[r]), hosts[r],
              static_cast<int>(devices[r]), gpus[r]};
  return out;
}

bool gpu_shared(const std::vector<rank_placement>& placement) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& p : placement)
    if (p.device >= 0 && !seen.insert({p.host, p.gpu}).second) return true;
  return false;
}

std::vector<int> gpu_mates(const std::vector<rank_placement>& placement, int rank) {
  const auto& me = placement.at(static_cast<std::size_t>(rank));
  if (me.device < 0) return {rank};
  std::vector<int> mates;
  for (const auto& p : placement)
    if (p.device >= 0 && p.host == me.host && p.gpu == me.gpu) mates.push_back(p.rank);
  return mates;
}

int host_count(const std::vector<rank_placement>& placement) {
  std::set<std::string> names;
  int nodes = 0;  // MPI_COMM_TYPE_SHARED: each node has one local rank 0
  for (const auto& p : placement) {
    names.insert(p.host);
    if (p.local_rank == 0) ++nodes;
  }
  return std::max(static_cast<int>(names.size()), nodes);
}

// Not the host names alone: two nodes of one name would pass, and auto would pick CUDA IPC across
// them (the handles fail to open on the other node).
bool single_host(const std::vector<rank_placement>& placement) { return host_count(placement) <= 1; }

mpi_facts query_mpi() {
  mpi_facts f;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(version, &len);
  f.library = std::string(version, static_cast<std::size_t>(len));
  // The first line; Open MPI 4.1 counts the string's terminating NUL in len (it reached the logs).
  if (const auto end = f.library.find_first_of(std::string("\r\n\0", 3)); end != std::string::npos)
    f.library.resize(end);
  while (!f.library.empty() && (f.library.back() == ',' || f.library.back() == ' ')) f.library.pop_back();
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  f.cuda_aware = MPIX_Query_cuda_support() == 1;
#endif
  return f;
}

}  // namespace distspmv::dist
