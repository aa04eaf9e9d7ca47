// setup_report (report.hpp): the facts a set-up matrix knows, gathered over its ranks.
#include "dist/report.hpp"

#include <algorithm>
#include <vector>

#include "dist/setup/mpi_util.hpp"
#include "distspmv/config.hpp"

namespace distspmv {

namespace {

/// {min, median, max} over the ranks of one value per rank.
nlohmann::json over_ranks(double mine, MPI_Comm comm) {
  std::vector<double> all(static_cast<std::size_t>(dist::comm_size(comm)));
  DSPMV_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm));
  std::sort(all.begin(), all.end());
  const std::size_t n = all.size();
  const double median = n % 2 ? all[n / 2] : 0.5 * (all[n / 2 - 1] + all[n / 2]);
  return {{"min", all.front()}, {"median", median}, {"max", all.back()}};
}

}  // namespace

template <typename V>
nlohmann::json setup_report(const distributed_matrix<V>& m, const std::string& source, const std::string& precision) {
  const MPI_Comm comm = m.comm();
  const int ranks = m.ranks();
  const bool cuda = m.where() == backend::cuda;
  const auto& s = m.summary();
  const auto& q = m.partition_quality();
  const auto& st = m.setup_seconds();
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  const auto bytes = static_cast<offset_type>(sizeof(V));

  nlohmann::json j;
  j["tool"] = "distspmv";
  j["version"] = DISTSPMV_VERSION;
  j["git_revision"] = DISTSPMV_GIT_REVISION;
  j["matrix"] = {{"source", source}, {"rows", m.global_rows()}, {"nnz", m.global_nnz()}};
  j["ranks"] = ranks;
  j["backend"] = to_string(m.where());
  j["precision"] = precision;
  j["transport"] = ranks == 1 ? "none" : to_string(m.transport());
  j["transport_reason"] = m.transport_reason();
  j["partition"] = q.method;
  j["partition_reason"] = q.reason;
  j["block_halo_ratio"] = q.block_halo_ratio;
  j["edge_cut"] = q.edge_cut;
  j["halo_entries_total"] = q.halo_entries_total;
  j["halo_bytes_total"] = q.halo_entries_total * bytes;
  j["halo_bytes_max"] = q.halo_entries_max * bytes;
  j["nnz_imbalance"] = q.nnz_imbalance;
  j["order"] = q.order;
  j["order_reason"] = q.order_reason;
  // "on" where every rank runs its applies as graphs, else the first rank's reason why not.
  std::string graphs = "on";
  for (const auto& g : dist::allgather(m.cuda_graphs(), comm))
    if (g != "on") {
      graphs = g;
      break;
    }
  j["cuda_graphs"] = graphs;

  const double total_max = dist::allreduce_max(st.total(), comm);
  j["setup_seconds"] = {{"read", st.read}, {"partition", st.partition}, {"redistribute", st.redistribute},
                        {"order", st.order}, {"build", st.build}, {"total_max_over_ranks", total_max},
                        {"read_wait", st.read_wait}, {"upload", st.upload}, {"split", st.split},
                        {"halo_plan", st.halo_plan}, {"halo_operator", st.halo_operator}};
  j["setup_on_gpu"] = st.on_gpu;
  j["setup_nnz_per_second"] = static_cast<double>(m.global_nnz()) / std::max(1e-9, total_max);
  j["host_peak_gib"] = over_ranks(static_cast<double>(st.host_peak_bytes) / gib, comm);
  j["host_peak_bytes_per_nnz"] = j["host_peak_gib"]["max"].get<double>() * gib /
                                 std::max(1.0, static_cast<double>(m.global_nnz()) / ranks);
  const auto gpu_peak = over_ranks(static_cast<double>(st.gpu_peak_bytes) / gib, comm);
  const auto gpu_held = over_ranks(static_cast<double>(st.gpu_held_bytes) / gib, comm);
  if (cuda) {
    const double gpu_total = static_cast<double>(st.gpu_total_bytes) / gib;
    j["gpu_setup_peak_gib"] = gpu_peak;
    j["gpu_held_gib"] = gpu_held;
    j["gpu_total_gib"] = gpu_total;
    j["gpu_fill"] = gpu_held["max"].get<double>() / std::max(1e-9, gpu_total);
  }
  j["mpi_library"] = m.mpi().library;
  j["mpi_cuda_aware"] = m.mpi().cuda_aware;
  j["hosts"] = dist::host_count(m.placement());
  j["gpu_shared"] = dist::gpu_shared(m.placement());
  j["gpu"] = cuda ? m.placement().front().gpu : "host";

  // Per rank: the numbers in one gather, the strings in one each.
  const auto rows = dist::allgather(s.rows, comm), nnz = dist::allgather(s.nnz, comm),
             interior = dist::allgather(s.interior_rows, comm), boundary = dist::allgather(s.boundary_rows, comm),
             ghosts = dist::allgather(s.ghosts, comm), sends = dist::allgather(s.sends, comm),
             neighbours = dist::allgather(static_cast<std::int64_t>(s.neighbours), comm);
  const auto formats = dist::allgather(s.format, comm), reasons = dist::allgather(s.format_reason, comm),
             params = dist::allgather(s.format_params, comm), halo_formats = dist::allgather(s.halo_format, comm),
             halo_reasons = dist::allgather(s.halo_format_reason, comm);
  j["format_per_rank"] = formats;
  j["per_rank"] = nlohmann::json::array();
  for (int r = 0; r < ranks; ++r) {
    const auto& p = m.placement()[static_cast<std::size_t>(r)];
    const auto i = static_cast<std::size_t>(r);
    j["per_rank"].push_back({{"rank", r}, {"host", p.host}, {"device", p.device}, {"gpu", p.gpu},
                             {"rows", rows[i]}, {"nnz", nnz[i]}, {"interior_rows", interior[i]},
                             {"boundary_rows", boundary[i]}, {"ghosts", ghosts[i]}, {"halo_bytes", ghosts[i] * bytes},
                             {"sends", sends[i]}, {"neighbours", neighbours[i]}, {"format", formats[i]},
                             {"format_reason", reasons[i]}, {"format_params", params[i]},
                             {"halo_format", halo_formats[i]}, {"halo_format_reason", halo_reasons[i]}});
  }
  return j;
}

template nlohmann::json setup_report(const distributed_matrix<double>&, const std::string&, const std::string&);
template nlohmann::json setup_report(const distributed_matrix<float>&, const std::string&, const std::string&);

}  // namespace distspmv
