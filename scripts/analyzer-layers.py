#!/usr/bin/env python3
"""Print the include arrows between the analyzer's layers (read, model, analyses, render, export): for each pair, how
many #include "LAYER/..." lines of one layer's files name the other's headers; -v lists them. Exit status 1 when an
arrow runs against the order the build enforces (analyzer/CMakeLists.txt): read -> model <- analyses <- render,
export -> model and render's JSON writer.  Usage: scripts/analyzer-layers.py [-v] [ANALYZER_DIR]"""
import collections
import os
import re
import sys

LAYERS = ["read", "model", "analyses", "render", "export"]
ALLOWED = {("read", "model"), ("analyses", "model"), ("render", "analyses"), ("export", "model"), ("export", "render")}
INCLUDE = re.compile(r'#\s*include\s+"(%s)/([^"]+)"' % "|".join(LAYERS))


def arrows(root):
    found = collections.defaultdict(list)
    for layer in LAYERS:
        for folder, _, files in os.walk(os.path.join(root, layer)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    for line in f:
                        m = INCLUDE.search(line)
                        if m and m.group(1) != layer:
                            found[(layer, m.group(1))].append("%s -> %s/%s" % (name, m.group(1), m.group(2)))
    return found


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer")
    bad = 0
    for (a, b), lines in sorted(arrows(root).items()):
        against = (a, b) not in ALLOWED
        bad += against
        print("%s -> %s: %d include%s%s" % (a, b, len(lines), "" if len(lines) == 1 else "s",
                                             "   AGAINST THE ORDER" if against else ""))
        if verbose or against:
            for line in lines:
                print("    " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
