#!/usr/bin/python3
"""Keep README.md's examples true (tests/readme/readme_tests.sh). The README marks what can be checked here with an
HTML comment, invisible once rendered, before the example:
  <!-- readme-check: exact -->  the next fenced block's `$ ` lines are run (perfscope: the built binary; build/...:
      the build tree; in a folder holding the reference traces of ../shared/traces/kineto, as the README says to run
      them); its other lines, in runs separated by `...` lines, are found in the output (stdout and stderr) in order,
      each run as consecutive lines, verbatim.
  <!-- readme-check: shape -->  the same, for a run whose times vary: the text is compared with every number a
      wildcard and line breaks as spaces (the report folds where the numbers' widths put it).
  <!-- readme-check: needed -->  the shared libraries named in `backticks` from the marker to the paragraph's end are
      exactly those the built binary and probe need (readelf -d NEEDED; the dynamic loader left out).
And `torchrun` lines marked `# PyTorch 1.x ...` / `2.x` are parsed with the torch found here when it is that version.
usage: check_readme.py README MODE PERFSCOPE BUILD SHARED   (MODE: exact, shape, needed, torchrun)"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

readme, mode, perfscope, build, shared = sys.argv[1:6]
text = open(readme, encoding="utf-8").read()
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def marked_blocks(kind):
    """(line number, [lines]) of each fenced block after a `<!-- readme-check: KIND` marker."""
    lines = text.split("\n")
    out = []
    for i, l in enumerate(lines):
        if re.match(r"<!-- readme-check: %s\b" % kind, l.strip()):
            j = i + 1
            assert lines[j].startswith("```"), "%s:%d: the marker is not right before a fenced block" % (readme, i + 1)
            k = j + 1
            while not lines[k].startswith("```"):
                k += 1
            out.append((i + 1, lines[j + 1:k]))
    return out


def run_block(where, lines, cwd):
    """Run the block's `$ ` lines in cwd; their output joined, or None after a failure."""
    out = ""
    for l in lines:
        if not l.startswith("$ "):
            continue
        words = shlex.split(l[2:])
        words = [perfscope if w == "perfscope" else os.path.join(build, w[6:]) if w.startswith("build/") else w
                 for w in words]
        p = subprocess.run(words, cwd=cwd, capture_output=True, text=True, timeout=300)
        out += p.stdout + p.stderr
        if p.returncode != 0:
            fail("%s: `%s` exited %d: %s" % (where, l[2:], p.returncode, (p.stdout + p.stderr)[-500:]))
            return None
    return out


def segments(lines):
    """The expected lines in runs, split at `...` lines (the commands left out)."""
    segs, cur = [], []
    for l in lines:
        if l.startswith("$ "):
            continue
        if l.strip() == "...":
            if cur:
                segs.append(cur)
            cur = []
        else:
            cur.append(l)
    if cur:
        segs.append(cur)
    return segs


NUM = r"[-+]?\d+(?:\.\d+)?"


def shape_regex(seg):
    flat = " ".join(" ".join(seg).split())
    parts = re.split(NUM, flat)
    return NUM.join(re.escape(p) for p in parts)


def check_exact(where, lines, out):
    olines = out.split("\n")
    at = 0
    for seg in segments(lines):
        n = len(seg)
        found = next((i for i in range(at, len(olines) - n + 1) if olines[i:i + n] == seg), None)
        if found is None:
            fail("%s: not in the output (in order): %r" % (where, seg))
            return
        at = found + n


def check_shape(where, lines, out):
    flat = " ".join(out.split())
    at = 0
    for seg in segments(lines):
        m = re.compile(shape_regex(seg)).search(flat, at)
        if not m:
            fail("%s: nothing of this shape in the output (in order): %r\n--- the output:\n%s" % (where, seg, out))
            return
        at = m.end()


def num(pattern, s, where):
    m = re.search(pattern, s)
    if not m:
        fail("%s: no %r" % (where, pattern))
        return None
    return float(m.group(1))


def cpu_example_agrees(where, lines, after):
    """The CPU example's figures against each other: the verdict's share and time, the gain's, the evidence's total
    over its count, and the sentence after the block (its average step)."""
    b = " ".join(" ".join(lines).split())
    share = num(r"Verdict: data-loading \((\d+\.\d) % of the average step", b, where)
    saves = num(r"removing the cause saves about (\d+\.\d) % of each step", b, where)
    ms = num(r"of each step, (\d+\.\d+) ms\)", b, where)
    n = num(r"range (\d+) x", b, where)
    total = num(r"range \d+ x (\d+\.\d+) ms data", b, where)
    gain_ms = num(r"Expected gain: about (\d+\.\d+) ms per step", b, where)
    gain_share = num(r"per step \((\d+\.\d) % of the average step\)", b, where)
    s = " ".join(after.split())
    s_n = num(r"The (\d+) `data` ranges take", s, where)
    s_total = num(r"ranges take (\d+\.\d+) ms in all", s, where)
    s_ms = num(r"in all, (\d+\.\d+) ms per step", s, where)
    s_share = num(r"per step: (\d+\.\d) % of the average step", s, where)
    s_avg = num(r"average step of (\d+\.\d+) ms", s, where)
    if None in (share, saves, ms, n, total, gain_ms, gain_share, s_n, s_total, s_ms, s_share, s_avg):
        return
    if not (share == saves == gain_share == s_share):
        fail("%s: the shares disagree: %s, %s, %s, %s" % (where, share, saves, gain_share, s_share))
    if not (ms == gain_ms == s_ms):
        fail("%s: the per-step times disagree: %s, %s, %s" % (where, ms, gain_ms, s_ms))
    if not (n == s_n and total == s_total and abs(total / n - ms) <= 0.0006):
        fail("%s: %s ranges of %s ms in all are not %s ms per step" % (where, n, total, ms))
    if abs(ms / (share / 100) - s_avg) > s_avg * 0.0006 + 0.006:   # the share is rounded to 0.1 %
        fail("%s: %s ms at %s %% is no average step of %s ms" % (where, ms, share, s_avg))


def needed_names():
    i = text.index("<!-- readme-check: needed")
    para = text[i:].split("\n\n")[0]
    return set(re.findall(r"`(lib[A-Za-z0-9_+.-]*\.so[0-9.]*)`", para))


def dt_needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    # the sanitizers' runtimes (a --sanitize build) are the test build's, not what a user's install needs
    return {n for n in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
            if not n.startswith(("ld-linux", "libasan.", "libubsan.", "liblsan.", "libtsan."))}


def torch_python():
    """(python, major version) of a Python here that imports torch.distributed.run, or None."""
    for py in ["python3"] + sorted(glob.glob("/usr/bin/python3*")):
        try:
            p = subprocess.run([py, "-c", "import torch, torch.distributed.run as r; print(torch.__version__)"],
                               capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if p.returncode == 0:
            return py, int(p.stdout.strip().split(".")[0])
    return None


if mode in ("exact", "shape"):
    blocks = marked_blocks(mode)
    if not blocks:
        fail("no `<!-- readme-check: %s -->` block in %s" % (mode, readme))
    kineto = os.path.join(shared, "traces", "kineto")
    for line, lines in blocks:
        where = "%s:%d" % (os.path.basename(readme), line)
        with tempfile.TemporaryDirectory() as cwd:
            if mode == "exact":   # the README runs these in ../shared/traces/kineto: its traces, linked here
                for f in os.listdir(kineto):
                    os.symlink(os.path.join(kineto, f), os.path.join(cwd, f))
            out = run_block(where, lines, cwd)
            if out is None:
                continue
            (check_exact if mode == "exact" else check_shape)(where, lines, out)
            print("checked %s: %s" % (where, "; ".join(l[2:] for l in lines if l.startswith("$ "))))
        if mode == "shape" and any("--scenario data-bound" in l for l in lines):
            rest = text.split("\n")
            end = line + 2 + len(lines)   # the line after the closing fence (0-based: the marker is line - 1)
            cpu_example_agrees(where, lines, "\n".join(rest[end:end + 3]))
elif mode == "needed":
    named = needed_names()
    need = dt_needed(perfscope) | dt_needed(os.path.join(build, "probe", "libperfscope_probe.so"))
    if named != need:
        fail("the README names %s; the binary and probe need %s" % (sorted(named), sorted(need)))
    print("needed: %s" % ", ".join(sorted(need)))
elif mode == "torchrun":
    tp = torch_python()
    if not tp:
        print("SKIP: no Python here imports torch.distributed.run")
        sys.exit(77)
    py, major = tp
    checked = 0
    for l in text.split("\n"):
        m = re.match(r"(torchrun .*?)\s+# PyTorch (.*)$", l)
        if not m or "..." in m.group(1):
            continue
        versions = m.group(2)
        if "%d.x" % major not in versions:
            continue
        args = shlex.split(m.group(1))[1:]
        code = ("import sys; from torch.distributed.run import get_args_parser as g; a = g().parse_args(sys.argv[1:]); "
                "assert a.no_python and a.training_script == 'perfscope', a")
        p = subprocess.run([py, "-c", code] + args, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail("`%s` (# PyTorch %s) is refused by torch %d's torchrun: %s" % (m.group(1), versions, major,
                                                                               p.stderr.strip()[-300:]))
        checked += 1
        print("parsed with torch %d: %s" % (major, m.group(1)))
    if checked == 0:
        fail("no torchrun line marked for PyTorch %d.x in %s" % (major, readme))
else:
    sys.exit("unknown mode " + mode)
sys.exit(1 if failures else 0)
