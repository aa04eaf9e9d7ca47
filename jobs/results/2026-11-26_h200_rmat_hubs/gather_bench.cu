// Microbenchmark: random 8-byte gathers from global (L2-resident), distributed shared memory
// (a cluster's smem), and local smem, alone and beside a coalesced matrix-like stream.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
namespace cg = cooperative_groups;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

struct params {
  const double* x; unsigned xmask;          // global gathers: x[idx & xmask]
  const double* sv; const int* sc; unsigned long long stream_n;  // stream (0: none)
  double* out; int iters; int slog;          // smem doubles = 1 << slog per block
  unsigned thresh;                           // mode 3: share of gathers (of 256) to dsmem
};

template <int MODE>
__global__ void bench(params p) {
  extern __shared__ double s[];
  cg::cluster_group cl = cg::this_cluster();
  const unsigned S = 1u << p.slog;
  const unsigned csize = cl.num_blocks();
  for (unsigned i = threadIdx.x; i < S; i += blockDim.x) s[i] = p.x[(cl.block_rank() * S + i) & p.xmask];
  cl.sync();
  const unsigned long long gtid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  const unsigned long long nthreads = gridDim.x * (unsigned long long)blockDim.x;
  unsigned h = (unsigned)gtid * 2654435761u + 12345u;
  double acc = 0;
  for (int it = 0; it < p.iters; ++it) {
    double v[8];
    double m[8];
    int c[8];
    if (p.stream_n) {
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        unsigned long long k = ((unsigned long long)(it * 8 + u) * nthreads + gtid) % p.stream_n;
        m[u] = __ldcs(p.sv + k);
        c[u] = __ldcs(p.sc + k);
      }
    } else {
#pragma unroll
      for (int u = 0; u < 8; ++u) { m[u] = 1.0; c[u] = 0; }
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      h = h * 1664525u + 1013904223u;
      unsigned idx = (h >> 4) ^ (unsigned)c[u];
      if (MODE == 0) {
        v[u] = __ldg(p.x + (idx & p.xmask));
      } else if (MODE == 1) {
        const unsigned r = idx & (csize - 1), off = (idx >> 4) & (S - 1);
        const double* q = cl.map_shared_rank(s, r);
        v[u] = q[off];
      } else if (MODE == 2) {
        v[u] = s[idx & (S - 1)];
      } else if (MODE == 4) {
        if (((h >> 24) & 255u) < p.thresh) v[u] = s[idx & (S - 1)];
        else v[u] = __ldg(p.x + (idx & p.xmask));
      } else {
        if (((h >> 24) & 255u) < p.thresh) {
          const unsigned r = idx & (csize - 1), off = (idx >> 4) & (S - 1);
          const double* q = cl.map_shared_rank(s, r);
          v[u] = q[off];
        } else {
          v[u] = __ldg(p.x + (idx & p.xmask));
        }
      }
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) acc += m[u] * v[u];
  }
  cl.sync();
  p.out[gtid] = acc;
}

template <int MODE>
float run(params p, int csize, int threads, int smem_bytes, int* grid_out) {
  auto k = bench<MODE>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
  if (csize > 8) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = csize; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr; cfg.numAttrs = 1;
  cfg.blockDim = dim3(threads); cfg.dynamicSmemBytes = smem_bytes;
  cfg.gridDim = dim3(csize * 1024);
  int clusters = 0;
  CK(cudaOccupancyMaxActiveClusters(&clusters, k, &cfg));
  if (clusters == 0) { printf("no cluster fits\n"); return -1; }
  cfg.gridDim = dim3(clusters * csize);
  *grid_out = clusters * csize;
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int rep = 0; rep < 7; ++rep) {
    CK(cudaEventRecord(a));
    CK(cudaLaunchKernelEx(&cfg, k, p));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[3];
}

int main(int argc, char** argv) {
  const unsigned long long sn = 64ull << 20;
  double *x, *sv, *out; int* sc;
  CK(cudaMalloc(&x, 64ull << 20));  // 8 M doubles
  CK(cudaMalloc(&sv, sn * 8)); CK(cudaMalloc(&sc, sn * 4));
  CK(cudaMalloc(&out, 64ull << 20));
  CK(cudaMemset(x, 0, 64ull << 20)); CK(cudaMemset(sv, 0, sn * 8)); CK(cudaMemset(sc, 0, sn * 4));
  struct cfg_t { const char* name; int mode, csize, threads, slog; unsigned xdoubles; unsigned thresh; };
  std::vector<cfg_t> cfgs = {
    {"global 32MiB 512t 8KiB", 0, 1, 512, 10, 1u << 22, 0},
    {"global 32MiB 512t 32KiB", 0, 1, 512, 12, 1u << 22, 0},
    {"global 32MiB 512t 64KiB", 0, 1, 512, 13, 1u << 22, 0},
    {"global 32MiB 1024t 128KiB", 0, 1, 1024, 14, 1u << 22, 0},
    {"local 33% 32KiB + global 32MiB", 4, 1, 512, 12, 1u << 22, 85},
    {"local 33% 64KiB + global 32MiB", 4, 1, 512, 13, 1u << 22, 85},
    {"local 62% 64KiB + global 32MiB", 4, 1, 512, 13, 1u << 22, 160},
    {"local 45% 128KiB 1024t + global", 4, 1, 1024, 14, 1u << 22, 115},
    {"local 33% 32KiB 256t + global", 4, 1, 256, 12, 1u << 22, 85},
    {"global 32MiB 256t 32KiB", 0, 1, 256, 12, 1u << 22, 0},
    {"global 2MiB", 0, 1, 512, 10, 1u << 18, 0},
    {"global 32MiB", 0, 1, 512, 10, 1u << 22, 0},
    {"local smem 64KiB", 2, 1, 512, 13, 1u << 18, 0},
    {"dsmem c2 64KiB/blk", 1, 2, 512, 13, 1u << 18, 0},
    {"dsmem c8 64KiB/blk", 1, 8, 512, 13, 1u << 18, 0},
    {"mix 60% c8 + 40% global 32MiB", 3, 8, 512, 13, 1u << 22, 154},
    {"mix 80% c8 + 20% global 32MiB", 3, 8, 512, 13, 1u << 22, 205},
  };
  for (int stream = 0; stream < 2; ++stream) {
    for (auto& c : cfgs) {
      params p{x, c.xdoubles - 1, sv, sc, stream ? sn : 0, out, 200, c.slog, c.thresh};
      int grid = 0;
      const int smem = 8 << c.slog;
      float ms = c.mode == 0 ? run<0>(p, c.csize, c.threads, smem, &grid)
               : c.mode == 1 ? run<1>(p, c.csize, c.threads, smem, &grid)
               : c.mode == 2 ? run<2>(p, c.csize, c.threads, smem, &grid)
               : c.mode == 3 ? run<3>(p, c.csize, c.threads, smem, &grid)
                             : run<4>(p, c.csize, c.threads, smem, &grid);
      const double gathers = (double)grid * c.threads * p.iters * 8;
      printf("%-34s stream=%d grid=%5d  %8.3f ms  %7.1f G gathers/s%s\n", c.name, stream, grid, ms, gathers / ms / 1e6,
             stream ? "  (+12 B streamed each)" : "");
      fflush(stdout);
    }
  }
  return 0;
}
