#!/usr/bin/env python3
"""The landing page as a browser renders it: the exporter runs its demo (turned on by the
environment variable DENIALS_EXPORTER_DEMO, with a state file), headless Chromium loads `/`, and
the DOM it dumps must answer first: the states (healthy, ready, the example's malformed line as a
fault, the state file written), the dangerous attempts at the top and highlighted, totals by
risk class, reason and workflow that equal what /metrics serves, and recent denials whose times
are now (the demo's time moves). The page must not have been refused its stylesheet by its own
policy, and must carry no script.

Usage: tests/deploy/landing_chromium.py [BINARY] [--screenshot PNG]
       (default target/release/denials-exporter; --screenshot also saves the page as a PNG,
       which is how docs/landing.png is made)
Needs: chromium on PATH (Debian package `chromium`). Loopback only; stops what it starts; exits 0
when every check holds. Prints `landing: N passed, N failed`.
"""

import html.parser
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timezone

args = [a for a in sys.argv[1:]]
SCREENSHOT = None
if "--screenshot" in args:
    at = args.index("--screenshot")
    SCREENSHOT = args[at + 1]
    del args[at : at + 2]
BIN = args[0] if args else "target/release/denials-exporter"
DANGEROUS_EXCLUDED = {"none", "unknown", "pending"}
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, dict(r.headers), r.read().decode()


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], []

    def all_text(self):
        parts = list(self.text)
        for child in self.children:
            parts.append(child.all_text())
        return " ".join(p for p in parts if p).strip()

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def find(self, pred):
        return [n for n in self.walk() if pred(n)]

    def classes(self):
        return self.attrs.get("class", "").split()


VOID = {"meta", "br", "img", "input", "link", "hr", "col", "wbr", "source"}


class Tree(html.parser.HTMLParser):
    """A DOM tree of what Chromium dumped (the DOM serialised, so every element is closed)."""

    def __init__(self):
        super().__init__()
        self.root = self.at = Node("#root", [], None)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_endtag(self, tag):
        node = self.at
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.at = node.parent

    def handle_data(self, data):
        if data.strip():
            self.at.text.append(data.strip())


def by_id(root, ident):
    found = root.find(lambda n: n.attrs.get("id") == ident)
    return found[0] if found else None


def table_counts(table):
    """{first cell's text: last cell's number} of a totals table, `total` included."""
    out = {}
    for row in table.find(lambda n: n.tag == "tr"):
        cells = [c for c in row.children if c.tag == "td"]
        if len(cells) >= 2:
            out[cells[0].all_text()] = int(cells[-1].all_text())
    return out


def series_sums(metrics, family, label):
    sums = {}
    for m in re.finditer(rf'^{family}{{([^}}]*)}} (\S+)$', metrics, re.M):
        value = re.search(rf'{label}="([^"]*)"', m.group(1)).group(1)
        sums[value] = sums.get(value, 0) + int(float(m.group(2)))
    return sums


def chromium(url, profile, *extra):
    return subprocess.run(
        ["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url],
        capture_output=True, text=True, timeout=90,
    )


def main():
    if not shutil.which("chromium"):
        print("chromium is not installed (Debian package `chromium`)")
        return 1
    work = tempfile.mkdtemp(prefix="denials-landing.")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DENIALS_EXPORTER_")}
    env["DENIALS_EXPORTER_DEMO"] = "true"
    exporter = subprocess.Popen(
        [BIN, "run", f"--web.listen-address=127.0.0.1:{port}",
         f"--state-file={work}/state.json", "--state-interval=1s"],
        env=env, stdout=subprocess.DEVNULL, stderr=open(f"{work}/exporter.log", "w"),
    )
    try:
        return run(base, work)
    finally:
        exporter.send_signal(signal.SIGTERM)
        try:
            exporter.wait(timeout=10)
        except subprocess.TimeoutExpired:
            exporter.kill()
        if failed:
            print(open(f"{work}/exporter.log").read()[-3000:])
        shutil.rmtree(work, ignore_errors=True)


def run(base, work):
    # One round of the example log (19 lines, one every 300 ms) brings both dangerous classes
    # and the malformed line; wait for it and for a state write.
    deadline = time.monotonic() + 60
    metrics = ""
    while time.monotonic() < deadline:
        try:
            status, _, metrics = get(base + "/metrics")
        except OSError:
            status = 0
        dangerous = {k for k in series_sums(metrics, "permission_denial_risks_total", "risk")
                     if k not in DANGEROUS_EXCLUDED} if status == 200 else set()
        written = re.search(r"^denials_exporter_state_last_write_timestamp_seconds (\S+)$", metrics, re.M)
        malformed = re.search(r'^denials_exporter_lines_total\{outcome="malformed"\} (\d+)$', metrics, re.M)
        if (len(dangerous) >= 2 and written and float(written.group(1)) > 0
                and malformed and int(malformed.group(1)) > 0):
            break
        time.sleep(0.3)
    else:
        check("the demo brings two dangerous classes, a malformed line and a state write", False, metrics[-2000:])
        return 1

    status, headers, _ = get(base + "/")
    headers = {k.lower(): v for k, v in headers.items()}
    policy = headers.get("content-security-policy", "")
    check("served with a policy that allows no script and its style only by hash",
          policy.startswith("default-src 'none'") and "style-src 'sha256-" in policy and "unsafe" not in policy,
          policy)
    check("nosniff, no framing, no referrer",
          headers.get("x-content-type-options") == "nosniff" and "frame-ancestors 'none'" in policy
          and headers.get("referrer-policy") == "no-referrer", headers)

    profile = tempfile.mkdtemp(dir=work)
    before = get(base + "/metrics")[2]
    dumped = chromium(base + "/", profile, "--dump-dom")
    after = get(base + "/metrics")[2]
    check("chromium dumps the DOM", dumped.returncode == 0 and "<html" in dumped.stdout,
          dumped.stderr[-2000:])
    refused = [l for l in dumped.stderr.splitlines() if "Content Security Policy" in l or "Refused to" in l]
    check("the page's own policy refuses nothing it uses", not refused, refused)
    tree = Tree()
    tree.feed(dumped.stdout)
    root = tree.root
    check("no script", not root.find(lambda n: n.tag == "script"))

    def state(ident):
        tile = by_id(root, ident)
        value = tile.find(lambda n: "v" in n.classes()) if tile else []
        return (tile.classes() if tile else [], value[0].all_text() if value else None, tile.all_text() if tile else "")

    classes, value, _ = state("health")
    check("health is a state: Healthy", value == "Healthy" and "ok" in classes, (classes, value))
    classes, value, _ = state("readiness")
    check("readiness is a state: Ready", value == "Ready" and "ok" in classes, (classes, value))
    classes, value, text = state("faults")
    check("faults: the example's malformed line, named", re.fullmatch(r"\d+ faults?", value or "") is not None and "warn" in classes
          and "not a JSON object" in text, (classes, value, text))
    classes, value, text = state("state-file")
    check("the state file's last write as a state", value is not None and value.startswith("Written ")
          and value.endswith(("just now", "s ago")) and "ok" in classes, (classes, value, text))

    # Totals: between what /metrics served just before and just after the render.
    low, high = (series_sums(m, "permission_denials_total", "reason") for m in (before, after))
    total_low, total_high = sum(low.values()), sum(high.values())
    risks_low = series_sums(before, "permission_denial_risks_total", "risk")
    risks_high = series_sums(after, "permission_denial_risks_total", "risk")
    by_class = table_counts(by_id(root, "by-class"))
    by_reason = table_counts(by_id(root, "by-reason"))
    by_workflow = table_counts(by_id(root, "by-workflow"))
    for name, table in [("class", by_class), ("reason", by_reason), ("workflow", by_workflow)]:
        check(f"totals by {name} add up to the total /metrics serves",
              total_low <= table.get("total", -1) <= total_high
              and sum(v for k, v in table.items() if k != "total") == table.get("total"), (table, total_low, total_high))
    check("every reason /metrics serves is in the reason table",
          all(r in by_reason for r in low), (by_reason, low))
    decided = {k: v for k, v in by_class.items() if k not in ("total", "pending")}
    check("the class table equals the risk counter",
          all(risks_low.get(k, 0) <= v <= risks_high.get(k, 0) for k, v in decided.items())
          and set(risks_low) <= set(decided), (by_class, risks_low, risks_high))
    pending = by_class.get("pending", 0)
    if pending:
        note = by_id(root, "pending")
        check("pending is explained in words", note is not None and "record" in note.all_text(),
              note.all_text() if note else None)

    # The dangerous ones first, highlighted.
    dangerous_total = sum(v for k, v in decided.items() if k not in DANGEROUS_EXCLUDED)
    verdict = by_id(root, "verdict")
    verdict_text = verdict.all_text() if verdict else ""
    check("the verdict counts the dangerous attempts, highlighted",
          verdict is not None and "danger" in verdict.classes()
          and verdict_text.startswith(f"{dangerous_total} dangerous attempt"), verdict_text)
    main_el = root.find(lambda n: n.tag == "main")[0]
    order = [c.attrs.get("id") for c in main_el.children if c.attrs.get("id")]
    check("the verdict and the dangerous attempts come before the totals and the recent denials",
          order.index("verdict") < order.index("dangerous") < order.index("totals") < order.index("recent"), order)
    dangerous_rows = by_id(root, "dangerous").find(lambda n: n.tag == "tr" and "danger" in n.classes())
    check("the dangerous attempts are listed, each highlighted with its class",
          dangerous_rows and all(any("badge" in b.classes() and "danger" in b.classes() for b in r.walk())
                                 for r in dangerous_rows), len(dangerous_rows))
    class_rows = by_id(root, "by-class").find(lambda n: n.tag == "tr" and n.find(lambda c: c.tag == "td"))
    for row in class_rows:
        name = row.find(lambda n: n.tag == "td")[0].all_text()
        if name != "total":
            check(f"class {name} is highlighted exactly when dangerous",
                  ("danger" in row.classes()) == (name not in DANGEROUS_EXCLUDED), row.classes())

    # The demo's time moves: the newest recent denial happened within the last minute.
    times = [td.all_text() for td in by_id(root, "recent").find(lambda n: n.tag == "td" and "t" in n.classes())]
    newest = datetime.strptime(times[0].replace(" ", "T").rstrip("Z")[:19], "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=timezone.utc) if times else None
    check("the demo's denials happen now",
          newest is not None and abs((datetime.now(timezone.utc) - newest).total_seconds()) < 60, times[:3])

    links = [a.attrs.get("href", "") for a in root.find(lambda n: n.tag == "a")]
    check("every link is relative", links and all(l.startswith("./") for l in links), links)

    if SCREENSHOT:
        shot = chromium(base + "/", tempfile.mkdtemp(dir=work), "--hide-scrollbars",
                        "--window-size=1280,1320", f"--screenshot={os.path.abspath(SCREENSHOT)}")
        check("screenshot saved", shot.returncode == 0 and os.path.getsize(SCREENSHOT) > 10000, shot.stderr[-500:])

    print(f"landing: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
