"""What the HTML report tests check on any perfscope page (check_report_formats.py, check_multirank_report.py):
the page parsed into sections (charts with their <svg role="img">, title and desc; bars and their tooltips) and
tables (by id, cell texts), anything that would fetch or run flagged; and the page loaded in Debian's headless
Chromium, where no console message at all is allowed."""
import html.parser
import os
import shutil
import subprocess
import tempfile


class Page(html.parser.HTMLParser):
    """sections: [{id, chart, svgs, titled, bars: [tooltip], hbars: [tooltip]}]; tables: {id: [[cell text]]}
    (tables without an id under "section-id#n"); bad: what a self-contained page must not hold."""

    def __init__(self):
        super().__init__()
        self.stack, self.sections, self.tables, self.bad = [], [], {}, []
        self.rows = self.cell = self.bar_title = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        sec = self.sections[-1] if self.sections else None
        if tag == "section":
            self.sections.append({"id": a.get("id"), "chart": "chart" in cls, "svgs": 0, "titled": 0,
                                  "bars": [], "hbars": [], "ntables": 0})
        if tag == "svg" and sec:
            sec["svgs"] += 1
            if a.get("role") != "img" or not a.get("aria-labelledby"):
                self.bad.append("an svg without role=img and aria-labelledby")
        if tag in ("title", "desc") and self.stack and self.stack[-1] == "svg" and sec:
            sec["titled"] += 1
        if tag == "g" and sec and ("bar" in cls or "hbar" in cls):
            sec["bars" if "bar" in cls else "hbars"].append("")
            self.bar_title = sec["bars" if "bar" in cls else "hbars"]
        if tag == "title" and self.stack and self.stack[-1] == "g" and self.bar_title is not None:
            self.cell = ["bar"]
        if tag == "table":
            key = a.get("id") or f"{sec['id'] if sec else ''}#{sec['ntables'] if sec else len(self.tables)}"
            if sec:
                sec["ntables"] += 1
            self.rows = self.tables.setdefault(key, [])
        if tag == "tr" and self.rows is not None:
            self.rows.append([])
        if tag in ("td", "th") and self.rows is not None and self.rows:
            self.rows[-1].append("")
            self.cell = ["td"]
        if tag in ("script", "iframe", "object", "embed"):
            self.bad.append(f"a <{tag}>")
        for k in ("src", "href"):
            if k in a and not (a[k] or "").startswith("data:"):
                self.bad.append(f"{tag} {k}={a[k]} (a fetch)")
        if tag not in ("meta", "link", "br", "line", "rect", "polyline", "circle", "input", "img"):
            self.stack.append(tag)

    def handle_data(self, data):
        if self.cell == ["td"]:
            self.rows[-1][-1] += data
        elif self.cell == ["bar"]:
            self.bar_title[-1] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th", "title"):
            self.cell = None
        if tag == "g":
            self.bar_title = None
        if tag == "table":
            self.rows = None
        while self.stack and self.stack.pop() != tag:
            pass


def check_sections(page, fail):
    """Every chart section holds one svg with a title and a desc; no other section holds a chart."""
    for b in page.bad:
        fail(f"HTML: {b}")
    for s in page.sections:
        if not s["chart"] and s["svgs"]:
            fail(f"HTML section {s['id']} is not a chart section but holds {s['svgs']} charts")
        if s["chart"] and (s["svgs"] != 1 or s["titled"] != 2):
            fail(f"HTML section {s['id']}: {s['svgs']} charts, {s['titled']} of title/desc (want 1 and 2)")
    return [s for s in page.sections if s["chart"]]


def load_in_chromium(html_path, shot, fail):
    """Load the page in headless Chromium: no console message at all, and a screenshot at `shot`."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        fail("chromium is not installed (scripts/install-deps.sh installs it)")
        return
    if os.path.exists(shot):
        os.unlink(shot)
    home = tempfile.mkdtemp(prefix="ps-chromium-")   # its profile, kept out of the outputs
    # No time limit of its own: a Chromium that never ends fails by the test's timeout, after this line.
    print(f"waiting for headless Chromium to load {html_path}", flush=True)
    q = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                        "--v=0", "--window-size=1280,2400", f"--screenshot={shot}",
                        "file://" + os.path.abspath(html_path)],
                       capture_output=True, text=True,
                       env={**os.environ, "HOME": home, "XDG_CONFIG_HOME": home, "XDG_CACHE_HOME": home})
    shutil.rmtree(home, ignore_errors=True)
    console = [l for l in q.stderr.split("\n") if ":CONSOLE" in l]
    if console:
        fail(f"Chromium console messages: {console[:3]}")
    if q.returncode != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 1000:
        fail(f"no screenshot from Chromium (exit {q.returncode}): {q.stderr[-500:]}")
