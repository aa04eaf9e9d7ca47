// Host cost of the calls on an apply's path (experiment, not part of the build).
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
__global__ void empty_kernel(double* p) { if (p == nullptr && threadIdx.x == 1) p[0] = 1; }
int main() {
  double* d; cudaMalloc(&d, 1 << 20);
  double* h = new double[1024];
  cudaStream_t s; cudaStreamCreate(&s);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto us = [](auto t0, auto t1, int n) { return std::chrono::duration<double, std::micro>(t1 - t0).count() / n; };
  const int n = 20000;
  cudaPointerAttributes attr;
  for (int i = 0; i < 100; ++i) cudaPointerGetAttributes(&attr, d);
  auto t0 = now(); for (int i = 0; i < n; ++i) cudaPointerGetAttributes(&attr, d); auto t1 = now();
  printf("cudaPointerGetAttributes(device) %.3f us\n", us(t0, t1, n));
  t0 = now(); for (int i = 0; i < n; ++i) cudaPointerGetAttributes(&attr, h); t1 = now();
  printf("cudaPointerGetAttributes(host)   %.3f us\n", us(t0, t1, n));
  t0 = now(); for (int i = 0; i < n; ++i) cudaGetLastError(); t1 = now();
  printf("cudaGetLastError                 %.3f us\n", us(t0, t1, n));
  t0 = now(); for (int i = 0; i < n; ++i) { empty_kernel<<<1, 32, 0, s>>>(d); if (i % 1000 == 999) cudaStreamSynchronize(s); } t1 = now();
  cudaStreamSynchronize(s);
  printf("launch (queued)                  %.3f us\n", us(t0, t1, n));
  t0 = now(); for (int i = 0; i < n; ++i) cudaEventRecord(a, s); t1 = now();
  printf("cudaEventRecord                  %.3f us\n", us(t0, t1, n));
  // Event-timed single launch on an idle GPU, as distspmv times an apply.
  float tot = 0; int m = 2000;
  for (int i = 0; i < m; ++i) { cudaEventRecord(a, s); empty_kernel<<<132, 256, 0, s>>>(d); cudaEventRecord(b, s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); tot += ms; }
  printf("event-timed empty kernel (idle)  %.3f us\n", 1000 * tot / m);
  tot = 0;
  for (int i = 0; i < m; ++i) { cudaEventRecord(a, s); cudaPointerGetAttributes(&attr, d); cudaPointerGetAttributes(&attr, d); empty_kernel<<<132, 256, 0, s>>>(d); cudaGetLastError(); cudaEventRecord(b, s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); tot += ms; }
  printf("  + 2 attribute queries          %.3f us\n", 1000 * tot / m);
  return 0;
}
