#!/usr/bin/env python3
"""Writes the hostile inputs of the hostile-input review.

    hostile_inputs.py corpus DIR   the small regression corpus (tests/data/hostile/*.log)
    hostile_inputs.py bench DIR    the benchmark inputs at the review's scale (hundreds of MB)

Every file is pino NDJSON unless its name says otherwise. For each bench input, a line
`NAME EXPECTED` goes to DIR/expected.txt: the denials the exporter must count with default
flags, or `-` where the answer depends on the flags (label caps) and only the bound matters.
"""

import json
import os
import random
import string
import sys

# Fixed log times (2026-06-12T10:00:00Z), far behind any wall clock that runs these tests.
T0 = 1781258400000
COMPLETED = "Claude Agent SDK execution completed"


def denial(exec_id, tool, use_id, time=None, workflow="review"):
    line = {"level": 40}
    if time is not None:
        line["time"] = time
    if exec_id is not None:
        line["executionId"] = exec_id
    line.update({"workflow": workflow, "event": "agent.permission.denied", "toolName": tool})
    if use_id is not None:
        line["toolUseId"] = use_id
    line.update({"decisionReasonType": "hook", "msg": "agent permission denied"})
    return json.dumps(line, separators=(",", ":"))


def record(exec_id, ids, time=None, cost=None, tool="Bash", tool_input=None, extra=""):
    items = []
    for k, i in enumerate(ids):
        # Only the last listed denial carries the hostile tool input.
        hostile = tool_input is not None and k == len(ids) - 1
        inner = '"toolInput":' + (tool_input if hostile else '{"command":"ls"}')
        items.append('{"toolName":%s,"toolUseId":%s,%s}' % (json.dumps(tool), json.dumps(i), inner))
    parts = ['"level":30']
    if time is not None:
        parts.append('"time":%s' % time)
    parts.append('"executionId":%s' % json.dumps(exec_id))
    parts.append('"workflow":"review","subtype":"success"')
    if cost is not None:
        parts.append('"costUsd":%s' % cost)
    if extra:
        parts.append(extra)
    parts.append('"permissionDenials":[%s]' % ",".join(items))
    parts.append('"msg":"%s"' % COMPLETED)
    return "{" + ",".join(parts) + "}"


def per_tool_line(tools, value, exec_id="e-flood"):
    counts = ",".join('"t%d":%s' % (i, value) for i in range(tools))
    return ('{"level":30,"time":%d,"executionId":"%s","workflow":"review","subtype":"success",'
            '"permissionDeniedTools":{%s},"msg":"%s"}' % (T0, exec_id, counts, COMPLETED))


def deep(depth):
    return "[" * depth + '"git push --force"' + "]" * depth


def write(path, lines):
    with open(path, "w", encoding="utf-8", newline="") as f:
        for line in lines:
            f.write(line + "\n")


def corpus(out):
    """One small file per finding; expected counts are in src/tests/hostile/corpus.rs."""
    os.makedirs(out, exist_ok=True)
    # 1: 2,000 tools x 1e15 in 53 KB claims 2e18 denials; counted: the per-record budget.
    write(f"{out}/finding1-20m-denials.log", [per_tool_line(2000, "1000000000000000")])
    # 2: record-only denials behind tool inputs 200 and 100,000 deep still count.
    for name, depth in (("200", 200), ("100k", 100_000)):
        write(f"{out}/finding2-deep-{name}.log", [
            denial("e1", "Bash", "t1", T0),
            record("e1", ["t1", "t2", "t3"], T0 + 1000, tool_input=deep(depth)),
        ])
    # 3: a microsecond-epoch time must not evict the executions in flight (no double count).
    lines = []
    for e in range(3):
        lines.append(denial(f"e{e}", "Bash", f"t{e}", T0 + e))
    lines.append(denial("e-us", "Edit", "us1", T0 * 1000))
    for e in range(3):
        lines.append(record(f"e{e}", [f"t{e}"], T0 + 1000 + e))
    write(f"{out}/finding3-us-epoch.log", lines)
    # 3: a denial and its record 1 s apart, far behind the wall clock, count once.
    write(f"{out}/finding3-behind-wall-clock.log", [
        denial("e1", "Bash", "t1", T0 - 12 * 3600 * 1000),
        record("e1", ["t1"], T0 - 12 * 3600 * 1000 + 1000),
    ])
    # Found by the property tests: executions seen before any log time (stream-json lines carry
    # none) were evicted by the first timed line, and their records counted again.
    write(f"{out}/found-untimed-execution-then-first-time.log", [
        '{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"s1",'
        '"decision_reason_type":"rule","session_id":"sess-1"}',
        denial("e1", "Edit", "p1", T0),
        '{"type":"result","subtype":"success","total_cost_usd":0.5,'
        '"permission_denials":[{"tool_name":"Bash","tool_use_id":"s1","tool_input":{}}],'
        '"session_id":"sess-1"}',
    ])
    # Found by the property tests: a record claiming u64::MAX denials of a tool, then a
    # mid-stream denial of that tool: the per-execution count overflowed (a panic in debug
    # builds, a wrap to 0 in release, after which the next record revealed its budget again).
    write(f"{out}/found-per-tool-count-at-u64-max.log", [
        '{"level":30,"executionId":"e1","permissionDeniedTools":{"Bash":18446744073709551616},'
        '"msg":"%s"}' % COMPLETED,
        denial("e1", "Bash", None, T0),
        '{"level":30,"executionId":"e1","permissionDeniedTools":{"Bash":18446744073709551616},'
        '"msg":"%s"}' % COMPLETED,
    ])
    # 4: two 1e308 costs (and tokens) must leave finite sums that the state file holds.
    write(f"{out}/finding4-1e308.log", [
        record("e1", [], T0, cost="1e308", extra='"inputTokens":1e308,"durationMs":1e308'),
        record("e2", [], T0 + 1, cost="1e308", extra='"inputTokens":1e308,"durationMs":1e308'),
    ])
    # 14: a BOM before the first line, a NUL run before a line (copytruncate).
    with open(f"{out}/finding14-bom.log", "wb") as f:
        f.write(b"\xef\xbb\xbf" + denial("e1", "Bash", "t1", T0).encode() + b"\n")
    with open(f"{out}/finding14-nul.log", "wb") as f:
        f.write(b'{"level":30,"msg":"before"}\n')
        f.write(b"\0" * 4096 + denial("e1", "Bash", "t1", T0).encode() + b"\n")
    # 14: an escaped event name never counts, with or without a prefilter literal elsewhere.
    write(f"{out}/finding14-escaped-event.log", [
        '{"level":40,"event":"agent.permission.\\u0064enied","toolName":"Bash","toolUseId":"x1"}',
        '{"level":40,"event":"agent.permission.\\u0064enied","toolName":"Bash","toolUseId":"x2",'
        '"note":"agent.permission.denied"}',
    ])


def bench(out):
    os.makedirs(out, exist_ok=True)
    expected = []

    # 1: the 53 KB line, and a 1 MiB one (as many tools as fit under --max-line-bytes).
    write(f"{out}/f1-53k-line.log", [per_tool_line(2000, "1000000000000000")])
    expected.append(("f1-53k-line", 10_000))
    n = 2000
    while len(per_tool_line(n + 100, "1000000000000000")) < (1 << 20) - 4096:
        n += 100
    write(f"{out}/f1-1mib-line.log", [per_tool_line(n, "1000000000000000")])
    expected.append(("f1-1mib-line", 10_000))

    # 2: record-only denials behind a tool input 100,000 deep.
    write(f"{out}/f2-deep-100k.log", [record("e1", ["t1", "t2"], T0, tool_input=deep(100_000))])
    expected.append(("f2-deep-100k", 2))

    # 3: a microsecond-epoch line, then 1,000 executions' denials and their records.
    with open(f"{out}/f3-us-epoch.log", "w") as f:
        for e in range(1000):
            f.write(denial(f"e{e}", "Bash", f"t{e}", T0 + e) + "\n")
        f.write(denial("e-us", "Edit", "us1", T0 * 1000) + "\n")
        for e in range(1000):
            f.write(record(f"e{e}", [f"t{e}"], T0 + 2000 + e) + "\n")
    expected.append(("f3-us-epoch", 1001))

    # 4: two records with 1e308 costs.
    write(f"{out}/f4-1e308.log", [
        record("e1", ["t1"], T0, cost="1e308"),
        record("e2", ["t2"], T0 + 1, cost="1e308"),
    ])
    expected.append(("f4-1e308", 2))

    # 5a: a backlog of 1M denials (the audit ring is measured with --recent-denials 100).
    with open(f"{out}/f5-backlog-1m.log", "w") as f:
        for i in range(1_000_000):
            f.write(denial(f"e{i % 1000}", "Bash", f"t{i}", T0 + i) + "\n")
    expected.append(("f5-backlog-1m", 1_000_000))

    # 5b: 300 distinct tool names of 1 MB (each line stays under --max-line-bytes).
    with open(f"{out}/f5-300-1mb-tools.log", "w") as f:
        for i in range(300):
            name = ("%03d" % i) + "T" * 1_000_000
            f.write(denial("e1", name, f"t{i}", T0 + i) + "\n")
    expected.append(("f5-300-1mb-tools", 300))

    # 5c: 200 tools x 100 workflows x 13 reasons = 260,000 label sets.
    reasons = ["rule", "mode", "subcommandResults", "permissionPromptTool", "hook", "asyncAgent",
               "sandboxOverride", "workingDir", "safetyCheck", "classifier", "other", "user",
               "unknown"]
    with open(f"{out}/f5-260k-label-sets.log", "w") as f:
        for t in range(200):
            for w in range(100):
                for r in reasons:
                    f.write('{"level":40,"workflow":"w%d","event":"agent.permission.denied",'
                            '"toolName":"tool%d","decisionReasonType":"%s"}\n' % (w, t, r))
    expected.append(("f5-260k-label-sets", 260_000))

    # 5d: 1M distinct execution ids (eviction at the execution cap).
    with open(f"{out}/f5-1m-executions.log", "w") as f:
        for i in range(1_000_000):
            f.write(denial(f"exec-{i}", "Bash", "t1", T0 + i) + "\n")
    expected.append(("f5-1m-executions", 1_000_000))

    # 6: the per-call book at its bounds: 4,500 open stream-json executions (over the default
    # --max-executions), each with 8 tools of 95-byte names denied 11 times with distinct inputs
    # by their per-call records, and 40 calls asked for and never answered.
    rng = random.Random(6)

    def rid(k=24):
        return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(k))

    with open(f"{out}/f6-call-book.log", "w") as f:
        for s in range(4500):
            sid = "%08x-0000-4000-8000-%012x" % (s, s)
            for tool in ["Tool_" + rid(90) for _ in range(8)]:
                for _ in range(11):
                    use = "toolu_" + rid()
                    ask = {"type": "tool_use", "id": use, "name": tool, "input": {"command": rid(40)}}
                    f.write(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [ask]},
                                        "parent_tool_use_id": None, "session_id": sid}) + "\n")
                    answer = {"type": "tool_result", "content": "denied", "is_error": True, "tool_use_id": use}
                    meta = {"id": use, "non_execution_kind": "permission-rule",
                            "permission_decision": {"decision": "reject", "source": "config", "reason_type": "rule"}}
                    f.write(json.dumps({"type": "user", "message": {"role": "user", "content": [answer]},
                                        "parent_tool_use_id": None, "session_id": sid,
                                        "tool_result_meta": [meta]}) + "\n")
            asks = [{"type": "tool_use", "id": "toolu_" + rid(), "name": "Ask_" + rid(90), "input": {"c": rid(30)}}
                    for _ in range(40)]
            f.write(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": asks},
                                "parent_tool_use_id": None, "session_id": sid}) + "\n")
    expected.append(("f6-call-book", 4500 * 88))

    with open(f"{out}/expected.txt", "w") as f:
        for name, n in expected:
            f.write(f"{name} {n}\n")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("corpus", "bench"):
        sys.exit(__doc__)
    {"corpus": corpus, "bench": bench}[sys.argv[1]](sys.argv[2])
