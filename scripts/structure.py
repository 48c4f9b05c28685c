#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The structure figures of src/ and lib/ from the call graph between files.

Usage: scripts/structure.py [--list] [--namesakes] [ROOT]

A .c file points at another when it names (calls, or takes the address of)
a function defined there; a name is resolved the way the linker does: a
static function stays inside its file, and a file's own definition wins.
With --namesakes a file's own static
function does not hide another file's function of the same name (what a
reader going by names sees: two namesakes make an arrow). Reads the sources
with Universal Ctags; needs no build. Prints three figures:

  circles between folders   groups of folders reaching each other (strongly
                            connected components of the folder graph)
  arrows back up            folder-to-folder arrows pointing to a higher layer
                            (the layers of scripts/check_layers.sh)
  circles inside folders    groups of two or more files of one folder that
                            reach each other (strongly connected components)

--list names each of them. Exit status 0 always: the figures are a report.
"""
import os
import re
import subprocess
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
NAMESAKES = "--namesakes" in sys.argv
LIST = "--list" in sys.argv
root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
root = os.path.abspath(root)


def layers():
    text = open(os.path.join(root, "scripts/check_layers.sh")).read()
    m = re.search(r"LAYERS='([^']*)'", text)
    rank = {}
    for n, line in enumerate(m.group(1).split("\n")):
        for a in line.split():
            rank[a] = n
    return rank


def sources():
    out = []
    for top in ("src", "lib"):
        for d, _, files in os.walk(os.path.join(root, top)):
            if "/probe" in d:
                continue
            for f in files:
                if f.endswith((".c", ".h", ".inc")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def node(path):
    # A header and the .c beside it are one node: an inline in foo.h is foo's.
    base, ext = os.path.splitext(path)
    if ext == ".h" and os.path.exists(os.path.join(root, base + ".c")):
        return base + ".c"
    return path


def folder(path):
    parts = path.split("/")
    return parts[1] if parts[0] == "src" else "lib"


files = sources()
tags = subprocess.run(
    ["ctags", "-x", "--_xformat=%N\t%K\t%F\t%{file}", "--kinds-C=f", "--language-force=C"]
    + files, cwd=root, capture_output=True, text=True).stdout
defs = {}  # name -> [(node, is_static)]
for line in tags.splitlines():
    name, kind, path, static = (line.split("\t") + ["", "", "", ""])[:4]
    if kind != "function" or name == "main":  # every program has its own
        continue
    defs.setdefault(name, []).append((node(path), static == "file"))

ident = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
strip = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', re.S)
edges = set()
for path in files:
    if path.endswith(".h"):
        continue  # a prototype is not a call; inline bodies are rare and local
    src = node(path)
    text = strip.sub(" ", open(os.path.join(root, path), errors="replace").read())
    for name in set(ident.findall(text)):
        for dst, static in defs.get(name, ()):
            if dst == src:
                continue
            if static:
                continue  # a static stays in its file
            if not NAMESAKES and any(d == src for d, _ in defs[name]):
                continue  # our own definition wins
            edges.add((src, dst))


def sccs(nodes, adj):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        work = [(v, iter(adj.get(v, ())))]
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            u, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[u])
                if low[u] == index[u]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == u:
                            break
                    out.append(sorted(comp))
            elif nxt not in index:
                index[nxt] = low[nxt] = n[0]
                n[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(adj.get(nxt, ()))))
            elif nxt in on:
                low[u] = min(low[u], index[nxt])

    for v in nodes:
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


rank = layers()
fedges = {}
for a, b in edges:
    fa, fb = folder(a), folder(b)
    if fa != fb:
        fedges.setdefault((fa, fb), []).append((a, b))
fol = sorted({f for e in fedges for f in e})
fadj = {}
for a, b in fedges:
    fadj.setdefault(a, []).append(b)
circles = sccs(fol, fadj)
up = [(a, b) for (a, b) in fedges if a in rank and b in rank and rank[b] < rank[a]]
inside = []
for f in sorted({folder(n) for n in {x for e in edges for x in e}}):
    nodes = sorted({x for e in edges for x in e if folder(x) == f})
    adj = {}
    for a, b in edges:
        if folder(a) == f and folder(b) == f:
            adj.setdefault(a, []).append(b)
    inside += sccs(nodes, adj)

print("circles between folders: %d" % len(circles))
if LIST:
    for c in circles:
        print("  " + " ".join(c))
print("arrows back up: %d" % len(up))
if LIST:
    for a, b in sorted(up):
        print("  %s -> %s via %s" % (a, b, ", ".join("%s->%s" % e for e in sorted(fedges[(a, b)])[:3])))
print("circles inside folders: %d" % len(inside))
if LIST:
    for c in inside:
        print("  " + " ".join(c))
