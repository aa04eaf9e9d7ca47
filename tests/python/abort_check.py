# One rank's uncaught exception must not leave the other waiting: rank 1 fails before an apply
# that rank 0 enters; distspmv's excepthook aborts the job (MPI_Abort) at once. ctest passes on
# the "aborting" line and fails on its timeout if rank 0 hangs.
import numpy as np

import distspmv

A = distspmv.Matrix(None, "gen:poisson3d:10", backend="host")
if A.rank == 1:
    raise RuntimeError("rank 1 fails on its own")
A @ np.ones(A.local_rows)  # rank 0 waits here for rank 1's halo
print("rank 0 was not stopped")
