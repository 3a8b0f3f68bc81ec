#!/usr/bin/env python3
"""The house's rules, checked on every `make test` (README: "Layout").

- An include names its room ("engine/check.h", "cpu/kernels.h", "fpdiv_backend.h"); none climbs
  with "../".
- No include loop between modules (a module is a .c file and its .h: case.c including gen.h while
  gen.h includes case.h is a loop).
- common/ includes only common/, the own kernels' cpu/ and the plugin ABI; kernels/ include
  nothing of src/; only cli/ includes cli/.
Prints each breach with its file and line, and exits 1 if there is any.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROOMS = ("cli", "engine", "gen", "explain", "store", "backends", "common")


def sources():
    for top in ("src", "kernels", "include"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for name in sorted(names):
                if name.endswith((".c", ".h", ".cu", ".cuh")):
                    yield os.path.relpath(os.path.join(dirpath, name), ROOT)


def resolve(path, target):
    """The repository path an include names, or None for one outside the project."""
    here = os.path.normpath(os.path.join(os.path.dirname(path), target))
    for candidate in (here, "src/" + target, "kernels/" + target, "include/" + target):
        if os.path.isfile(os.path.join(ROOT, candidate)):
            return os.path.normpath(candidate)
    return None


def room(path):
    parts = path.split("/")
    if parts[0] == "src" and parts[1] in ROOMS:
        return parts[1]
    return parts[0]  # kernels, include


def module(path):
    return os.path.splitext(path)[0]


def main():
    breaches = []
    edges = {}
    for path in sources():
        edges.setdefault(module(path), [])
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                where = f"{path}:{number}"
                if "../" in target:
                    breaches.append(f"{where}: '{target}' climbs out of its room: name the room instead")
                found = resolve(path, target)
                if found is None:
                    breaches.append(f"{where}: '{target}' is no file of the project")
                    continue
                if module(found) != module(path):
                    edges.setdefault(module(path), []).append((module(found), where))
                src, dst = room(path), room(found)
                if src == "common" and dst not in ("common", "kernels", "include"):
                    breaches.append(f"{where}: common/ includes {found}: common code depends on nothing above it")
                if src == "kernels" and dst != "kernels":
                    breaches.append(f"{where}: a kernel includes {found}: kernels are arithmetic alone")
                if dst == "cli" and src != "cli":
                    breaches.append(f"{where}: {found} is the command line's: core code never includes it")
    # include loops: a depth-first search that reports each cycle once
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt, where in edges.get(node, []):
            if state.get(nxt) == "open":
                cycle = stack[stack.index(nxt):] + [nxt]
                breaches.append(f"{where}: include loop: {' -> '.join(cycle)}")
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)
    for b in breaches:
        print(b)
    print(f"layout: {len(edges)} modules, {sum(len(e) for e in edges.values())} includes between them, "
          f"{len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
