#!/usr/bin/env python3
"""P A P^T for a random permutation P, Matrix Market in and out (issue 15's relabelled inputs).

    jobs/relabel_mtx.py IN.mtx[.gz] OUT.mtx[.gz] [SEED]

Hides the locality of a matrix's numbering (as tests/support's randomly_relabelled does in the
tests), so that `--partition auto` can be measured on the GPU machine on matrices whose numbering
tells nothing. Square coordinate matrices only; the field and symmetry are kept (a symmetric
matrix keeps its lower triangle: an entry that lands above the diagonal is mirrored).
"""
import gzip
import random
import sys


def open_text(path, mode):
    return gzip.open(path, mode + "t") if path.endswith(".gz") else open(path, mode)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 42
    with open_text(src, "r") as f:
        header = f.readline()
        words = header.lower().split()
        if len(words) < 5 or words[1] != "matrix" or words[2] != "coordinate":
            sys.exit(f"{src}: line 1: not a Matrix Market coordinate matrix: {header.strip()}")
        symmetric = words[4] != "general"
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        rows, cols, nnz = (int(t) for t in line.split())
        if rows != cols:
            sys.exit(f"{src}: {rows} x {cols} is not square")
        perm = list(range(1, rows + 1))
        random.Random(seed).shuffle(perm)
        entries = []
        for number, line in enumerate(f, start=3):
            t = line.split()
            if not t or t[0].startswith("%"):
                continue
            i, j = perm[int(t[0]) - 1], perm[int(t[1]) - 1]
            if symmetric and i < j:
                i, j = j, i
            entries.append((i, j, " ".join(t[2:])))
    if len(entries) != nnz:
        sys.exit(f"{src}: {len(entries)} entries, the size line says {nnz}")
    entries.sort()
    with open_text(dst, "w") as f:
        f.write(header)
        f.write(f"% {src} relabelled by jobs/relabel_mtx.py, seed {seed}\n{rows} {cols} {nnz}\n")
        for i, j, v in entries:
            f.write(f"{i} {j} {v}\n".replace("  ", " ") if v else f"{i} {j}\n")


if __name__ == "__main__":
    main()
