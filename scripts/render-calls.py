#!/usr/bin/env python3
"""Print, for each file of analyzer/render/, the other render files it calls (references a function or variable
defined there, ctags) and includes, then the call order (layers) and every cycle among them; exit 1 on a cycle or
on an arrow against the rooms' order: render.c (the format table) -> a format's files (text/, json/, md/, html/)
-> words/ (what every format words the same); no format calls another's files, words/ calls none of them.
A header and the .c file of the same name in the same folder count as one module (text/text_style.h with
text/text_style.c). Usage: scripts/render-calls.py [-v] [RENDER_DIR]"""
import json
import os
import re
import subprocess
import sys

FORMATS = ("text", "json", "md", "html")


def room(path):
    top = path.split("/")[0]
    if path == "render.c":
        return "dispatcher"
    if top in FORMATS or top == "words":
        return top
    if top == "include":
        return "public"
    return "other"


def strip_c(src):
    """Source without comments, string and character literals (so a name in a comment is no call)."""
    out = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    out = re.sub(r"//[^\n]*", " ", out)
    out = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', out)
    return re.sub(r"'(?:\\.|[^'\\\n])*'", "''", out)


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    verbose = "-v" in sys.argv[1:]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", "analyzer", "render"))
    files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
                   if f.endswith((".c", ".h")))
    tags = subprocess.run(["ctags", "-R", "--output-format=json", "--fields=+KS", "--kinds-C=fv", "--extras=-F",
                           "-f", "-", "."], cwd=root, capture_output=True, text=True, check=True).stdout
    defined = {}                     # name -> file defining it (non-static functions and variables)
    for line in tags.splitlines():
        t = json.loads(line)
        path = os.path.normpath(t["path"])
        if path.endswith(".c"):
            defined.setdefault(t["name"], set()).add(path)

    def module(path):               # a header goes with the .c file of its name in its folder
        stem = path[:-2]
        return stem + ".c" if path.endswith(".h") and stem + ".c" in files else path

    edges, calls, incs = {}, {}, {}
    for path in files:
        src = open(os.path.join(root, path), encoding="utf-8").read()
        me = module(path)
        for name in re.findall(r'#include\s+"([^"]+)"', src):
            for base in (os.path.dirname(path), "", "include"):
                cand = os.path.normpath(os.path.join(base, name))
                if cand in files:
                    incs.setdefault(path, set()).add(cand)
                    if module(cand) != me:
                        edges.setdefault(me, set()).add(module(cand))
                    break
        if not path.endswith(".c"):
            continue
        for word in set(re.findall(r"\b[A-Za-z_]\w*\b", strip_c(src))):
            for where in defined.get(word, ()):
                if where != path:
                    calls.setdefault(path, set()).add(where)
                    edges.setdefault(me, set()).add(module(where))

    for path in files:
        if path.endswith(".h") and module(path) != path:
            continue                  # listed with its .c file
        c = sorted(calls.get(path, ()))
        i = sorted(set(incs.get(path, ())) | set(incs.get(path[:-2] + ".h", ())) - {path[:-2] + ".h"})
        print(f"{path}\n    calls:    {', '.join(c) or '-'}")
        if verbose or i:
            print(f"    includes: {', '.join(i) or '-'}")

    # cycles: strongly connected components of more than one module (Tarjan)
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted({module(p) for p in files}):
        if v not in index:
            visit(v)
    bad = 0
    for comp in sccs:
        print("CYCLE: " + " <-> ".join(comp))
        bad = 1

    # the rooms' order
    rank = {"dispatcher": 3, "text": 2, "json": 2, "md": 2, "html": 2, "words": 1, "public": 0, "other": 0}
    for v, ws in sorted(edges.items()):
        for w in sorted(ws):
            a, b = room(v), room(w)
            if b == "public":
                continue              # the public headers: contracts anyone may include
            if rank[b] > rank[a] or (rank[a] == rank[b] == 2 and a != b) or (a == "words" and b != "words"):
                print(f"AGAINST THE ORDER: {v} ({a}) -> {w} ({b})")
                bad = 1

    # the order: each .c file above every file it calls (its level: 1 + the highest level it calls)
    depth = {}

    def level(v, seen=()):
        if v not in depth:
            below = [level(w, seen + (v,)) for w in calls.get(v, ()) if w not in seen]
            depth[v] = 1 + max(below, default=-1)
        return depth[v]

    for v in files:
        if v.endswith(".c"):
            level(v)
    print("\nCall order (a file calls only files on lower levels):")
    for lvl in sorted(set(depth.values()), reverse=True):
        print(f"  {lvl}: {', '.join(sorted(v for v in depth if depth[v] == lvl))}")
    print("no cycles" if not sccs else f"{len(sccs)} cycle(s)")
    return bad


if __name__ == "__main__":
    sys.exit(main())
