// PT-Scotch k-way partitioning of the distributed graph (compiled only when CMake finds PT-Scotch;
// ptscotch_stub.cpp otherwise). Each rank builds the adjacency of its own rows, symmetrised with
// one MPI_Alltoallv (distributed_graph.cpp), and hands it to SCOTCH_dgraphPart: no rank ever holds
// the whole graph.
#include <stdint.h>  // scotch.h uses int64_t and FILE without including their headers
#include <stdio.h>

#include <ptscotch.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "common/mpi_check.hpp"
#include "partition/distributed_graph.hpp"
#include "partition/partition.hpp"

namespace distspmv::partition {
namespace {

/// A PT-Scotch object (graph, strategy, context) released by its exit function once made.
template <typename T, void (*Exit)(T*)>
class scotch_object {
 public:
  scotch_object() = default;
  scotch_object(const scotch_object&) = delete;
  scotch_object& operator=(const scotch_object&) = delete;
  ~scotch_object() {
    if (made_) Exit(&object_);
  }
  T* get() { return &object_; }
  /// Records the status of the call that initialised the object: it is released only if made.
  int made(int status) {
    made_ = status == 0;
    return status;
  }

 private:
  T object_{};
  bool made_ = false;
};

/// Every rank learns how many ranks failed, so all throw or none does.
int failures(MPI_Comm comm, bool failed) {
  int mine = failed ? 1 : 0, all = 0;
  DSPMV_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, comm));
  return all;
}

/// The status of a SCOTCH_* call, agreed: the same error on every rank when it failed on any.
void scotch_check(MPI_Comm comm, int status, const char* call) {
  const int n = failures(comm, status != 0);
  if (n == 0) return;
  error e(std::string("partition_ptscotch: ") + call + " failed on " + std::to_string(n) +
              " rank(s) (PT-Scotch printed its reason on stderr)",
          __FILE__, __LINE__);
  e.mark_collective();
  throw e;
}

/// This rank's part of the graph in PT-Scotch's arrays (the shared build, distributed_graph.hpp,
/// in SCOTCH_Num): PT-Scotch takes a null array for "none given" and must see the weights on every
/// rank alike, so a rank without rows or arcs still passes one (unused) element of each.
struct local_graph {
  std::vector<SCOTCH_Num> vertloc;  ///< rows + 1 offsets into edgeloc
  std::vector<SCOTCH_Num> edgeloc;  ///< neighbours, global ids, sorted and unique per vertex (at least 1 element)
  std::vector<SCOTCH_Num> veloloc;  ///< vertex weights (at least 1 element)
};

/// The shared array as SCOTCH_Num: moved where the types are the same (the scotch-int64 build).
template <typename T>
std::vector<SCOTCH_Num> to_scotch(std::vector<T>&& v) {
  if constexpr (std::is_same_v<T, SCOTCH_Num>) {
    return std::move(v);
  } else {
    std::vector<SCOTCH_Num> out(v.begin(), v.end());
    v = {};
    return out;
  }
}

local_graph build_local_graph(MPI_Comm comm, const std::vector<global_index_type>& ranges, int me,
                              const csr_matrix<double>& a) {
  detail::graph_id_limit limit;
  limit.max_id = SCOTCH_NUMMAX;
  limit.advice = "exceed this PT-Scotch's " + std::to_string(sizeof(SCOTCH_Num) * 8) +
                 "-bit ids (configure with the scotch-int64 build)";
  auto shared = detail::build_distributed_graph(comm, ranges, me, a, "partition_ptscotch", limit);
  local_graph g;
  g.vertloc = to_scotch(std::move(shared.xadj));
  g.edgeloc = to_scotch(std::move(shared.adjncy));
  g.veloloc = to_scotch(std::move(shared.weight));
  if (g.veloloc.empty()) g.veloloc.push_back(1);
  if (g.edgeloc.empty()) g.edgeloc.push_back(0);
  return g;
}

}  // namespace

std::vector<int> partition_ptscotch(MPI_Comm caller_comm, global_index_type first_row, const csr_matrix<double>& rows,
                                    global_index_type global_rows, int parts, int seed) {
  DSPMV_REQUIRE(parts >= 1, "partition_ptscotch: parts must be >= 1, got " + std::to_string(parts));
  if (parts == 1) return std::vector<int>(static_cast<std::size_t>(rows.rows), 0);
  // Names us in PT-Scotch's messages. It also makes the program itself need libptscotcherr, so that
  // the loader takes it from the RUNPATH beside libptscotch (which names it without a path): a
  // copy unpacked outside the system's library paths (DEVICE.md) then loads without LD_LIBRARY_PATH.
  SCOTCH_errorProg("distspmv");
  // Another PT-Scotch build with the same soname (Debian's 32-bit one, which PETSc links) may have
  // been loaded first; its ids would not be ours.
  DSPMV_REQUIRE(SCOTCH_numSizeof() == static_cast<int>(sizeof(SCOTCH_Num)),
                "partition_ptscotch: the PT-Scotch library loaded has " + std::to_string(SCOTCH_numSizeof() * 8) +
                    "-bit ids but distspmv was compiled for " + std::to_string(sizeof(SCOTCH_Num) * 8) +
                    "-bit ones (another build of libptscotch was loaded first)");
  const detail::dup_comm dc(caller_comm);
  const MPI_Comm comm = dc.get();
  int me = 0, p = 0;
  DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &me));
  DSPMV_MPI_CHECK(MPI_Comm_size(comm, &p));
  const auto ranges = detail::rank_ranges(comm, first_row, rows, global_rows, "partition_ptscotch");
  local_graph g = build_local_graph(comm, ranges, me, rows);
  const auto n = static_cast<SCOTCH_Num>(rows.rows);
  const SCOTCH_Num arcs = g.vertloc.back();

  scotch_object<SCOTCH_Dgraph, SCOTCH_dgraphExit> graph;
  scotch_check(comm, graph.made(SCOTCH_dgraphInit(graph.get(), comm)), "SCOTCH_dgraphInit");
  scotch_check(comm,
               SCOTCH_dgraphBuild(graph.get(), 0, n, n, g.vertloc.data(), g.vertloc.data() + 1, g.veloloc.data(),
                                  nullptr, arcs, arcs, g.edgeloc.data(), nullptr, nullptr),
               "SCOTCH_dgraphBuild");
#ifdef NDEBUG
  const bool check = std::getenv("DISTSPMV_PTSCOTCH_CHECK") != nullptr;  // slow: a pass over every arc
#else
  const bool check = true;
#endif
  if (check) scotch_check(comm, SCOTCH_dgraphCheck(graph.get()), "SCOTCH_dgraphCheck");

  // A context of our own: deterministic for a seed (its own random generator), and one thread per
  // rank. With Scotch 7's default of one thread per core, the threads of kdgraphMapRbPart call MPI
  // concurrently on split communicators, which needs MPI_THREAD_MULTIPLE; under the
  // MPI_THREAD_SINGLE of our programs (Debian's 7.0.3, 4 ranks, gen:rmat:14:8) it deadlocked.
  scotch_object<SCOTCH_Context, SCOTCH_contextExit> context;
  scotch_check(comm, context.made(SCOTCH_contextInit(context.get())), "SCOTCH_contextInit");
  scotch_check(comm, SCOTCH_contextThreadSpawn(context.get(), 1, nullptr), "SCOTCH_contextThreadSpawn");
  scotch_check(comm, SCOTCH_contextOptionSetNum(context.get(), SCOTCH_OPTIONNUMDETERMINISTIC, 1),
               "SCOTCH_contextOptionSetNum");
  scotch_check(comm, SCOTCH_contextRandomClone(context.get()), "SCOTCH_contextRandomClone");
  SCOTCH_contextRandomSeed(context.get(), static_cast<SCOTCH_Num>(seed));
  scotch_object<SCOTCH_Dgraph, SCOTCH_dgraphExit> bound;
  scotch_check(comm, bound.made(SCOTCH_dgraphInit(bound.get(), comm)), "SCOTCH_dgraphInit");
  scotch_check(comm, SCOTCH_contextBindDgraph(context.get(), graph.get(), bound.get()), "SCOTCH_contextBindDgraph");

  // Strategy: multilevel recursive bipartitioning (QUALITY is the default string in 7.0.3), 5%
  // imbalance of vertex weights (METIS k-way's default is 3%), and SCALABILITY: the band graph
  // around each separator is gathered on every rank for a sequential refinement only while it has
  // fewer than 10^7 arcs. On small-world graphs the band is most of the graph, so without it every
  // rank would hold nearly the whole graph, and time grows with it: gen:rmat:20:8 on 2 ranks took
  // 371 s (halo 269087 entries) against 69.5 s with it (277170; METIS 16.6 s, 269731). Below 10^7
  // band arcs the two are the same partition. SPEED and SAFETY changed nothing on gen:rmat:18:8;
  // BALANCE (exact balance) took 8x longer for a 3% larger halo (partition/README.md).
  scotch_object<SCOTCH_Strat, SCOTCH_stratExit> strategy;
  scotch_check(comm, strategy.made(SCOTCH_stratInit(strategy.get())), "SCOTCH_stratInit");
  constexpr double imbalance = 0.05;
  scotch_check(comm, SCOTCH_stratDgraphMapBuild(strategy.get(), SCOTCH_STRATQUALITY | SCOTCH_STRATSCALABILITY, p, parts,
                                                     imbalance),
               "SCOTCH_stratDgraphMapBuild");
  // Not a null array on a rank without rows: PT-Scotch would skip a collective step there.
  std::vector<SCOTCH_Num> part(static_cast<std::size_t>(std::max<SCOTCH_Num>(n, 1)));
  scotch_check(comm, SCOTCH_dgraphPart(bound.get(), parts, strategy.get(), part.data()), "SCOTCH_dgraphPart");
  return std::vector<int>(part.begin(), part.begin() + n);
}

}  // namespace distspmv::partition
