// The merge-path search of the merge CSR kernel (Merrill & Garland, SC16), shared by the host
// partition (csr_build.cpp), the kernel's per-thread search (csr_cuda.cu) and the tests, so that
// the three cannot disagree on which items a block or a thread owns.
//
// The work is the merge of two sorted lists: the row ends row_ptr[1..rows] and the nonzero indices
// 0..nnz-1. Walking the merge, a row is consumed (its sum is complete) when its end is <= the next
// nonzero index, otherwise that nonzero is consumed. After d steps the walk stands at (rows
// consumed, nonzeros consumed) = (i, d - i); splitting d evenly splits rows + nnz evenly, so neither
// one long row nor many empty rows unbalance the work. Invariant at (i, j), i < rows:
// row_ptr[i] <= j <= row_ptr[i + 1].
#pragma once

#if defined(__CUDACC__)
#define DSPMV_MERGE_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define DSPMV_MERGE_HOST_DEVICE inline
#endif

namespace distspmv::csr {

/// Rows consumed after `diagonal` steps of the merge of row_end(0..rows-1) with 0..nnz-1 (ties go
/// to the row, so an empty row is consumed before the next nonzero). Binary search on the
/// diagonal: O(log min(rows, nnz)).
template <typename I, typename RowEnd>
DSPMV_MERGE_HOST_DEVICE I merge_path_rows(I diagonal, I rows, I nnz, RowEnd row_end) {
  I lo = diagonal > nnz ? diagonal - nnz : I(0);
  I hi = diagonal < rows ? diagonal : rows;
  while (lo < hi) {
    const I pivot = lo + (hi - lo) / 2;
    // Row `pivot` comes before nonzero diagonal - pivot - 1 on the path: take more rows.
    if (row_end(pivot) <= diagonal - pivot - 1)
      lo = pivot + 1;
    else
      hi = pivot;
  }
  return lo;
}

}  // namespace distspmv::csr
