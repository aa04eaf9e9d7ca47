// PT-Scotch k-way partitioning of the distributed graph (compiled only when CMake finds PT-Scotch;
// ptscotch_stub.cpp otherwise). Each rank builds the adjacency of its own rows, symmetrised with
// one MPI_Alltoallv, and hands it to SCOTCH_dgraphPart: no rank ever holds the whole graph.
#include <stdint.h>  // scotch.h uses int64_t and FILE without including their headers
#include <stdio.h>

#include <ptscotch.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <numeric>
#include <string>

#include "common/mpi_check.hpp"
#include "partition/adjacency.hpp"
#include "partition/partition.hpp"

namespace distspmv::partition {
namespace {

/// A duplicate of the caller's communicator for the exchange and for PT-Scotch, which keeps it in
/// the graph; freed on every way out.
class dup_comm {
 public:
  explicit dup_comm(MPI_Comm comm) {
    DSPMV_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~dup_comm() { MPI_Comm_free(&comm_); }
  dup_comm(const dup_comm&) = delete;
  dup_comm& operator=(const dup_comm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

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

/// Row ranges of the ranks (ranks + 1 boundaries); bad_input, the same on every rank, where they
/// do not tile [0, global_rows) or the matrix is not square.
std::vector<global_index_type> rank_ranges(MPI_Comm comm, global_index_type first_row, const csr_matrix<double>& a,
                                           global_index_type global_rows) {
  int p = 0;
  DSPMV_MPI_CHECK(MPI_Comm_size(comm, &p));
  const std::int64_t mine[3] = {first_row, a.rows, a.cols};
  std::vector<std::int64_t> all(3 * static_cast<std::size_t>(p));
  DSPMV_MPI_CHECK(MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, comm));
  std::vector<global_index_type> ranges(static_cast<std::size_t>(p) + 1, global_rows);
  for (int q = 0; q < p; ++q) ranges[q] = all[3 * q];
  for (int q = 0; q < p; ++q) {
    const std::string rank = "rank " + std::to_string(q);
    if (all[3 * q + 2] != global_rows)
      DSPMV_BAD_INPUT("partition_ptscotch", rank,
                      "its rows have " + std::to_string(all[3 * q + 2]) + " columns, not " +
                          std::to_string(global_rows) + ": the matrix must be square");
    if (ranges[0] != 0 || all[3 * q + 1] < 0 || ranges[q] + all[3 * q + 1] != ranges[q + 1])
      DSPMV_BAD_INPUT("partition_ptscotch", rank,
                      "rows [" + std::to_string(ranges[q]) + ", " + std::to_string(ranges[q] + all[3 * q + 1]) +
                          ") do not continue the ranges of the ranks before it towards [0, " +
                          std::to_string(global_rows) + ")");
  }
  return ranges;
}

/// This rank's part of the graph A + A^T without the diagonal, in PT-Scotch's arrays: its
/// vertices' adjacency with global ids, vertex weights = row nonzeros (at least 1).
struct local_graph {
  std::vector<SCOTCH_Num> vertloc;  ///< rows + 1 offsets into edgeloc
  std::vector<SCOTCH_Num> edgeloc;  ///< neighbours, global ids, sorted and unique per vertex (at least 1 element)
  std::vector<SCOTCH_Num> veloloc;  ///< vertex weights (at least 1 element)
};

/// Builds it with one exchange: an entry (v, c) with c on another rank is sent there as (c, v).
local_graph build_local_graph(MPI_Comm comm, const std::vector<global_index_type>& ranges, int me,
                              const csr_matrix<double>& a) {
  const int p = static_cast<int>(ranges.size()) - 1;
  const global_index_type first = ranges[me], end = ranges[me + 1], n = a.rows, global_rows = ranges[p];
  const auto owner = [&](global_index_type c) {
    return static_cast<int>(std::upper_bound(ranges.begin(), ranges.end(), c) - ranges.begin()) - 1;
  };
  const auto is_arc = [&](global_index_type v, global_index_type c) { return c != v && c >= 0 && c < global_rows; };

  // Count each vertex's arcs (before removing repeats) and the pairs for each other rank.
  std::vector<std::int64_t> degree(static_cast<std::size_t>(n) + 1, 0), send_count(p, 0), recv_count(p);
  std::int64_t bad_columns = 0;
  for (global_index_type i = 0; i < n; ++i)
    for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const global_index_type v = first + i, c = a.col_idx[k];
      if (!is_arc(v, c)) {
        bad_columns += c != v;
        continue;
      }
      ++degree[i];
      if (c >= first && c < end)
        ++degree[c - first];
      else
        ++send_count[owner(c)];
    }
  DSPMV_MPI_CHECK(MPI_Alltoall(send_count.data(), 1, MPI_INT64_T, recv_count.data(), 1, MPI_INT64_T, comm));
  const std::int64_t send_total = std::accumulate(send_count.begin(), send_count.end(), std::int64_t{0});
  const std::int64_t recv_total = std::accumulate(recv_count.begin(), recv_count.end(), std::int64_t{0});
  const std::int64_t local_arcs = std::accumulate(degree.begin(), degree.end(), std::int64_t{0}) + recv_total;
  // Agreed failures: columns out of range, counts past MPI's int, ids past SCOTCH_Num.
  std::int64_t problems[3] = {bad_columns, send_total > INT_MAX || recv_total > INT_MAX, local_arcs};
  DSPMV_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, problems, 3, MPI_INT64_T, MPI_SUM, comm));
  if (problems[0] > 0)
    DSPMV_BAD_INPUT("partition_ptscotch", "column ids",
                    std::to_string(problems[0]) + " entries have a column outside [0, " + std::to_string(global_rows) +
                        ")");
  if (problems[1] > 0)
    throw error("partition_ptscotch: a rank exchanges more than 2^31 - 1 arcs with the others (one MPI_Alltoallv); "
                "partition over more ranks",
                __FILE__, __LINE__);
  if (global_rows > SCOTCH_NUMMAX || problems[2] > SCOTCH_NUMMAX)
    DSPMV_BAD_INPUT("partition_ptscotch", "graph size",
                    std::to_string(global_rows) + " vertices and up to " + std::to_string(problems[2]) +
                        " arcs exceed this PT-Scotch's " + std::to_string(sizeof(SCOTCH_Num) * 8) +
                        "-bit ids (configure with the scotch-int64 build)");

  // Exchange (c, v) pairs, one MPI_Alltoallv of a two-int64 type.
  std::vector<std::int64_t> recv(2 * static_cast<std::size_t>(recv_total));
  {
    std::vector<int> sc(p), sd(p), rc(p), rd(p);
    for (int q = 0, s = 0, r = 0; q < p; ++q) {
      sc[q] = static_cast<int>(send_count[q]);
      rc[q] = static_cast<int>(recv_count[q]);
      sd[q] = s;
      rd[q] = r;
      s += sc[q];
      r += rc[q];
    }
    std::vector<std::int64_t> send(2 * static_cast<std::size_t>(send_total));
    std::vector<std::int64_t> pos(p);
    for (int q = 0; q < p; ++q) pos[q] = 2 * std::int64_t{sd[q]};
    for (global_index_type i = 0; i < n; ++i)
      for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const global_index_type v = first + i, c = a.col_idx[k];
        if (!is_arc(v, c) || (c >= first && c < end)) continue;
        auto& at = pos[owner(c)];
        send[at++] = c;
        send[at++] = v;
      }
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    DSPMV_MPI_CHECK(MPI_Type_contiguous(2, MPI_INT64_T, &pair));
    DSPMV_MPI_CHECK(MPI_Type_commit(&pair));
    const int status =
        MPI_Alltoallv(send.data(), sc.data(), sd.data(), pair, recv.data(), rc.data(), rd.data(), pair, comm);
    MPI_Type_free(&pair);
    DSPMV_MPI_CHECK(status);
  }

  // Offsets, then the arcs: each local entry both ways (if its column is here), each received one.
  local_graph g;
  for (std::int64_t k = 0; k < recv_total; ++k) ++degree[recv[2 * k] - first];
  g.vertloc.resize(degree.size());
  std::exclusive_scan(degree.begin(), degree.end(), g.vertloc.begin(), SCOTCH_Num{0});
  degree = {};
  g.edgeloc.resize(static_cast<std::size_t>(local_arcs));
  std::vector<SCOTCH_Num> fill(g.vertloc.begin(), g.vertloc.end() - 1);
  for (global_index_type i = 0; i < n; ++i)
    for (offset_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const global_index_type v = first + i, c = a.col_idx[k];
      if (!is_arc(v, c)) continue;
      g.edgeloc[fill[i]++] = static_cast<SCOTCH_Num>(c);
      if (c >= first && c < end) g.edgeloc[fill[c - first]++] = static_cast<SCOTCH_Num>(v);
    }
  for (std::int64_t k = 0; k < recv_total; ++k) g.edgeloc[fill[recv[2 * k] - first]++] = static_cast<SCOTCH_Num>(recv[2 * k + 1]);
  recv = {};
  fill = {};
  detail::sort_unique_neighbours(g.vertloc, g.edgeloc);
  // PT-Scotch takes a null array for "none given", and must see the weights on every rank alike: a
  // rank without rows or arcs still passes one (unused) element.
  g.veloloc.resize(static_cast<std::size_t>(std::max<global_index_type>(n, 1)), 1);
  for (global_index_type i = 0; i < n; ++i)
    g.veloloc[i] = static_cast<SCOTCH_Num>(std::max<offset_type>(1, a.row_ptr[i + 1] - a.row_ptr[i]));
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
  const dup_comm dc(caller_comm);
  const MPI_Comm comm = dc.get();
  int me = 0, p = 0;
  DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &me));
  DSPMV_MPI_CHECK(MPI_Comm_size(comm, &p));
  const auto ranges = rank_ranges(comm, first_row, rows, global_rows);
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
