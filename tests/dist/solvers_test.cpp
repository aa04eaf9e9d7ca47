// CG and GMRES over the distributed API at 1, 2 and 4 ranks (host backend): convergence, the same
// iteration counts as a one-rank solve, the solution against the known x = 1, non-symmetric
// matrices, errors on every rank (never a hang), zero and NaN right-hand sides, the vector kernels.
//
// Every check that decides whether a test goes on is made on globally reduced values, so that
// all ranks take the same path through the collective calls.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/solve.hpp"
#include "common/errors.hpp"
#include "dist/distributed_matrix.hpp"
#include "dist/solvers/cg.hpp"
#include "dist/solvers/gmres.hpp"
#include "dist/solvers/vector_ops.hpp"
#include "local_kernels/device_storage.hpp"
#include "tests/support/test_support.hpp"

namespace distspmv::solvers {
namespace {

using matrix = distributed_matrix<double>;

// ---- helpers ---------------------------------------------------------------------------------

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

double max_over_ranks(double v, MPI_Comm comm = MPI_COMM_WORLD) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm);
  return v;
}

/// True on every rank when `flag` is true on every rank.
bool all_ranks(bool flag, MPI_Comm comm = MPI_COMM_WORLD) {
  int v = flag ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, comm);
  return v == 1;
}

matrix_options host_options(partitioner part = partitioner::block) {
  matrix_options o;
  o.where = backend::host;
  o.partition = part;
  return o;
}

struct entry {
  global_index_type col;
  double value;
};

/// A matrix of `n` rows given row by row (columns sorted), each rank passing an even share of the
/// rows in the caller's layout.
matrix matrix_from_rows(MPI_Comm comm, global_index_type n, const std::function<std::vector<entry>(global_index_type)>& row,
                        partitioner part = partitioner::block) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const global_index_type first = n * rank / ranks, last = n * (rank + 1) / ranks;
  std::vector<offset_type> row_ptr{0};
  std::vector<global_index_type> cols;
  std::vector<double> values;
  for (global_index_type i = first; i < last; ++i) {
    for (const entry& e : row(i)) {
      cols.push_back(e.col);
      values.push_back(e.value);
    }
    row_ptr.push_back(static_cast<offset_type>(cols.size()));
  }
  return matrix::from_csr(comm, n, first, last - first, row_ptr.data(), cols.data(), values.data(),
                          memory_space::host, host_options(part));
}

/// 7-point Laplacian on an N^3 grid, with `diagonal` on the diagonal (6 is gen:poisson3d).
std::vector<entry> laplacian3d_row(global_index_type i, global_index_type N, double diagonal) {
  const global_index_type x = i % N, y = (i / N) % N, z = i / (N * N);
  std::vector<entry> r;
  if (z > 0) r.push_back({i - N * N, -1});
  if (y > 0) r.push_back({i - N, -1});
  if (x > 0) r.push_back({i - 1, -1});
  r.push_back({i, diagonal});
  if (x + 1 < N) r.push_back({i + 1, -1});
  if (y + 1 < N) r.push_back({i + N, -1});
  if (z + 1 < N) r.push_back({i + N * N, -1});
  return r;
}

/// Central-difference convection-diffusion on an N^2 grid: non-symmetric, strictly diagonally
/// dominant (|off-diagonal| sum 4 < 4.5).
std::vector<entry> convection_diffusion_row(global_index_type i, global_index_type N) {
  const global_index_type x = i % N, y = i / N;
  std::vector<entry> r;
  if (y > 0) r.push_back({i - N, -1.2});
  if (x > 0) r.push_back({i - 1, -1.4});
  r.push_back({i, 4.5});
  if (x + 1 < N) r.push_back({i + 1, -0.6});
  if (y + 1 < N) r.push_back({i + N, -0.8});
  return r;
}

/// Deterministic hash to [0, 1).
double hash01(std::uint64_t a, std::uint64_t b) {
  std::uint64_t s = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL);
  s ^= s >> 31;
  s *= 0xbf58476d1ce4e5b9ULL;
  s ^= s >> 29;
  return static_cast<double>(s >> 11) / 9007199254740992.0;
}

/// Random non-symmetric banded rows of 1..9 off-diagonal entries, diagonal 1 + sum |off|.
std::vector<entry> random_dominant_row(global_index_type i, global_index_type n) {
  const int len = 1 + static_cast<int>(hash01(i, 0) * 9);
  std::vector<entry> r;
  double sum = 0;
  for (int k = 0; k < len; ++k) {
    const auto off = static_cast<global_index_type>(hash01(i, 2 * k + 1) * 80) - 40;
    const global_index_type c = std::clamp<global_index_type>(i + off, 0, n - 1);
    if (c == i || std::any_of(r.begin(), r.end(), [&](const entry& e) { return e.col == c; })) continue;
    const double v = hash01(i, 2 * k + 2) - 0.7;
    r.push_back({c, v});
    sum += std::abs(v);
  }
  r.push_back({i, 1 + sum});
  std::sort(r.begin(), r.end(), [](const entry& a, const entry& b) { return a.col < b.col; });
  return r;
}

/// b = A * 1 (so that the solution is x = 1), in the partitioned layout.
std::vector<double> rhs_of_ones(matrix& A) {
  std::vector<double> ones(A.local_rows(), 1.0), b(A.local_rows());
  A.apply(1.0, ones.data(), 0.0, b.data());
  return b;
}

/// Largest |x_i - 1| over all ranks.
double error_from_ones(const std::vector<double>& x, MPI_Comm comm) {
  double e = 0;
  for (double v : x) e = std::max(e, std::abs(v - 1.0));
  return max_over_ranks(e, comm);
}

using solver_fn = solve_result (*)(matrix&, const double*, double*, const solver_options&);

struct run {
  solve_result result;
  double error = 0;  ///< max |x - 1|
};

/// Solves A x = A 1 from x = 0.
run solve_for_ones(matrix& A, solver_fn solve, const solver_options& options) {
  const auto b = rhs_of_ones(A);
  std::vector<double> x(A.local_rows(), 0.0);
  run r;
  r.result = solve(A, b.data(), x.data(), options);
  r.error = error_from_ones(x, A.comm());
  return r;
}

/// Runs `action` on every rank and returns true on every rank when it threw distspmv::error on
/// every rank, marked collective() (the error says every rank throws it) unless `any_error`;
/// `message` receives this rank's what().
bool throws_everywhere(const std::function<void()>& action, std::string* message = nullptr, bool any_error = false) {
  bool threw = false;
  try {
    action();
  } catch (const error& e) {
    threw = any_error || e.collective();
    if (message) *message = e.what();
  }
  return all_ranks(threw);
}

// ---- agreement with a one-rank solve ---------------------------------------------------------

struct method_case {
  const char* name;
  solver_fn solve;
};

class SolverOnPoisson : public ::testing::TestWithParam<method_case> {};

/// The same solve on all ranks and on each rank alone (MPI_COMM_SELF): the iteration counts
/// differ at most by one (rounding order differs), both reach rtol, x is close to 1.
void expect_matches_one_rank(const method_case& method, partitioner part, bool jacobi) {
  const std::string source = "gen:poisson3d:12";
  solver_options options;
  options.rtol = 1e-8;
  options.jacobi = jacobi;
  auto A = matrix::from_source(MPI_COMM_WORLD, source, host_options(part));
  const run dist = solve_for_ones(A, method.solve, options);
  auto A1 = matrix::from_source(MPI_COMM_SELF, source, host_options(part));
  const run serial = solve_for_ones(A1, method.solve, options);

  EXPECT_TRUE(dist.result.converged);
  EXPECT_TRUE(serial.result.converged);
  EXPECT_LE(dist.result.final_relative_residual, options.rtol);
  EXPECT_NEAR(dist.result.iterations, serial.result.iterations, 1)
      << method.name << " on " << A.ranks() << " ranks vs 1 rank";
  EXPECT_GT(dist.result.iterations, 5);  // not trivially solved
  EXPECT_LT(dist.error, 1e-5);           // cond(A) ~ 60 times rtol, with margin
  EXPECT_EQ(dist.result.residual_history.size(), static_cast<std::size_t>(dist.result.iterations) + 1);
  EXPECT_DOUBLE_EQ(dist.result.residual_history.front(), 1.0);  // x0 = 0: r0 = b
}

TEST_P(SolverOnPoisson, SameIterationsAsOneRankBlockPartition) { expect_matches_one_rank(GetParam(), partitioner::block, true); }
TEST_P(SolverOnPoisson, SameIterationsAsOneRankMetis) { expect_matches_one_rank(GetParam(), partitioner::metis, true); }
TEST_P(SolverOnPoisson, SameIterationsAsOneRankNoJacobi) { expect_matches_one_rank(GetParam(), partitioner::block, false); }

INSTANTIATE_TEST_SUITE_P(Methods, SolverOnPoisson,
                         ::testing::Values(method_case{"cg", &cg}, method_case{"gmres", &gmres}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- GMRES on non-symmetric matrices ---------------------------------------------------------

TEST(Gmres, ConvectionDiffusionWithRestarts) {
  const global_index_type N = 40;
  auto A = matrix_from_rows(MPI_COMM_WORLD, N * N, [&](global_index_type i) { return convection_diffusion_row(i, N); },
                            partitioner::metis);
  for (bool jacobi : {true, false}) {
    solver_options options;
    options.restart = 8;  // fewer than the iterations needed: the restarts are exercised
    options.jacobi = jacobi;
    const run r = solve_for_ones(A, &gmres, options);
    EXPECT_TRUE(r.result.converged) << "jacobi " << jacobi;
    EXPECT_GT(r.result.iterations, options.restart);
    EXPECT_LE(r.result.final_relative_residual, options.rtol);
    EXPECT_LT(r.error, 1e-6);
  }
}

TEST(Gmres, RandomNonSymmetricDiagonallyDominant) {
  const global_index_type n = 3001;  // odd: uneven shares
  auto A = matrix_from_rows(MPI_COMM_WORLD, n, [&](global_index_type i) { return random_dominant_row(i, n); },
                            partitioner::metis);
  const run r = solve_for_ones(A, &gmres, {});
  EXPECT_TRUE(r.result.converged);
  EXPECT_LE(r.result.final_relative_residual, 1e-8);
  EXPECT_LT(r.error, 1e-6);
}

TEST(Cg, NonSymmetricNeverClaimsFalseConvergence) {
  // CG is not for non-symmetric matrices, but must not hang or lie: converged must mean the true
  // residual reached rtol, whatever happened on the way.
  const global_index_type N = 30;
  auto A = matrix_from_rows(MPI_COMM_WORLD, N * N, [&](global_index_type i) { return convection_diffusion_row(i, N); });
  solver_options options;
  options.max_iters = 200;
  const auto b = rhs_of_ones(A);
  std::vector<double> x(A.local_rows(), 0.0);
  bool ok = true;
  try {
    const auto r = cg(A, b.data(), x.data(), options);
    if (r.converged) ok = r.final_relative_residual <= options.rtol;
  } catch (const error&) {
    // a breakdown detected (p^T A p <= 0) is a fine answer too
  }
  EXPECT_TRUE(all_ranks(ok));
}

// ---- errors on every rank --------------------------------------------------------------------

TEST(Cg, NegatedDiagonalThrowsOnEveryRankWithJacobi) {
  const global_index_type N = 10;
  auto A = matrix_from_rows(MPI_COMM_WORLD, N * N * N, [&](global_index_type i) { return laplacian3d_row(i, N, -6); });
  const auto b = rhs_of_ones(A);
  std::vector<double> x(A.local_rows(), 0.0);
  std::string message;
  EXPECT_TRUE(throws_everywhere([&] { cg(A, b.data(), x.data(), {}); }, &message));
  EXPECT_NE(message.find("not symmetric positive definite"), std::string::npos) << message;
  EXPECT_NE(message.find("diagonal"), std::string::npos) << message;
}

TEST(Cg, NegatedDiagonalThrowsOnEveryRankWithoutJacobi) {
  const global_index_type N = 10;
  auto A = matrix_from_rows(MPI_COMM_WORLD, N * N * N, [&](global_index_type i) { return laplacian3d_row(i, N, -6); },
                            partitioner::metis);
  const auto b = rhs_of_ones(A);
  std::vector<double> x(A.local_rows(), 0.0);
  solver_options options;
  options.jacobi = false;
  std::string message;
  EXPECT_TRUE(throws_everywhere([&] { cg(A, b.data(), x.data(), options); }, &message));
  EXPECT_NE(message.find("p^T A p"), std::string::npos) << message;
  EXPECT_NE(message.find("not symmetric positive definite"), std::string::npos) << message;
}

TEST(Gmres, SingularBreakdownThrowsOnEveryRank) {
  // A = diag(0, 1, 1, ...), b = e_0: A V_0 = 0 at the first step, restarting cannot help.
  const global_index_type n = 50;
  auto A = matrix_from_rows(MPI_COMM_WORLD, n, [](global_index_type i) {
    return std::vector<entry>{{i, i == 0 ? 0.0 : 1.0}};
  });
  std::vector<double> caller(A.caller_rows(), 0.0), b(A.local_rows()), x(A.local_rows(), 0.0);
  if (A.caller_first_row() == 0 && !caller.empty()) caller[0] = 1.0;
  A.to_partitioned(caller.data(), b.data());
  std::string message;
  EXPECT_TRUE(throws_everywhere([&] { gmres(A, b.data(), x.data(), {}); }, &message));
  EXPECT_NE(message.find("singular"), std::string::npos) << message;
}

TEST(Solvers, NanInRightHandSideThrowsOnEveryRank) {
  auto A = matrix::from_source(MPI_COMM_WORLD, "gen:poisson3d:6", host_options());
  auto b = rhs_of_ones(A);
  if (A.rank() == A.ranks() - 1 && !b.empty()) b.back() = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x(A.local_rows(), 0.0);
  for (solver_fn solve : {&cg, &gmres}) {
    std::string message;
    EXPECT_TRUE(throws_everywhere([&] { solve(A, b.data(), x.data(), {}); }, &message));
    EXPECT_NE(message.find("NaN"), std::string::npos) << message;
  }
}

TEST(Solvers, BadOptionsThrow) {
  auto A = matrix::from_source(MPI_COMM_WORLD, "gen:poisson3d:4", host_options());
  const auto b = rhs_of_ones(A);
  std::vector<double> x(A.local_rows(), 0.0);
  solver_options bad_rtol;
  bad_rtol.rtol = 0;
  solver_options bad_restart;
  bad_restart.restart = 0;
  // Argument checks, before any communication: every rank throws since every rank passes the same.
  EXPECT_TRUE(throws_everywhere([&] { cg(A, b.data(), x.data(), bad_rtol); }, nullptr, true));
  EXPECT_TRUE(throws_everywhere([&] { gmres(A, b.data(), x.data(), bad_restart); }, nullptr, true));
}

// ---- right-hand sides, limits, options -------------------------------------------------------

TEST(Solvers, ZeroRightHandSideGivesZeroSolution) {
  auto A = matrix::from_source(MPI_COMM_WORLD, "gen:poisson3d:6", host_options());
  const std::vector<double> b(A.local_rows(), 0.0);
  for (solver_fn solve : {&cg, &gmres}) {
    std::vector<double> x(A.local_rows(), 3.0);  // a non-zero initial guess is overwritten
    const auto r = solve(A, b.data(), x.data(), {});
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(r.final_relative_residual, 0.0);
    double largest = 0;
    for (double v : x) largest = std::max(largest, std::abs(v));
    EXPECT_EQ(max_over_ranks(largest), 0.0);
  }
}

TEST(Solvers, MaxItersStopsWithoutConvergence) {
  auto A = matrix::from_source(MPI_COMM_WORLD, "gen:poisson3d:10", host_options());
  solver_options options;
  options.max_iters = 3;
  for (solver_fn solve : {&cg, &gmres}) {
    const run r = solve_for_ones(A, solve, options);
    EXPECT_FALSE(r.result.converged);
    EXPECT_EQ(r.result.iterations, 3);
    EXPECT_GT(r.result.final_relative_residual, options.rtol);
    EXPECT_LT(r.result.final_relative_residual, 1.0);  // but it made progress
  }
}

TEST(Solvers, InitialGuessIsUsed) {
  auto A = matrix::from_source(MPI_COMM_WORLD, "gen:poisson3d:8", host_options());
  const auto b = rhs_of_ones(A);
  for (solver_fn solve : {&cg, &gmres}) {
    std::vector<double> x(A.local_rows(), 1.0);  // the exact solution
    const auto r = solve(A, b.data(), x.data(), {});
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 0);
  }
}

TEST(Solvers, TimingAndHistoryOptions) {
  auto A = matrix::from_source(MPI_COMM_WORLD, "gen:poisson3d:8", host_options());
  solver_options options;
  options.timing = true;
  options.record_history = false;
  const run r = solve_for_ones(A, &cg, options);
  EXPECT_TRUE(r.result.converged);
  EXPECT_TRUE(r.result.residual_history.empty());
  EXPECT_GT(r.result.spmv_seconds, 0.0);
  EXPECT_LE(r.result.spmv_seconds, r.result.total_seconds);
  EXPECT_GT(r.result.spmv_fraction(), 0.0);
  // one SpMV per iteration, plus r0 and the final true residual
  EXPECT_EQ(r.result.spmv_calls, r.result.iterations + 2);
  EXPECT_GT(r.result.seconds_per_iteration(), 0.0);
  // the timings are the largest over ranks: the same everywhere
  EXPECT_EQ(max_over_ranks(r.result.total_seconds), r.result.total_seconds);
}

// ---- vector kernels --------------------------------------------------------------------------

TEST(VectorOps, GlobalReductionsMatchSerialSums) {
  const int rank = world_rank();
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::int64_t n = 1000 + 17 * rank;  // unequal shares
  const int k = 5;
  vector_ops ops(backend::host, MPI_COMM_WORLD, n, k + 1);
  // Columns V_j[i] = f(rank, j, i); w[i] = g(rank, i); all exact in binary (multiples of 1/8).
  std::vector<double> V(static_cast<std::size_t>(k) * n), w(n);
  double expected[k + 1] = {};
  for (std::int64_t i = 0; i < n; ++i) w[i] = ((i + rank) % 7) * 0.125;
  for (int j = 0; j < k; ++j)
    for (std::int64_t i = 0; i < n; ++i) V[j * n + i] = ((i * (j + 1) + rank) % 5) - 2.0;
  for (int r = 0; r < ranks; ++r) {  // the global sums, computed independently on every rank
    const std::int64_t nr = 1000 + 17 * r;
    for (std::int64_t i = 0; i < nr; ++i) {
      const double wi = ((i + r) % 7) * 0.125;
      for (int j = 0; j < k; ++j) expected[j] += (((i * (j + 1) + r) % 5) - 2.0) * wi;
      expected[k] += wi * wi;
    }
  }
  double out[k + 1];
  ops.dots(k, V.data(), w.data(), true, out);
  for (int j = 0; j <= k; ++j) EXPECT_EQ(out[j], expected[j]) << "value " << j;
  EXPECT_EQ(ops.dot(w.data(), w.data()), expected[k]);

  // combine: w += sum_j c_j V_j
  const double c[k] = {1, -2, 0.5, 0, 3};
  std::vector<double> w2 = w;
  ops.combine(k, V.data(), c, w2.data());
  for (std::int64_t i = 0; i < n; i += 97) {
    double e = w[i];
    for (int j = 0; j < k; ++j) e += c[j] * V[j * n + i];
    EXPECT_DOUBLE_EQ(w2[i], e);
  }
}

TEST(VectorOps, FusedCgUpdate) {
  const std::int64_t n = 333;
  vector_ops ops(backend::host, MPI_COMM_WORLD, n, 2);
  std::vector<double> p(n), q(n), d(n), x(n, 1.0), r(n), z(n);
  for (std::int64_t i = 0; i < n; ++i) {
    p[i] = 0.5 * (i % 3);
    q[i] = 0.25 * (i % 5);
    d[i] = 1.0 / (1 + i % 4);
    r[i] = 2.0 - 0.125 * (i % 9);
  }
  const auto x0 = x, r0 = r;
  const double a = 0.5;
  const auto v = ops.cg_update(a, p.data(), q.data(), d.data(), x.data(), r.data(), z.data());
  double rz = 0, rr = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double ri = r0[i] - a * q[i];
    EXPECT_DOUBLE_EQ(x[i], x0[i] + a * p[i]);
    EXPECT_DOUBLE_EQ(r[i], ri);
    EXPECT_DOUBLE_EQ(z[i], d[i] * ri);
    rz += ri * d[i] * ri;
    rr += ri * ri;
  }
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  EXPECT_NEAR(v[0], ranks * rz, 1e-12 * ranks * rz);
  EXPECT_NEAR(v[1], ranks * rr, 1e-12 * ranks * rr);
}

TEST(VectorOps, ZeroLengthRank) {
  // A rank may own no rows: every kernel must accept n == 0 and still join the reductions.
  const bool empty = world_rank() == 0;
  const std::int64_t n = empty ? 0 : 10;
  vector_ops ops(backend::host, MPI_COMM_WORLD, n, 3);
  std::vector<double> v(10, 2.0);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  EXPECT_EQ(ops.dot(v.data(), v.data()), 40.0 * (ranks - 1));
}

// ---- the CUDA backend (skipped without a GPU on every rank) --------------------------------------

/// True on every rank when every rank sees a GPU (and the build has CUDA).
bool gpus_everywhere() { return all_ranks(cuda_device_count() > 0); }

/// A device copy of a host vector.
backend_array on_device(const std::vector<double>& h) {
  backend_array d(backend::cuda, h.size());
  d.copy_from_host(h.data());
  return d;
}

/// Largest |a_i - b_i| relative to max |b_i| (1 when the sizes differ or a NaN appears).
double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return 1.0;
  double diff = 0, scale = 1e-300;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) return 1.0;  // no NaN is expected anywhere
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

/// Each device kernel against the host one on the same data, for lengths around the block and
/// grid sizes and multi-dots of 1 to 19 columns (the device kernel works in tiles of 8). Not bit
/// for bit: nvcc contracts a * x + y into FMAs and the reductions sum in another order.
TEST(VectorOpsCuda, MatchHost) {
  if (!gpus_everywhere()) GTEST_SKIP() << "no GPU on some rank";
  for (std::int64_t n : {0, 1, 255, 257, 100000, 1000003}) {
    const int max_k = 19;
    vector_ops dev(backend::cuda, MPI_COMM_WORLD, n, max_k + 1), host(backend::host, MPI_COMM_WORLD, n, max_k + 1);
    const auto V = test::random_vector<double>(static_cast<std::size_t>(n) * max_k, 1);
    const auto w = test::random_vector<double>(n, 2), d = test::random_vector<double>(n, 3);
    auto dV = on_device(V), dw = on_device(w), dd = on_device(d);
    for (int k : {1, 7, 8, 9, 19}) {
      std::vector<double> out_d(k + 1), out_h(k + 1);
      dev.dots(k, dV.data(), dw.data(), true, out_d.data());
      host.dots(k, V.data(), w.data(), true, out_h.data());
      for (int j = 0; j <= k; ++j) EXPECT_NEAR(out_d[j], out_h[j], 1e-12 * (1.0 + n)) << "n " << n << " k " << k;
    }
    // combine, multiply, axpby (b == 0 must not read y: put NaN there), scale, fill, copy
    const std::vector<double> c = {0.5, -1.0, 2.0};
    std::vector<double> hw = w;
    host.combine(3, V.data(), c.data(), hw.data());
    dev.combine(3, dV.data(), c.data(), dw.data());
    EXPECT_LT(max_difference(dw.to_host(), hw), 1e-14);
    host.multiply(d.data(), hw.data(), hw.data());
    dev.multiply(dd.data(), dw.data(), dw.data());
    EXPECT_LT(max_difference(dw.to_host(), hw), 1e-14);
    std::vector<double> hy(n, std::numeric_limits<double>::quiet_NaN());
    auto dy = on_device(hy);
    host.axpby(2.0, hw.data(), 0.0, hy.data());
    dev.axpby(2.0, dw.data(), 0.0, dy.data());
    EXPECT_LT(max_difference(dy.to_host(), hy), 1e-14);
    host.axpby(-1.0, d.data(), 0.5, hy.data());
    dev.axpby(-1.0, dd.data(), 0.5, dy.data());
    host.scale(3.0, hy.data());
    dev.scale(3.0, dy.data());
    EXPECT_LT(max_difference(dy.to_host(), hy), 1e-14);
    dev.copy(dd.data(), dy.data());
    EXPECT_LT(max_difference(dy.to_host(), d), 1e-14);
    dev.fill(dy.data(), 4.0);
    EXPECT_EQ(dy.to_host(), std::vector<double>(n, 4.0));  // exact: no arithmetic
    // the fused CG update, with and without the preconditioner
    for (bool jacobi : {true, false}) {
      const auto p = test::random_vector<double>(n, 4), q = test::random_vector<double>(n, 5);
      auto hx = test::random_vector<double>(n, 6), hr = test::random_vector<double>(n, 7);
      std::vector<double> hz(n);
      auto dp = on_device(p), dq = on_device(q), dx = on_device(hx), dr = on_device(hr), dz = on_device(hz);
      const auto vh = host.cg_update(0.3, p.data(), q.data(), jacobi ? d.data() : nullptr, hx.data(), hr.data(),
                                     jacobi ? hz.data() : hr.data());
      const auto vd = dev.cg_update(0.3, dp.data(), dq.data(), jacobi ? dd.data() : nullptr, dx.data(), dr.data(),
                                    jacobi ? dz.data() : dr.data());
      EXPECT_LT(max_difference(dx.to_host(), hx), 1e-14);
      EXPECT_LT(max_difference(dr.to_host(), hr), 1e-14);
      if (jacobi) {
        EXPECT_LT(max_difference(dz.to_host(), hz), 1e-14);
      }
      EXPECT_NEAR(vd[0], vh[0], 1e-12 * (1.0 + n));
      EXPECT_NEAR(vd[1], vh[1], 1e-12 * (1.0 + n));
    }
  }
}

/// CG and GMRES with the matrix and the vectors on the GPU take the iterations of the host run
/// (within one) and reach the same solution.
TEST(SolversCuda, MatchHostBackend) {
  if (!gpus_everywhere()) GTEST_SKIP() << "no GPU on some rank";
  const std::string source = "gen:poisson3d:12";
  auto on_host = matrix::from_source(MPI_COMM_WORLD, source, host_options());
  matrix_options device_options = host_options();
  device_options.where = backend::cuda;
  auto on_gpu = matrix::from_source(MPI_COMM_WORLD, source, device_options);
  for (solver_fn solve : {&cg, &gmres}) {
    const run reference = solve_for_ones(on_host, solve, {});
    const auto b = on_device(rhs_of_ones(on_host));  // the same layout: block partition
    backend_array x(backend::cuda, on_gpu.local_rows());
    solver_options options;
    options.timing = true;
    const auto r = solve(on_gpu, b.data(), x.data(), options);
    EXPECT_TRUE(r.converged);
    EXPECT_LE(r.final_relative_residual, options.rtol);
    EXPECT_NEAR(r.iterations, reference.result.iterations, 1);
    EXPECT_LT(error_from_ones(x.to_host(), MPI_COMM_WORLD), 1e-5);
    EXPECT_GT(r.spmv_fraction(), 0.0);
  }
}

// ---- the solve command (apps/solve.cpp) ------------------------------------------------------

/// A temporary folder made by rank 0, the same path on every rank; removed at the end of scope.
class shared_temp_dir {
 public:
  shared_temp_dir() {
    if (world_rank() == 0) path_ = test::make_temp_dir("distspmv-solve");
    int n = static_cast<int>(path_.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    path_.resize(n);
    MPI_Bcast(path_.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  shared_temp_dir(const shared_temp_dir&) = delete;
  shared_temp_dir& operator=(const shared_temp_dir&) = delete;
  ~shared_temp_dir() {
    MPI_Barrier(MPI_COMM_WORLD);  // nobody still reads the files
    if (world_rank() == 0) std::filesystem::remove_all(path_);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Rank 0 writes a 1-D float64 dataset `name` to a new HDF5 file.
void write_h5_dataset(const std::string& path, const char* name, const std::vector<double>& v) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t dims[1] = {v.size()};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t set = H5Dcreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Dclose(set);
  H5Sclose(space);
  H5Fclose(file);
}

std::vector<double> read_h5_dataset(const std::string& path, const char* name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return {};
  const hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
  const hid_t space = H5Dget_space(set);
  std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(file);
  return v;
}

/// b = A v in the original row order, computed on one rank (every rank computes it).
std::vector<double> product_in_original_order(const std::string& source, const std::vector<double>& v) {
  auto A = matrix::from_source(MPI_COMM_SELF, source, host_options());
  std::vector<double> vp(A.local_rows()), bp(A.local_rows()), b(v.size());
  A.to_partitioned(v.data(), vp.data());
  A.apply(1.0, vp.data(), 0.0, bp.data());
  A.from_partitioned(bp.data(), b.data());
  return b;
}

app::solve_options quiet_host_solve(const std::string& source, const std::string& method) {
  app::solve_options o;
  o.source = source;
  o.method = method;
  o.backend = "host";
  o.history_every = 0;
  return o;
}

TEST(SolveCommand, JsonReportHasTheContractKeys) {
  const shared_temp_dir dir;
  for (const char* method : {"cg", "gmres"}) {
    auto o = quiet_host_solve("gen:poisson3d:8", method);
    o.json = dir / (std::string("solve_") + method + ".json");
    EXPECT_EQ(app::run_solve(o), 0);
    MPI_Barrier(MPI_COMM_WORLD);
    std::ifstream in(o.json);  // visible on every rank (one machine)
    EXPECT_TRUE(in.good()) << o.json;
    if (!in.good()) continue;
    const auto j = nlohmann::json::parse(in);
    for (const char* key : {"iterations", "converged", "final_relative_residual", "time_per_iteration_us",
                            "spmv_fraction", "ranks", "method", "matrix", "backend", "transport", "partition",
                            "residual_history", "git_revision"})
      EXPECT_TRUE(j.contains(key)) << key;
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    EXPECT_EQ(j["ranks"], ranks);
    EXPECT_EQ(j["method"], method);
    EXPECT_EQ(j["backend"], "host");
    EXPECT_EQ(j["converged"], true);
    EXPECT_LE(j["final_relative_residual"].get<double>(), 1e-8);
    EXPECT_LT(j["max_error_vs_ones"].get<double>(), 1e-6);
    EXPECT_GT(j["spmv_fraction"].get<double>(), 0.0);
    EXPECT_LE(j["spmv_fraction"].get<double>(), 1.0);
    EXPECT_EQ(j["residual_history"].size(), j["iterations"].get<std::size_t>() + 1);
  }
}

/// --rhs (HDF5 dataset b, or a Matrix Market array) and --output (dataset x) in the original row
/// order, whatever the partitioner does to the rows.
void expect_rhs_and_output_in_original_order(const std::string& rhs_kind, const std::string& partition) {
  const std::string source = "gen:poisson3d:7";
  const shared_temp_dir dir;
  const std::size_t n = 343;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1.0 + static_cast<double>(i) / n;  // not symmetric in i
  const auto b = product_in_original_order(source, v);
  auto o = quiet_host_solve(source, "gmres");
  o.partition = partition;
  o.output = dir / "x.h5";
  o.rhs = dir / (rhs_kind == "h5" ? "b.h5" : "b.mtx");
  if (world_rank() == 0) {
    if (rhs_kind == "h5") {
      write_h5_dataset(o.rhs, "b", b);
    } else {
      std::ofstream f(o.rhs);
      // A comment line past the 1 MiB line bound is skipped, not refused.
      f << "%%MatrixMarket matrix array real general\n% a comment\n%" << std::string(3 << 20, 'c') << "\n"
        << n << " 1\n";
      f.precision(17);
      for (double x : b) f << x << "\n";
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(app::run_solve(o), 0);
  double err = 0;
  if (world_rank() == 0) {
    const auto x = read_h5_dataset(o.output, "x");
    EXPECT_EQ(x.size(), n);
    for (std::size_t i = 0; i < std::min(n, x.size()); ++i) err = std::max(err, std::abs(x[i] - v[i]));
    EXPECT_LT(err, 1e-6) << rhs_kind << ", " << partition;
  }
}

TEST(SolveCommand, RhsFromHdf5OutputInOriginalOrderMetis) { expect_rhs_and_output_in_original_order("h5", "metis"); }
TEST(SolveCommand, RhsFromMatrixMarketOutputInOriginalOrderBlock) {
  expect_rhs_and_output_in_original_order("mtx", "block");
}

TEST(SolveCommand, NotConvergedExitsWithTwo) {
  auto o = quiet_host_solve("gen:poisson3d:8", "cg");
  o.max_iters = 2;
  EXPECT_EQ(app::run_solve(o), 2);
}

TEST(SolveCommand, BadRhsFailsOnEveryRank) {
  const shared_temp_dir dir;
  auto o = quiet_host_solve("gen:poisson3d:5", "cg");
  o.rhs = dir / "short.h5";
  if (world_rank() == 0) write_h5_dataset(o.rhs, "b", std::vector<double>(10, 1.0));
  MPI_Barrier(MPI_COMM_WORLD);
  std::string message;
  EXPECT_TRUE(throws_everywhere([&] { app::run_solve(o); }, &message));
  EXPECT_NE(message.find("has 10 entries, the matrix has 125 rows"), std::string::npos) << message;

  o.rhs = dir / "missing.h5";
  EXPECT_TRUE(throws_everywhere([&] { app::run_solve(o); }, &message));
  EXPECT_NE(message.find("missing.h5"), std::string::npos) << message;

  o.rhs = dir / "long_line.mtx";
  if (world_rank() == 0)
    std::ofstream(o.rhs) << "%%MatrixMarket matrix array real general\n125 1\n1\n" << std::string(2 << 20, '2') << "\n";
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(throws_everywhere([&] { app::run_solve(o); }, &message));
  EXPECT_NE(message.find("long_line.mtx: line 4: line is longer than this reader's limit of 1048576 bytes"),
            std::string::npos)
      << message;
}

// ---- MPI-aware GoogleTest main -----------------------------------------------------------------

/// On ranks other than 0: print nothing but failures, prefixed with the rank, so that a failure
/// on one rank only is visible (rank 0 prints the usual report).
class failure_printer : public ::testing::EmptyTestEventListener {
 public:
  explicit failure_printer(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                 r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace
}  // namespace distspmv::solvers

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = distspmv::solvers::world_rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new distspmv::solvers::failure_printer(rank));
  }
  // A failure on any rank fails the program on every rank.
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && failed) std::fprintf(stderr, "solvers_test: a test failed on at least one rank\n");
  MPI_Finalize();
  return failed;
}
