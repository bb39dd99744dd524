"""A 100,000-character kernel name (a deeply templated kernel) through every report format: the human formats
show it shortened (the text report's lines stay within its width, Markdown's tables shortened, HTML's table cell
short with the whole name on hover), JSON keeps it whole.
Usage: check_long_names.py PERFSCOPE WORKDIR"""
import html.parser
import json
import os
import subprocess
import sys

perfscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
failures = []

# 19 + 100,000 + 6 = 100,025 characters; shown: the first 110 and the last 30 around "...[N characters]...",
# N = 100,025 - 140 = 99,885 (common/ps_text_escape.h).
NAME = "void at::native::k<" + "x" * 100000 + ">(int)"
SHOWN = NAME[:110] + "...[99885 characters]..." + NAME[-30:]
events = [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": NAME, "pid": 0, "tid": 7, "ts": 20, "dur": 100,
     "args": {"correlation": 1, "device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "short_kernel", "pid": 0, "tid": 7, "ts": 130, "dur": 10,
     "args": {"correlation": 2, "device": 0, "stream": 7}},
]
trace = os.path.join(work, "long_name.json")
with open(trace, "w") as f:
    json.dump({"traceEvents": events}, f)


def report(fmt):
    p = subprocess.run([perfscope, "report", "--details", "--format", fmt, trace], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"{fmt}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


text = report("text")
longest = max(len(line) for line in text.splitlines())
if longest > 101:
    failures.append(f"text: a line of {longest} characters")
if "".join(line.strip() for line in text.splitlines()).find(SHOWN) < 0:
    failures.append("text: the kernel table does not show the shortened name")
if text.count("x" * 200):
    failures.append("text: a run of 200 x's: the name printed whole")

md = report("md")
if md.count("x" * 200):   # sentences (fixes, notes) are whole and may be long lines; a name is never whole
    failures.append("md: a run of 200 x's: the name printed whole")
if SHOWN not in md.replace("\\", ""):   # Markdown backslash-escapes < > [ ]
    failures.append("md: no shortened name")


class Cells(html.parser.HTMLParser):
    """The text of each <td class="name"> and the title of the span inside it."""
    def __init__(self):
        super().__init__()
        self.cells, self.inside = [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and a.get("class") == "name":
            self.inside = True
            self.cells.append(["", None])
        if tag == "span" and self.inside:
            self.cells[-1][1] = a.get("title")

    def handle_endtag(self, tag):
        if tag == "td":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.cells[-1][0] += data


page = Cells()
page.feed(report("html"))
kernel_cells = [c for c in page.cells if c[0].startswith("void at::native::k<")]
if not kernel_cells:
    failures.append("html: no cell for the long kernel")
for shown, title in kernel_cells:
    if shown != SHOWN:
        failures.append(f"html: the cell shows {len(shown)} characters, not the shortened name")
    if title != NAME:
        failures.append("html: the whole name is not on hover (the span's title)")

doc = json.loads(report("json"))
if NAME not in [k.get("name") for k in doc.get("kernels", [])]:
    failures.append("json: the kernel's name is not whole")

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
