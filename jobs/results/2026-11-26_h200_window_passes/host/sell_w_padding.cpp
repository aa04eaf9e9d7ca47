// From the repository root, after the cpu-release build: g++ -O2 -std=c++17 -fopenmp -I. FILE \
//   build/cpu-release/local_kernels/libdistspmv_local_kernels.a build/cpu-release/io/libdistspmv_io.a \
//   build/cpu-release/common/libdistspmv_common.a
// Where sell-w's padding lies: per slice, width*32 - nnz; share of padding in slices whose
// padding ratio exceeds t.
#include <cstdio>
#include <vector>
#include <algorithm>
#include "io/generators.hpp"
#include "local_kernels/sell/sell.hpp"
using namespace distspmv;
int main(int argc, char** argv) {
  auto a = convert_csr<double, index_type>(io::generate(argv[1]));
  sell::sell_params p{32, 0, 1, true, true};
  auto s = sell::build(a, p);
  const long slices = (long)s.slice_ptr.size() - 1;
  std::vector<std::pair<double,std::pair<long,long>>> v;  // ratio, (slots, nnz)
  long slots = 0, nnz = 0;
  for (long q = 0; q < slices; ++q) {
    long sl = s.slice_ptr[q+1] - s.slice_ptr[q]; long n = 0;
    for (int l = 0; l < 32; ++l) { long i = q*32+l; if (i < (long)s.rows) n += s.row_length[i]; }
    slots += sl; nnz += n; v.push_back({n ? double(sl)/n : 1e9, {sl, n}});
  }
  std::printf("%s: nnz %ld slots %ld padding %.4f\n", argv[1], nnz, slots, double(slots)/nnz);
  for (double t : {1.05, 1.1, 1.2, 1.3, 1.5, 2.0, 3.0}) {
    long ps = 0, pn = 0, cnt = 0;
    for (auto& e : v) if (e.first > t) { ps += e.second.first; pn += e.second.second; ++cnt; }
    // CSR-rows slices: nnz slots + 32 row offsets (4 B each ~ 0.4 slot of 10 B)
    double after = double(slots - ps + pn + cnt * 13) / nnz;
    std::printf("  slices with ratio > %.2f: %ld (%.2f%%), padding there %ld of %ld (%.1f%%); padding after %.4f\n",
                t, cnt, 100.0*cnt/slices, ps-pn, slots-nnz, 100.0*(ps-pn)/(slots-nnz), after);
  }
}
