#!/usr/bin/env python3
"""The analyzer's layers, from its source alone (docs/design.md, "Parts and arrows"; analyzer/CMakeLists.txt).

Checks, and prints every violation (rule, file, name) with a summary; exit status 1 when there is one:
  layers     read -> model; analyses -> model; render -> analyses; export -> model and render's JSON writer
             (render/json_writer.*); nothing else between the layers, by #include or by call; nothing under
             analyzer/ uses tui/, cli/ or another part (common/ is everyone's); tui/ and cli/ may use all of it.
  families   inside analyzer/analyses/, a family's files call only functions defined in its own family or an
             earlier one, and include only private headers (beside the sources) of those; the public headers
             (analyses/include/analyses/*.h) are anyone's. The order is ps_analyses_families in
             analyzer/CMakeLists.txt.
  circles    no circle between files under analyzer/: file A calls or includes something of B and B, maybe through
             others, of A (a .c and its own header beside it are one file here; a public header under include/ is
             a contract of its own: types and declarations, which call nothing).
  renderers  analyzer/render/ and tui/ call of the analyses only the lookups and text helpers of RENDER_MAY_CALL
             (and tui/, for `top`'s window, TOP_MAY_CALL): renderers print what the analyses computed.
A "call" is any use of a function's name outside a member access (a callback passed counts); functions are the
non-static ones defined in .c/.cc/.cu files, found by a small C tokenizer (comments, strings and preprocessor lines
set apart; #define bodies count as uses of their file).

  --figures  files and lines per layer and per family, non-static functions of 90 lines or more, and every circle
             in the whole source tree (every part, tests and benchmarks aside); exit 0.
Usage: check_layers.py [--figures] [SOURCE_ROOT]"""
import bisect
import collections
import os
import re
import sys

LAYERS = ["read", "model", "analyses", "render", "export"]
LAYER_MAY_USE = {"read": {"model"}, "model": set(), "analyses": {"model"}, "render": {"analyses"},
                 "export": {"model", "render"}}
EXPORT_RENDER_STEM = "json_writer"   # the one part of render that export may use: json_writer.c and its header
PARTS = ["analyzer", "cli", "collector", "common", "probe", "python", "tui", "workloads"]
OUTSIDE = {"tests", "fuzz", "bench", "build", "docs", "packaging", "scripts"}
# Lookups and text helpers of the analyses that renderers (render/, tui/) may call.
RENDER_MAY_CALL = {
    "ps_report_name", "ps_report_message", "ps_report_meta_entry", "ps_copy_kind_name", "ps_mem_kind_name",
    "ps_copy_src_mem_name", "ps_names_base_len", "ps_report_opts_default",
    "ps_op_params_short",   # an operator's parameters as short text (analyses/roofline.h)
}
# `perfscope top` (tui/) also builds the report of its window and frees it.
TOP_MAY_CALL = {"ps_ranks_report_compute_view", "ps_report_fini"}
SOURCE_EXT = (".c", ".cc", ".cpp", ".cu")
HEADER_EXT = (".h", ".hh", ".hpp", ".cuh")

TOKEN = re.compile(r"""
    (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<pp>^[ \t]*\#(?:\\\n|[^\n])*)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)
  | (?P<punct>->|::|[{}()\[\];,.=:])
  | (?P<other>\S)
""", re.S | re.M | re.X)
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"')
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)]*\))?(.*)", re.S)
# A name after these is a member or a struct / union / enum tag, never a function's use (struct ps_diff_memory).
TAG_OR_MEMBER = {".", "->", "struct", "union", "enum"}
SKIP_BEFORE_BRACE = {"const", "noexcept", "override", "final"}
ATTRIBUTES = {"__attribute__", "__declspec", "__attribute", "alignas", "_Alignas"}


class Source:
    """One file: its #include "..." lines, the functions it defines and the names it uses."""

    def __init__(self, root, rel):
        self.rel = rel
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        self.lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        self.includes = []
        self.defs = {}          # name -> (static, first line, last line)
        self.uses = set()
        starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        toks = []               # (kind, text, line)
        for m in TOKEN.finditer(text):
            kind = m.lastgroup
            if kind == "comment":
                continue
            if kind == "pp":
                inc = INCLUDE.match(m.group())
                if inc:
                    self.includes.append(inc.group(1))
                d = DEFINE.match(m.group())
                if d:
                    self._uses_of(d.group(1))
                continue
            toks.append((kind, m.group(), bisect.bisect_right(starts, m.start())))
        self._scan(toks)

    def _uses_of(self, text):
        prev = None
        for m in TOKEN.finditer(text):
            if m.lastgroup == "ident" and prev not in TAG_OR_MEMBER:
                self.uses.add(m.group())
            if m.lastgroup != "comment":
                prev = m.group()

    def _scan(self, toks):
        stack = []              # per open brace: "code", or "open" (extern "C", namespace: still file scope)
        hidden = 0              # depth of anonymous namespaces (internal linkage)
        initializer = False     # at file scope, between "=" and ";"
        for i, (kind, t, line) in enumerate(toks):
            inside = "code" in stack
            if not inside:      # a declaration names a function without using it; its initializer uses
                initializer = (initializer or t == "=") and t != ";"
            if kind == "ident" and (inside or initializer) and (i == 0 or toks[i - 1][1] not in TAG_OR_MEMBER):
                self.uses.add(t)
            if t == "}":
                if stack and stack.pop() == "hidden":
                    hidden -= 1
                continue
            if t != "{":
                continue
            at_file_scope = all(s != "code" for s in stack)
            if at_file_scope and i >= 2 and toks[i - 2][1] == "extern" and toks[i - 1][0] == "string":
                stack.append("open")
                continue
            if at_file_scope and toks[i - 1][1] == "namespace":
                stack.append("hidden")
                hidden += 1
                continue
            if at_file_scope and i >= 2 and toks[i - 2][1] == "namespace":
                stack.append("open")
                continue
            stack.append("code")
            if at_file_scope:
                self._definition(toks, i, hidden)
        self.uses -= set(self.defs)

    def _definition(self, toks, brace, hidden):
        """The function whose body opens at toks[brace], if any."""
        j = brace - 1
        while j >= 0 and toks[j][1] in SKIP_BEFORE_BRACE:
            j -= 1
        while j >= 0 and toks[j][1] == ")":
            k = _matching_open(toks, j)
            if k is None or k == 0:
                return
            name_kind, name, line = toks[k - 1]
            if name in ATTRIBUTES:
                j = k - 2
                continue
            if name_kind != "ident" or (k >= 2 and toks[k - 2][1] in ("::", ".", "->", "=")):
                return
            static = hidden > 0 or "static" in _specifiers(toks, k - 2)
            end = _matching_close(toks, brace)
            self.defs[name] = (static, line, toks[end][2] if end is not None else line)
            return


def _matching_open(toks, j):
    depth = 0
    while j >= 0:
        if toks[j][1] == ")":
            depth += 1
        elif toks[j][1] == "(":
            depth -= 1
            if depth == 0:
                return j
        j -= 1
    return None


def _matching_close(toks, i):
    depth = 0
    while i < len(toks):
        if toks[i][1] == "{":
            depth += 1
        elif toks[i][1] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _specifiers(toks, j):
    """The words before a declarator back to the previous declaration (attributes skipped)."""
    words = []
    while j >= 0 and toks[j][1] not in (";", "{", "}"):
        if toks[j][1] == ")":
            k = _matching_open(toks, j)
            if k is None or k == 0 or toks[k - 1][1] not in ATTRIBUTES:
                break               # the end of a macro call (DEFINE_SORT(...)) or of a previous declaration
            j = k - 2
            continue
        words.append(toks[j][1])
        j -= 1
    return words


class Tree:
    """Every C/C++ file of the parts, with includes resolved, definitions indexed and files grouped in nodes."""

    def __init__(self, root):
        self.root = root
        self.files = {}
        for part in sorted(os.listdir(root)):
            if part in OUTSIDE or part.startswith(".") or not os.path.isdir(os.path.join(root, part)):
                continue
            for folder, dirs, names in os.walk(os.path.join(root, part)):
                dirs.sort()
                for name in sorted(names):
                    if name.endswith(SOURCE_EXT + HEADER_EXT):
                        rel = os.path.relpath(os.path.join(folder, name), root)
                        self.files[rel] = Source(root, rel)
        by_suffix = collections.defaultdict(list)
        for rel in self.files:
            parts = rel.split("/")
            for n in range(1, len(parts) + 1):
                by_suffix["/".join(parts[-n:])].append(rel)
        self.includes = {}      # file -> [(header as written, file it resolves to)]
        for rel, src in self.files.items():
            resolved = []
            for inc in src.includes:
                beside = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
                if beside in self.files:
                    resolved.append((inc, beside))
                elif by_suffix.get(inc):
                    resolved.append((inc, max(by_suffix[inc], key=lambda c: (_common(c, rel), c))))
            self.includes[rel] = resolved
        self.definers = collections.defaultdict(list)   # non-static function -> files defining it
        for rel, src in sorted(self.files.items()):
            for name, (static, _, _) in src.defs.items():
                if not static and name != "main":
                    self.definers[name].append(rel)
        self.node = {}          # file -> its node: a source, or a header with the source of the same stem
        sources = collections.defaultdict(list)
        for rel in self.files:
            if rel.endswith(SOURCE_EXT):
                sources[_stem(rel)].append(rel)
        for rel in self.files:
            self.node[rel] = rel
            if rel.endswith(HEADER_EXT):
                mates = [c for c in sources.get(_stem(rel), []) if os.path.dirname(c) == os.path.dirname(rel)]
                if mates:
                    self.node[rel] = max(mates, key=lambda c: (_common(c, rel), c))

    def calls(self, rel):
        """(name, defining file) for every function of another file that `rel` uses."""
        out = []
        for name in sorted(self.files[rel].uses):
            for d in self.definers.get(name, ()):
                if d != rel:
                    out.append((name, d))
        return out

    def edges(self, within):
        """node -> node -> names that tie them (functions called, headers included), over files `within` keeps."""
        g = collections.defaultdict(lambda: collections.defaultdict(set))
        for rel in self.files:
            if not within(rel):
                continue
            a = self.node[rel]
            for name, d in self.calls(rel):
                if within(d) and self.node[d] != a:
                    g[a][self.node[d]].add(name + "()")
            for inc, h in self.includes[rel]:
                if within(h) and self.node[h] != a:
                    g[a][self.node[h]].add('"%s"' % inc)
        return g


def _stem(rel):
    return os.path.splitext(os.path.basename(rel))[0]


def _scope(rel):
    """Where a header finds its own source: the analyzer's layer (analyzer/model/...), else the part."""
    p = rel.split("/")
    return "/".join(p[:2]) if p[0] == "analyzer" and len(p) > 2 else p[0]


def _common(a, b):
    n = 0
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        n += 1
    return n


def layer_of(rel):
    p = rel.split("/")
    return p[1] if p[0] == "analyzer" and len(p) > 2 and p[1] in LAYERS else None


def families(root):
    with open(os.path.join(root, "analyzer", "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"set\(ps_analyses_families\s+([^)]*)\)", f.read())
    if not m:
        sys.exit("analyzer/CMakeLists.txt: no set(ps_analyses_families ...)")
    return m.group(1).split()


def family_of(rel, order):
    p = rel.split("/")
    return p[2] if len(p) > 3 and p[:2] == ["analyzer", "analyses"] and p[2] in order else None


def circles(edges):
    """Strongly connected components of more than one node (Tarjan's, iterative), each sorted."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    nodes = sorted(set(edges) | {b for a in edges for b in edges[a]})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out, key=lambda c: (-len(c), c))


def node_name(tree, node):
    own = sorted(h for h, n in tree.node.items() if n == node and h != node)
    return node + "".join(" +" + os.path.basename(h) for h in own)


def print_circles(tree, edges, out):
    comps = circles(edges)
    for n, comp in enumerate(comps, 1):
        members = set(comp)
        out.append("circle %d of %d: %d files" % (n, len(comps), len(comp)))
        for a in comp:
            out.append("  " + node_name(tree, a))
        for a in comp:
            for b in sorted(edges[a]):
                if b in members:
                    names = sorted(edges[a][b])
                    shown = ", ".join(names[:6]) + (", ... (%d in all)" % len(names) if len(names) > 6 else "")
                    out.append("    %s -> %s: %s" % (a, b, shown))
    return comps


def check(tree, order):
    bad = []                # (rule, file, name, why)
    analyzer = [r for r in tree.files if r.startswith("analyzer/")]
    for rel in sorted(analyzer):
        la, fa = layer_of(rel), family_of(rel, order)
        uses = [(name, d, "calls") for name, d in tree.calls(rel)]
        uses += [('"%s"' % inc, h, "includes") for inc, h in tree.includes[rel]]
        for name, d, how in uses:
            lb, part = layer_of(d), d.split("/")[0]
            if part not in ("analyzer", "common"):
                bad.append(("layers", rel, name, "%s %s of %s/: the analyzer uses no other part" % (how, d, part)))
            elif la and lb and la != lb:
                ok = lb in LAYER_MAY_USE[la]
                if ok and (la, lb) == ("export", "render"):
                    ok = _stem(d) == EXPORT_RENDER_STEM
                if not ok:
                    bad.append(("layers", rel, name, "%s %s: %s may not use %s%s" % (
                        how, d, la, lb, " (only its JSON writer)" if (la, lb) == ("export", "render") else "")))
            fb = family_of(d, order)
            if fa and fb and order.index(fb) > order.index(fa):
                if how == "calls" or not d.startswith("analyzer/analyses/include/"):
                    bad.append(("families", rel, name, "%s %s: %s comes after %s" % (how, d, fb, fa)))
    for rel in sorted(tree.files):
        if not (rel.startswith("analyzer/render/") or rel.startswith("tui/")):
            continue
        allowed = RENDER_MAY_CALL | (TOP_MAY_CALL if rel.startswith("tui/") else set())
        for name, d in tree.calls(rel):
            if layer_of(d) == "analyses" and name not in allowed:
                bad.append(("renderers", rel, name, "calls %s: a renderer prints, the analyses compute" % d))
    out = []
    for rule, rel, name, why in bad:
        out.append("%s: %s: %s: %s" % (rule, rel, name, why))
    edges = tree.edges(lambda r: r.startswith("analyzer/"))
    comps = print_circles(tree, edges, out)
    count = collections.Counter(rule for rule, _, _, _ in bad)
    count["circles"] = len(comps)
    total = sum(count.values())
    out.append("%d violation%s: %s" % (total, "" if total == 1 else "s", ", ".join(
        "%s %d" % (r, count[r]) for r in ("layers", "families", "circles", "renderers"))))
    return out, total


def figures(tree, order):
    out = ["Files and lines of the analyzer, by layer (and of analyses, by family):"]
    per = collections.OrderedDict((k, [0, 0]) for k in LAYERS + ["analyses/" + f for f in order]
                                  + ["analyses/include"])
    for rel, src in tree.files.items():
        keys = [layer_of(rel)]
        fam = family_of(rel, order)
        if fam:
            keys.append("analyses/" + fam)
        elif rel.startswith("analyzer/analyses/include/"):
            keys.append("analyses/include")
        for k in keys:
            if k in per:
                per[k][0] += 1
                per[k][1] += src.lines
    for k, (n, lines) in per.items():
        out.append("  %-22s %4d files %7d lines" % (k, n, lines))
    out.append("  %-22s %4d files %7d lines" % ("analyzer (all)", sum(per[k][0] for k in LAYERS),
                                                  sum(per[k][1] for k in LAYERS)))
    long_fns = []
    for rel, src in tree.files.items():
        if not rel.startswith("analyzer/"):
            continue
        for name, (static, first, last) in src.defs.items():
            if not static and last - first + 1 >= 90:
                long_fns.append((last - first + 1, name, rel))
    for title, keep in (("over 100 lines", lambda n: n > 100), ("of 90 to 100 lines", lambda n: 90 <= n <= 100)):
        rows = sorted((r for r in long_fns if keep(r[0])), key=lambda r: (-r[0], r[1]))
        out.append("Non-static functions of the analyzer %s: %d" % (title, len(rows)))
        for n, name, rel in rows:
            out.append("  %4d  %-40s %s" % (n, name, rel))
    out.append("Circles in the whole source tree (%s; tests, fuzz and bench aside):" % ", ".join(
        p for p in PARTS if any(r.startswith(p + "/") for r in tree.files)))
    comps = print_circles(tree, tree.edges(lambda r: True), out)
    if not comps:
        out.append("  none")
    return out


def main(argv):
    args = [a for a in argv if a != "--figures"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    root = os.path.abspath(root)
    order = families(root)
    tree = Tree(root)
    if "--figures" in argv:
        print("\n".join(figures(tree, order)))
        return 0
    out, total = check(tree, order)
    print("\n".join(out))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
