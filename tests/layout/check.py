#!/usr/bin/env python3
"""The house's rules, checked on every `make test` (doc/development.md: "Layout").

- An include names its room ("engine/check.h", "cpu/kernels.h", "fpdiv_backend.h"); none climbs
  with "../".
- No include loop between modules (a module is a .c file and its .h: case.c including gen.h while
  gen.h includes case.h is a loop).
- common/ includes only common/, the own kernels' cpu/ and the plugin ABI; kernels/ include
  nothing of src/; only cli/ includes cli/, and only cli/ and report/ include report/ (what results
  look like sits above the engine, never inside it).
- src/cli/ holds the commands and their option parsing alone: main.c, cmd.h, cmd_*.c, cli*.[ch].
- With --objects DIR (the build's objects, as `make test` gives): no circle of calls between
  modules, which includes cannot show (report_saved.c defining a function that report_page.h
  declared, while calling report_page.c's): a module's object uses a symbol another module's object
  defines, and the other, through any path, one of its.
Prints each breach with its file and line, and exits 1 if there is any.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROOMS = ("cli", "report", "engine", "gen", "explain", "store", "backends", "common")
CLI_FILE = re.compile(r"^(main\.c|cmd\.h|cmd_\w+\.c|cli(_\w+)?\.[ch])$")


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


def strongly_connected(graph):
    """The components of more than one node of a directed graph {node: {next: label}} (Tarjan's
    algorithm, iterative: a module graph is deep enough to matter)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, nexts = work[-1]
            advanced = False
            for nxt in nexts:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, {})))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def call_circles(objects):
    """Breaches for each circle of calls between the modules whose objects are under `objects`."""
    defined, used = {}, {}
    for top in ("src", "kernels"):
        for dirpath, _, names in os.walk(os.path.join(objects, top)):
            for name in sorted(names):
                if not name.endswith(".o"):
                    continue
                obj = os.path.join(dirpath, name)
                mod = os.path.splitext(os.path.relpath(obj, objects))[0]
                if not os.path.exists(mod + ".c"):
                    continue  # a stale object of a source since moved or deleted: not in the build
                listing = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
                for line in listing.splitlines():
                    fields = line.split()
                    if len(fields) < 2:
                        continue
                    symbol, kind = fields[0], fields[1]
                    if kind == "U":
                        used.setdefault(mod, set()).add(symbol)
                    elif kind in "TDBRCGSV":  # defined, global
                        defined.setdefault(symbol, mod)
    if not defined:
        return [f"{objects}: no objects of src/ or kernels/ there (build first)"]
    graph = {}
    for mod, symbols in used.items():
        for symbol in sorted(symbols):
            owner = defined.get(symbol)
            if owner and owner != mod:
                graph.setdefault(mod, {}).setdefault(owner, symbol)
    breaches = []
    for component in strongly_connected(graph):
        members = set(component)
        calls = [f"{m}.c -> {n}.c ({graph[m][n]})" for m in component for n in sorted(graph.get(m, {})) if n in members]
        breaches.append(f"a circle of calls between {', '.join(m + '.c' for m in component)}: " + "; ".join(calls))
    return breaches


def main():
    parser = argparse.ArgumentParser(description="The house's layout rules.")
    parser.add_argument("--objects", help="the build's object directory (build/obj): also look for circles of calls")
    args = parser.parse_args()
    breaches = []
    edges = {}
    for path in sources():
        edges.setdefault(module(path), [])
        parts = path.split("/")
        if parts[:2] == ["src", "cli"] and not CLI_FILE.match(parts[-1]):
            breaches.append(f"{path}: src/cli/ holds the commands and their option parsing; "
                            "what results look like goes in src/report/")
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
                if dst == "report" and src not in ("cli", "report"):
                    breaches.append(f"{where}: {found} is the report room's: the engine and below never format results")
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
    if args.objects:
        breaches += call_circles(args.objects)
    for b in breaches:
        print(b)
    print(f"layout: {len(edges)} modules, {sum(len(e) for e in edges.values())} includes between them"
          f"{', their calls' if args.objects else ''}, {len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
