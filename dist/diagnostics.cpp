#include "dist/diagnostics.hpp"

#include <unistd.h>

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
namespace {

/// Broadcast-free allgather of one string per rank.
std::vector<std::string> allgather_strings(const std::string& mine, MPI_Comm comm) {
  const auto lengths = allgather(static_cast<std::int64_t>(mine.size()), comm);
  std::vector<int> counts(lengths.begin(), lengths.end()), displs(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  std::string all(static_cast<std::size_t>(displs.back() + counts.back()), '\0');
  DSPMV_MPI_CHECK(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), counts.data(),
                                 displs.data(), MPI_CHAR, comm));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < counts.size(); ++i) out.push_back(all.substr(displs[i], counts[i]));
  return out;
}

}  // namespace

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
  collective_try(comm, [&] {
    const int n = gpu::device_count();
    if (n == 0) throw error("no CUDA device visible to this rank (use --backend host)", __FILE__, __LINE__);
    device = lr % n;
    gpu::set_device(device);
  });
  return device;
}

std::vector<rank_placement> gather_placement(MPI_Comm comm, int device) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  int local_size = 1;
  const int lr = local_rank(comm, &local_size);
  const std::string gpu_name = device >= 0 ? gpu::device_description(device) : std::string();
  const auto hosts = allgather_strings(host, comm);
  const auto gpus = allgather_strings(gpu_name, comm);
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

mpi_facts query_mpi() {
  mpi_facts f;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(version, &len);
  f.library = std::string(version, static_cast<std::size_t>(len));
  if (const auto nl = f.library.find_first_of("\r\n"); nl != std::string::npos) f.library.resize(nl);
  while (!f.library.empty() && (f.library.back() == ',' || f.library.back() == ' ')) f.library.pop_back();
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  f.cuda_aware = MPIX_Query_cuda_support() == 1;
#endif
  return f;
}

}  // namespace distspmv::dist
