// METIS k-way partitioning (compiled only when CMake finds METIS; metis_stub.cpp otherwise).
#include <metis.h>

#include <limits>

#include "partition/partition.hpp"

namespace distspmv::partition {

std::vector<int> partition_metis(const graph& g, int parts, int seed, const metis_options& how) {
  DSPMV_REQUIRE(parts >= 1, "partition_metis: parts must be >= 1, got " + std::to_string(parts));
  std::vector<int> part(g.vertices, 0);
  if (parts == 1 || g.vertices == 0) return part;  // METIS fails for one part
  constexpr auto idx_max = static_cast<offset_type>(std::numeric_limits<idx_t>::max());
  if (g.vertices > idx_max || g.xadj.back() > idx_max)
    DSPMV_BAD_INPUT("partition", "METIS",
                    "graph of " + std::to_string(g.vertices) + " vertices and " + std::to_string(g.xadj.back()) +
                        " directed edges exceeds METIS's " + std::to_string(sizeof(idx_t) * 8) +
                        "-bit indices; use --partition block");
  std::vector<idx_t> xadj(g.xadj.begin(), g.xadj.end()), adjncy(g.adjncy.begin(), g.adjncy.end());
  std::vector<idx_t> vwgt(g.vertices);
  for (global_index_type v = 0; v < g.vertices; ++v) vwgt[v] = static_cast<idx_t>(std::max<offset_type>(1, g.weight[v]));
  idx_t nvtxs = static_cast<idx_t>(g.vertices), ncon = 1, nparts = parts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = seed;
  options[METIS_OPTION_NUMBERING] = 0;
  if (how.refinement_iterations >= 0) options[METIS_OPTION_NITER] = how.refinement_iterations;
  if (how.coarsening >= 0) options[METIS_OPTION_CTYPE] = how.coarsening == 0 ? METIS_CTYPE_RM : METIS_CTYPE_SHEM;
  if (how.no_two_hop >= 0) options[METIS_OPTION_NO2HOP] = how.no_two_hop;
  if (how.cuts > 0) options[METIS_OPTION_NCUTS] = how.cuts;
  if (how.ufactor >= 0) options[METIS_OPTION_UFACTOR] = how.ufactor;
  std::vector<idx_t> result(g.vertices);
  const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, nullptr, &nparts,
                                     nullptr, nullptr, options, &objval, result.data());
  if (rc != METIS_OK)
    throw error("METIS_PartGraphKway failed with code " + std::to_string(rc) +
                    (rc == METIS_ERROR_MEMORY ? " (out of memory)" : ""),
                __FILE__, __LINE__);
  for (global_index_type v = 0; v < g.vertices; ++v) part[v] = static_cast<int>(result[v]);
  return part;
}

}  // namespace distspmv::partition
