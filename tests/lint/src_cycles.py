#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""src_cycles.py NM OBJECT...: the call graph between source files (the capture library's; the
analyzer's with the shared vocabulary), from each object's defined and undefined symbols (nm),
must have no cycle: file A depends on file B
when A refers to an internal symbol (vt_*) B defines. The library's public names are not
dependencies between its files: the CUDA and NVTX entry points, dlsym and the vramtrace_*
annotations are called by the program, and the door table (resolve.c) only hands their
addresses out. Prints each cycle found (the files of one strongly connected
component, and the symbols that tie them) and exits 1; exits 0 with the layers, lowest first,
when there is none."""
import os
import subprocess
import sys


def symbols(nm, objects):
    """{object: (defined, undefined)} of global symbols, from one nm run."""
    out = subprocess.run([nm, "-A", "-P", "-g"] + objects, check=True, capture_output=True,
                         text=True).stdout
    table = {obj: (set(), set()) for obj in objects}
    for line in out.splitlines():
        where, _, rest = line.rpartition(": ")
        fields = rest.split()
        if where not in table or len(fields) < 2:
            continue
        undefined = fields[1] in ("U", "w", "v")  # w, v: weak and not defined here
        table[where][1 if undefined else 0].add(fields[0])
    return table


def source_name(obj):
    name = os.path.basename(obj)
    for suffix in (".o", ".obj"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iterative: the components in reverse topological order."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def main(argv):
    if len(argv) < 3:
        print("usage: src_cycles.py NM OBJECT...", file=sys.stderr)
        return 2
    nm, objects = argv[1], argv[2:]
    defined_by, uses = {}, {}
    for obj, (defined, undefined) in symbols(nm, objects).items():
        name = source_name(obj)
        uses[name] = undefined
        for sym in defined:
            defined_by[sym] = name
    edges = {name: set() for name in uses}
    why = {}
    for name, undefined in uses.items():
        for sym in undefined:
            target = defined_by.get(sym) if sym.startswith("vt_") else None
            if target is not None and target != name:
                edges[name].add(target)
                why.setdefault((name, target), []).append(sym)
    components = strongly_connected(sorted(edges), edges)
    cycles = [c for c in components if len(c) > 1]
    for cycle in cycles:
        print("cycle: " + " <-> ".join(cycle))
        for a in cycle:
            for b in cycle:
                if (a, b) in why:
                    print(f"  {a} -> {b}: {' '.join(sorted(why[(a, b)]))}")
    if cycles:
        return 1
    print("no cycle between " + str(len(edges)) + " files; lowest first:")
    for component in components:
        name = component[0]
        print(f"  {name} -> {' '.join(sorted(edges[name])) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
