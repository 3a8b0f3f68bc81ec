#!/usr/bin/env python3
"""FPRev (https://github.com/peichenxie/FPRev, a checkout outside this project) on the order in
which NumPy's OpenBLAS sgemm sums element (0, 0) of an M x N x K product: bench_explain's
counterpart, run on the same library, shapes and threads.

Usage: fprev_gemm.py FPREV_DIR M N K TREE.dot [RUNS]
  Runs FPRev's fprev() RUNS times (default 1) on an AccumImpl built as FPRev's own NumpyGEMM is
  (A ones but +-2^127 at the masked terms of row 0, B ones; the count is K less C[0, 0]), at
  M x N x K instead of its K x K x K, and prints "seconds S queries Q agree yes|no": the best
  run's time in fprev(), the get_l() calls it made, and whether its tree is the one fpdiv wrote
  to TREE.dot (`fpdiv explain --dot`'s format: leaves labelled tI, edges parent -> child).

FPRev draws its tree with the graphviz package's Digraph; here a stand-in records the nodes and
edges instead, so the time is FPRev's queries and bookkeeping, without building DOT text.
"""
import re
import sys
import time
import types

import numpy


class Digraph:
    """What fprev() calls of graphviz.Digraph: node() and edge()."""

    def __init__(self):
        self.edges = []

    def node(self, name, label=None):
        pass

    def edge(self, tail, head):
        self.edges.append((int(tail), int(head)))


def import_fprev(directory):
    sys.modules["graphviz"] = types.SimpleNamespace(Digraph=Digraph)
    sys.path.insert(0, directory)
    import fprev

    return fprev


def gemm_impl(fprev, m, n, k):
    class Gemm(fprev.AccumImpl):
        def __init__(self):
            self.n_summands = k
            self.data = numpy.ones([m, k], dtype=numpy.float32)
            self.ones = numpy.ones([k, n], dtype=numpy.float32)
            self.calls = 0

        def set_mask(self, i, negative=False):
            self.data[0, i] = -(2.0**127) if negative else 2.0**127

        def reset_mask(self, i):
            self.data[0, i] = 1

        def get_l(self):
            self.calls += 1
            return self.n_summands - int((self.data @ self.ones)[0, 0])

    return Gemm()


def canonical(children, node):
    """A tree as nested frozensets of its leaves' term numbers: the same for the same order."""
    below = children.get(node)
    if not below:
        return node
    return frozenset(canonical(children, c) for c in below)


def fprev_tree(edges, k):
    """FPRev's edges run child -> parent; leaves are 0..k-1 (internal nodes are numbered past k)."""
    children, parents = {}, set()
    for tail, head in edges:
        children.setdefault(head, []).append(tail)
        parents.add(tail)
    roots = [node for node in children if node not in parents]
    return canonical(children, roots[0]) if roots else 0


def fpdiv_tree(path):
    leaf, children, parents = {}, {}, set()
    for line in open(path):
        if m := re.match(r'\s*n(\d+) \[label="t(\d+)"', line):
            leaf[int(m.group(1))] = int(m.group(2))
        elif m := re.match(r"\s*n(\d+) -> n(\d+);", line):
            children.setdefault(int(m.group(1)), []).append(int(m.group(2)))
            parents.add(int(m.group(2)))

    def form(node):
        if node in leaf:
            return leaf[node]
        return frozenset(form(c) for c in children[node])

    roots = [node for node in children if node not in parents]
    return form(roots[0]) if roots else form(next(iter(leaf)))


def main():
    directory, m, n, k, dot = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5]
    runs = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    fprev = import_fprev(directory)
    best, tree, calls = float("inf"), None, 0
    for _ in range(runs):
        impl = gemm_impl(fprev, m, n, k)
        start = time.perf_counter()
        graph = fprev.fprev(impl)
        took = time.perf_counter() - start
        if took < best:
            best, tree, calls = took, graph, impl.calls
    agree = fprev_tree(tree.edges, k) == fpdiv_tree(dot)
    print(f"seconds {best:.4f} queries {calls} agree {'yes' if agree else 'no'}")


if __name__ == "__main__":
    main()
