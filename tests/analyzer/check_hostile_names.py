"""One hostile name everywhere a trace can put a name, through every output: each format of `perfscope report` (one
trace, two ranks), `perfscope diff` of the trace with itself and `perfscope top --snapshot json`. The name holds
terminal escapes (an OSC title and a clear-screen CSI), CR, newline + '# heading', other control characters, a C1
control and a bidi override, <script>, backticks, '|', an invalid UTF-8 byte (SQLite trace; a JSON file cannot hold
one) and 10 KB of filler. Every format must show it literally and harmlessly (docs/report.md, "Names from the trace"):
no raw control byte in text, no Markdown line or table cell made by it, no HTML markup from it, JSON that parses and
keeps it whole.

Usage: check_hostile_names.py PERFSCOPE WORKDIR"""
import gzip
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys

perfscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
failures = []

# The first 110 and the last 30 characters of a long name are what the human formats show of it
# (common/ps_text_escape.h): the hostile parts are in both.
HEAD = ("#hx\x1b]0;pwned\x07\x1b[2J\r\n# heading\n<script>alert(1)</script> `tick` a|b \x01\x08\x0b\x7f"
        "\u009b31m\u202eevil ")
TAIL = " \x1b[6n\r\n# tail <script>`t`|x"
NAME = HEAD + "A" * 10240 + TAIL
assert len(HEAD) <= 110 and len(TAIL) <= 30
# Short variants for fields with a fixed size (a GPU's name, the Python hook's values: no space, no '=').
SHORT = "#hx\x1b]0;pwned\x07\r\n# heading|`t`<script>"
MARK_VALUE = "\x1b]0;pw\x07\r\n#|`<b>"


def kineto_trace(path, rank):
    """A Kineto trace with NAME as kernel, copy, op (with shapes: the op-efficiency section's 'ops with no model'),
    Python function, user and GPU annotation, step (--step-range), thread and process name and device name."""
    pid, tid, ev, corr = 100 + rank, 100 + rank, [], 1
    ev.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": NAME}})
    ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": NAME}})
    ev.append({"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": NAME}})

    def launch(t, kname, kcat, dur, ext, op, dims=None, types=None, args=None):
        nonlocal corr
        a = {"External id": ext, "Record function id": 0}
        if dims is not None:
            a.update({"Input Dims": dims, "Input type": types, "Concrete Inputs": [""] * len(dims)})
        ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": pid, "tid": tid, "ts": t, "dur": 30, "args": a})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel" if kcat == "kernel" else
                   "cudaMemcpyAsync", "pid": pid, "tid": tid, "ts": t + 2, "dur": 5,
                   "args": {"External id": ext, "correlation": corr}})
        ka = {"External id": ext, "device": 0, "stream": 7, "correlation": corr}
        ka.update(args or {})
        ev.append({"ph": "X", "cat": kcat, "name": kname, "pid": 0, "tid": 7, "ts": t + 10, "dur": dur, "args": ka})
        ev.append({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": t + 2, "cat": "ac2g", "name": "ac2g"})
        ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": t + 10, "cat": "ac2g", "name": "ac2g", "bp": "e"})
        ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": pid, "tid": tid,
                   "ts": t + 3, "args": {"Device Type": 1, "Device Id": 0, "Addr": 1000 + corr, "Bytes": 1 << 20,
                                         "Total Allocated": corr << 20, "Total Reserved": 64 << 20}})
        corr += 1

    for step in range(4):
        t0 = 1000 + step * 1000
        ev.append({"ph": "X", "cat": "user_annotation", "name": NAME, "pid": pid, "tid": tid, "ts": t0,
                   "dur": 900 + 100 * rank * (step % 2), "args": {"External id": 1}})   # the steps
        ev.append({"ph": "X", "cat": "user_annotation", "name": NAME, "pid": pid, "tid": tid, "ts": t0 + 5,
                   "dur": 100, "args": {}})
        ev.append({"ph": "X", "cat": "python_function", "name": NAME, "pid": pid, "tid": tid, "ts": t0 + 6,
                   "dur": 90, "args": {"Python id": 1}})
        ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": NAME, "pid": 0, "tid": 7, "ts": t0 + 15,
                   "dur": 600})
        launch(t0 + 10, NAME, "kernel", 400, 10 * step + 2, NAME, [[64, 64]], ["float"])
        launch(t0 + 50, "sm90_xmma_gemm_" + NAME, "kernel", 150, 10 * step + 3, "aten::mm",
               [[512, 512], [512, 512]], ["c10::BFloat16", "c10::BFloat16"])
        launch(t0 + 90, "Memcpy HtoD (Pageable -> Device) " + NAME, "gpu_memcpy", 30, 10 * step + 4, NAME,
               args={"bytes": 1 << 20, "memory bandwidth (GB/s)": 30})
        launch(t0 + 130, "ncclDevKernel_AllReduce_Sum_f32_RING_LL " + NAME, "kernel", 100, 10 * step + 5,
               "nccl:all_reduce", args={"Collective name": NAME})
    trace = {"schemaVersion": 1, "record_shapes": 1, "traceEvents": ev,
             "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
             "deviceProperties": [{"id": 0, "name": SHORT, "totalGlobalMem": 85018279936, "computeMajor": 9,
                                   "computeMinor": 0, "numSms": 132}]}
    with gzip.open(path, "wt") as f:
        json.dump(trace, f)


GT = lambda pid, tid: (1 << 48) | (pid << 24) | tid   # noqa: E731 (docs/trace-format.md)


def sqlite_trace(path):
    """A perfscope trace with NAME as kernel, NVTX range and step (--step-range), never-ended range, domain, thread
    and process name; metadata (command line, host, exit status, CUDA message), GPU name and the Python hook's
    values hostile too; an invalid UTF-8 byte in the names."""
    bad = NAME.replace("evil", "ev\udcffil").encode("utf-8", "surrogateescape")   # a lone 0xFF byte
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.text_factory = bytes
    db.executescript(
        "CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE ThreadNames(nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
        "CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);"
        "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, \"end\" INTEGER, eventType INTEGER NOT NULL,"
        " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,"
        " textId INTEGER, domainId INTEGER);"
        "CREATE TABLE PERFSCOPE_META(name TEXT NOT NULL PRIMARY KEY, value TEXT);"
        "CREATE TABLE TARGET_INFO_GPU(id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,"
        " computeMajor INTEGER, computeMinor INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,"
        " globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL,"
        " eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,"
        " returnValue INTEGER NOT NULL);")
    pid = 4242
    t = GT(pid, pid)
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(1, bad), (2, b"cudaLaunchKernel_v7000"), (3, bad)])
    db.execute("INSERT INTO ThreadNames VALUES (3, 1, ?)", (t,))
    db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", ((1 << 48) | (pid << 24), pid, bad))
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, ?, 85899345920, 132, 9, 0)", (SHORT.encode(),))
    meta = {"schema_version": "1", "recording_complete": "1", "command_line": bad, "host": bad,
            "start_time_utc": bad, "duration_ns": "9000000", "child_exit_code": "1",
            "cuda_state.pid.%d" % pid: "cupti_unavailable", "cuda_message.pid.%d" % pid: bad,
            "unterminated_nvtx": "1"}
    db.executemany("INSERT INTO PERFSCOPE_META VALUES (?, ?)",
                   [(k.encode(), v if isinstance(v, bytes) else v.encode()) for k, v in meta.items()])
    nvtx = [(0, None, 75, None, bad, 1), (0, None, 75, None, b"perfscope", 2),
            (10, None, 34, None, ("python hook mode=%s torch=%s cores=4" % (MARK_VALUE, MARK_VALUE)).encode(), 2),
            (20, None, 34, None, ("DataLoader#1 iterator=%s num_workers=0 batch_size=8" % MARK_VALUE).encode(),
             2),
            (8_500_000, None, 59, None, bad, 1)]                   # never ended, in the hostile domain
    rows, corr = [], 1
    for step in range(4):
        s = 1_000_000 + step * 2_000_000
        nvtx.append((s, s + 1_500_000 + 100_000 * (step % 2), 59, None, bad, 0))          # the step
        nvtx.append((s + 1000, s + 200_000, 59, None, bad, 1))
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 2, 0)", (s + 2000, s + 9000, t, corr))
        rows.append((s + 10_000, s + 1_200_000, 0, 1, 7, corr, (1 << 48) | (pid << 24), 1, 1))
        corr += 1
    db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, ?, NULL, ?, NULL, ?, %d, NULL, NULL, ?)" % t, nvtx)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()


# File names hold the name too (a short one: a file name has at most 255 bytes).
FILE_NAME = "hx\x1b]0;pwned\x07\r\n# heading|`t`<script>"
kin0 = os.path.join(work, FILE_NAME + ".rank0.pt.trace.json.gz")
kin1 = os.path.join(work, FILE_NAME + ".rank1.pt.trace.json.gz")
sq = os.path.join(work, FILE_NAME + ".sqlite")
kineto_trace(kin0, 0)
kineto_trace(kin1, 1)
kin0_again = os.path.join(work, FILE_NAME + ".again.pt.trace.json.gz")   # rank 0 too: refused, naming both files
kineto_trace(kin0_again, 0)
sqlite_trace(sq)
spec = os.path.join(work, "any_gpu.json")
with open(spec, "w") as f:   # peaks for any device: the roofline chart and the GPU line that quotes its name
    json.dump({"name": "any", "match": "*", "mem_bw_gbps": 3350, "peak_tflops": {"matrix_bf16": 989.4,
                                                                                   "matrix_fp32": 66.9}}, f)
STEPS = ["--step-range", "#hx.*"]
runs = []   # (what, format, stdout bytes, stderr bytes)


def run(what, fmt, args, ok=(0,)):
    p = subprocess.run([perfscope] + args, capture_output=True, timeout=300)
    if p.returncode not in ok:
        failures.append(f"{what}: exit {p.returncode}: {p.stderr.decode('utf-8', 'replace')[-300:]!r}")
    runs.append((what, fmt, p.stdout, p.stderr))
    with open(os.path.join(work, "%02d.%s" % (len(runs), fmt)), "wb") as f:   # kept for a look after a failure
        f.write(p.stdout)
    return p.stdout


for fmt in ("text", "json", "md", "html"):
    run(f"report kineto {fmt}", fmt, ["report", "--details", "--format", fmt, "--color", "never", kin0] + STEPS)
    run(f"report kineto --gpu-spec {fmt}", fmt, ["report", "--details", "--format", fmt, "--color", "never",
                                                 "--gpu-spec", spec, kin0] + STEPS)
    run(f"report sqlite {fmt}", fmt, ["report", "--details", "--format", fmt, "--color", "never", sq] + STEPS)
    run(f"report two ranks {fmt}", fmt, ["report", "--format", fmt, "--color", "never", kin0, kin1] + STEPS)
run("report one rank twice", "error", ["report", kin0, kin0_again] + STEPS, ok=(1,))
for fmt in ("text", "json", "md"):
    run(f"diff {fmt}", fmt, ["diff", "--format", fmt, kin0, kin0] + STEPS)
    run(f"diff sqlite {fmt}", fmt, ["diff", "--format", fmt, sq, sq] + STEPS)
run("top snapshot", "json", ["top", "--trace", sq, "--iterations", "1", "-d", "0.25", "--snapshot", "json"])
# top's screen, through a terminal: script(1) gives it one and copies what ncurses wrote, its own escapes included,
# so only the name's own sequences and bytes are looked for.
if shutil.which("script"):
    cmd = "stty cols 160 rows 50; exec %s top --trace %s --iterations 2 -d 0.25" % (shlex.quote(perfscope),
                                                                                  shlex.quote(sq))
    p = subprocess.run(["script", "-qfec", cmd, "/dev/null"], capture_output=True, timeout=120,
                       env=dict(os.environ, TERM="xterm", LANG="C.UTF-8"))
    if p.returncode != 0 or b"top kernels" not in p.stdout.lower():
        failures.append(f"top screen: exit {p.returncode}, no kernel table: {p.stdout[-300:]!r}")
    for piece in (b"\x1b]", b"\x07", b"\x1b[2J\r\n", b"\x1b[6n", b"\r\n# heading", b"\xe2\x80\xae", b"\xc2\x9b"):
        if piece in p.stdout:
            failures.append(f"top screen: {piece!r} from the name reached the terminal")
else:
    print("note: no script(1): top's screen not checked")

def code_spans_out(text):
    """Markdown text without its code spans (CommonMark 6.1: a run of n backticks up to the next run of exactly n),
    whose content shows literally: no markup, no pipe or backtick that ends anything."""
    out, i = [], 0
    for m in re.finditer(r"`+", text):
        if m.start() < i:
            continue
        close = re.compile(r"(?<!`)%s(?!`)" % m.group()).search(text, m.end())
        if close:
            out.append(text[i:m.start()])
            i = close.end()
    return "".join(out) + text[i:]


CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80\xae")   # C0 but \t \n, DEL, C1, RLO
for what, fmt, out, err in runs:
    for stream, data in (("stdout", out), ("stderr", err)):
        m = CONTROL.search(data) if fmt != "json" or stream == "stderr" else None   # JSON: parsed below
        if m:
            failures.append(f"{what}: {stream}: raw control byte {m.group()!r} at {m.start()}: "
                            f"{data[max(0, m.start() - 60):m.start() + 20]!r}")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            failures.append(f"{what}: {stream}: not UTF-8 ({e})")
    text = out.decode("utf-8", "replace")
    if fmt == "md":
        for line in text.splitlines():
            if re.match(r"\s*#+\s*(heading|tail)|\s*#hx", line):
                failures.append(f"{what}: a Markdown heading made by the name: {line[:80]!r}")
        bare = code_spans_out(text.replace("\\`", "").replace("\\|", "").replace("\\<", ""))
        for piece in ("`tick`", "`t`", "a|b", "|x", "<script"):
            if piece in bare:
                failures.append(f"{what}: {piece!r} from the name unescaped")
    elif fmt == "html":
        if re.search(r"<script", text, re.I):
            failures.append(f"{what}: <script from the name")
    elif fmt == "json":
        try:
            doc = json.loads(out)
        except ValueError as e:
            failures.append(f"{what}: JSON does not parse: {e}")
            continue
        if what == "report kineto json" and NAME not in [k.get("name") for k in doc.get("kernels", [])]:
            failures.append(f"{what}: the kernel's name is not kept whole")
    elif fmt == "text":
        for piece in ("a|b", "`tick`"):   # shown, not dropped
            if what.startswith("report") and piece not in text:
                failures.append(f"{what}: the name is not shown ({piece!r} missing)")

# The HTML pages hold their chart sections whole (the name broke no element), and the one with the roofline and
# every other chart loads in headless Chromium without a console message (tests/analyzer/html_page_check.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from html_page_check import Page, check_sections, load_in_chromium   # noqa: E402
for i, (what, fmt, out, err) in enumerate(runs):
    if fmt == "html":
        page = Page()
        page.feed(out.decode("utf-8", "replace"))
        check_sections(page, lambda m, w=what: failures.append(f"{w}: {m}"))
        if what == "report kineto --gpu-spec html":
            load_in_chromium(os.path.join(work, "%02d.html" % (i + 1)), os.path.join(work, "page.png"),
                             lambda m, w=what: failures.append(f"{w}: {m}"))

for f in failures:
    print("FAIL", f)
print(f"{len(runs)} outputs checked")
sys.exit(1 if failures else 0)
