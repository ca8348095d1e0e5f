#!/usr/bin/env python3
"""Independent, slow reference count of permission denials in a generated log.

Reads a pino, stream-json, CRI or Docker json-file log (format auto-detected per line), applies the
counting rules of formats.md section 2 (mid-stream events count at once; an execution's record adds
what it lists beyond them, by tool-use id, else by per-tool count; each denial once; only a
top-level event counts) and prints `reference_total=N` plus a per-(tool, reason) breakdown with
--verbose. Used to cross-check gen-executor-log's `expected_permission_denials_total`.
Usage: reference_count.py FILE [--verbose]
"""
import collections
import json
import sys

EVENT = "agent.permission.denied"
COMPLETED = "Claude Agent SDK execution completed"
KEYS = ("executionId", "execution_id", "sessionId", "session_id", "jobId")


def unwrap(lines):
    """Yields application lines, undoing CRI and Docker json-file framing."""
    partial = []
    for raw in lines:
        raw = raw.rstrip("\n")
        if raw.startswith('{"log":'):
            obj = json.loads(raw)
            partial.append(obj["log"])
            if obj["log"].endswith("\n"):
                yield "".join(partial)[:-1]
                partial = []
        elif raw[:1].isdigit():
            _ts, _stream, tag, text = raw.split(" ", 3)
            partial.append(text)
            if tag == "F":
                yield "".join(partial)
                partial = []
        else:
            yield raw


class Execution:
    def __init__(self):
        self.ids = set()
        self.idless = collections.Counter()
        self.per_tool = collections.Counter()


def main():
    path = sys.argv[1]
    counts = collections.Counter()
    execs = collections.defaultdict(Execution)
    malformed = 0
    with open(path, encoding="utf-8") as f:
        for line in unwrap(f):
            try:
                obj = json.loads(line)
            except ValueError:
                malformed += 1
                continue
            key = next((obj[k] for k in KEYS if isinstance(obj.get(k), str)), None)
            if obj.get("event") == EVENT or (obj.get("type") == "system" and obj.get("subtype") == "permission_denied"):
                tool = obj.get("toolName", obj.get("tool_name"))
                tid = obj.get("toolUseId", obj.get("tool_use_id"))
                reason = obj.get("decisionReasonType", obj.get("decision_reason_type", "unknown"))
                ex = execs[key] if key else None
                if ex is not None and tid in ex.ids:
                    continue
                counts[(tool, obj.get("workflow", "-"), reason)] += 1
                if ex is not None:
                    ex.per_tool[tool] += 1
                    if tid:
                        ex.ids.add(tid)
                    else:
                        ex.idless[tool] += 1
            elif key and (obj.get("msg") == COMPLETED or obj.get("type") == "result"):
                ex = execs[key]
                wf = obj.get("workflow", "-")
                entries = obj.get("permissionDenials", obj.get("permission_denials"))
                if entries is not None:
                    for e in entries:
                        tool = e.get("toolName", e.get("tool_name"))
                        tid = e.get("toolUseId", e.get("tool_use_id"))
                        if tid in ex.ids:
                            continue
                        if ex.idless[tool] > 0:
                            ex.idless[tool] -= 1
                        else:
                            counts[(tool, wf, "unknown")] += 1
                            ex.per_tool[tool] += 1
                        ex.ids.add(tid)
                else:
                    for tool, n in (obj.get("permissionDeniedTools") or {}).items():
                        extra = n - ex.per_tool[tool]
                        if extra > 0:
                            counts[(tool, wf, "unknown")] += extra
                            ex.per_tool[tool] += extra
                if obj.get("msg") == COMPLETED:
                    del execs[key]
    print(f"reference_total={sum(counts.values())} malformed={malformed}")
    if "--verbose" in sys.argv:
        for (tool, wf, reason), n in sorted(counts.items()):
            print(f"  {tool:40} {wf:10} {reason:22} {n}")


if __name__ == "__main__":
    main()
