"""Kubelet-style container logs for tests and benchmarks (python3 stdlib only).

A `ContainerLog` writes what containerd and the kubelet leave under `/var/log/pods`:

    <root>/<namespace>_<pod>_<uid>/<container>/0.log

one CRI-framed line per application line (`<RFC 3339 nano> stdout F <line>`), rotated as the
kubelet's container log manager rotates it: once `0.log` reaches `max_size` bytes, the rolls
beyond `max_files - 2` are deleted (oldest first), the newest plain roll is gzipped
(`0.log.<YYYYMMDD-hhmmss>.gz`, through a `.tmp` file renamed into place), and `0.log` is renamed
to `0.log.<YYYYMMDD-hhmmss>`; the runtime goes on writing to the renamed file until it reopens
`0.log`, so a few lines (`late_lines`) still land in the roll after the rename. Roll names take
the time of a logical clock, one second per rotation, so two rotations within a second never
collide (the kubelet checks every 10 s, and would overwrite).

`ContainerLog.write_denials(n)` writes `n` pino denial lines (each with its own tool use id)
among `filler` ordinary lines each, and counts what it wrote in `.denials`. `ContainerLog.files()`
says what went to which file (its name after the rename, its lines, the first and last tag given
to `write_line`): what a reader that lost lines lost them from, though the file is long deleted.
"""

import datetime
import gzip
import os
import shutil
import time

DENIAL = (
    '{"level":40,"time":%d,"event":"agent.permission.denied","executionId":"%s",'
    '"toolUseId":"%s-%d","toolName":"Bash","workflow":"%s","decisionReasonType":"hook",'
    '"decisionReason":"PreToolUse hook denied: rm -rf /","msg":"agent permission denied"}'
)
FILLER = (
    '{"level":30,"time":%d,"executionId":"%s","workflow":"%s","msg":"tool call",'
    '"tool":"Read","durationMs":12,"path":"src/lib/some/file/of/the/repository.ts","note":"%s"}'
)
# Set to a datetime: every line stamped alike (the runtime's stamps never are).
FIXED_STAMP = None
EPOCH = datetime.datetime(2026, 6, 12, 10, 0, 0, tzinfo=datetime.timezone.utc)


def cri(line, at=None):
    """One application line in CRI framing, stamped `at` (a datetime; now by default) as the
    runtime stamps it, to the nanosecond."""
    at = at or FIXED_STAMP
    ns = time.time_ns() if at is None else int(at.timestamp()) * 10**9 + at.microsecond * 1000
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9))
    return "%s.%09dZ stdout F %s\n" % (stamp, ns % 10**9, line)


class ContainerLog:
    """One container's log directory, written and rotated as the kubelet does."""

    def __init__(self, root, namespace, pod, container, max_size=10 << 20, max_files=5,
                 workflow="review", late_lines=2, uid=None):
        self.dir = os.path.join(root, "%s_%s_%s" % (namespace, pod, uid or "0f0e-%s" % pod),
                                container)
        os.makedirs(self.dir, exist_ok=True)
        self.path = os.path.join(self.dir, "0.log")
        self.max_size, self.max_files, self.late_lines = max_size, max_files, late_lines
        self.workflow = workflow
        self.namespace, self.pod = namespace, pod
        self.execution = "%s-%s" % (namespace, pod)
        self.file = open(self.path, "a")
        self.size = self.file.tell()
        self.rotations = 0
        self.denials = 0
        self.lines = 0
        self.rolled = []
        self.current = self._file_record()

    @staticmethod
    def _file_record():
        return {"name": "0.log", "lines": 0, "first": None, "last": None}

    def files(self):
        """Every file written, oldest first: its name after its rename (`0.log` for the one still
        written), its lines (the late lines too) and the first and last tag written to it."""
        return self.rolled + [dict(self.current)]

    def _line(self, text, tag=None):
        self.file.write(text)
        self.size += len(text)
        self.lines += 1
        self.current["lines"] += 1
        if tag is not None:
            if self.current["first"] is None:
                self.current["first"] = tag
            self.current["last"] = tag

    def write_denials(self, n, filler=0):
        """`n` denials, each after `filler` ordinary lines; rotates when due; flushes."""
        for _ in range(n):
            for _ in range(filler):
                self._line(cri(FILLER % (1781251200000 + self.lines, self.execution, self.workflow, "x" * 150)))
            self.denials += 1
            self._line(cri(DENIAL % (1781251200000 + self.lines, self.execution, self.execution,
                                     self.denials, self.workflow)))
            if self.size >= self.max_size:
                self.rotate()
        self.file.flush()

    def write_line(self, text, tag=None):
        """One application line (`tag`, if given, names it in `files()`); rotates when due;
        flushes."""
        self._line(cri(text), tag)
        if self.size >= self.max_size:
            self.rotate()
        self.file.flush()

    def write_filler(self, n):
        for _ in range(n):
            self._line(cri(FILLER % (1781251200000 + self.lines, self.execution, self.workflow, "x" * 150)))
            if self.size >= self.max_size:
                self.rotate()
        self.file.flush()

    def rolls(self):
        """The rotated files, oldest first (their names sort by time)."""
        return sorted(f for f in os.listdir(self.dir) if f.startswith("0.log."))

    def rotate(self):
        """The kubelet's rotateLatestLog, with the runtime's reopen after it."""
        self.file.flush()
        rolls = [r for r in self.rolls() if not r.endswith(".tmp")]
        for old in rolls[:max(0, len(rolls) - (self.max_files - 2))]:
            os.remove(os.path.join(self.dir, old))
        for plain in (r for r in self.rolls() if not r.endswith((".gz", ".tmp"))):
            src = os.path.join(self.dir, plain)
            with open(src, "rb") as f, gzip.open(src + ".gz.tmp", "wb", compresslevel=1) as g:
                shutil.copyfileobj(f, g)
            os.rename(src + ".gz.tmp", src + ".gz")
            os.remove(src)
        self.rotations += 1
        at = EPOCH + datetime.timedelta(seconds=self.rotations)
        roll = "0.log." + at.strftime("%Y%m%d-%H%M%S")
        os.rename(self.path, os.path.join(self.dir, roll))
        self.current["name"] = roll
        # The runtime still holds the renamed file until it reopens the path.
        for _ in range(self.late_lines):
            self._line(cri(FILLER % (1781251200000 + self.lines, self.execution, self.workflow, "x" * 150)))
        self.file.close()
        self.file = open(self.path, "a")
        self.size = 0
        self.rolled.append(self.current)
        self.current = self._file_record()

    def close(self):
        self.file.close()
