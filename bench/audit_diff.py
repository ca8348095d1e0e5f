#!/usr/bin/env python3
"""Replays the corpora through two builds with `--audit-log` and diffs their audit streams.

    audit_diff.py BASE_BINARY NEW_BINARY [--keep DIR]

The corpora: examples/executor.log, every tests/data/**/*.log, and the redaction, risk and
scanner corpora fed as denials (each text a hook denial's reason and, in the execution's result
record, the tool input that carried it). Exits 1 and prints the first differing records when the
streams differ (times stamped from the wall clock masked); python3 stdlib only.
"""

import argparse
import datetime
import difflib
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def corpus_texts():
    """(tool, input object) pairs from the redaction, risk and scanner corpora."""
    data = os.path.join(ROOT, "tests", "data")
    for name in ("positives.txt", "negatives.txt"):
        for line in open(os.path.join(data, "redaction", name), encoding="utf-8"):
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                yield "Bash", {"command": line.rsplit("\t", 1)[-1]}
    for line in open(os.path.join(data, "risk", "corpus.tsv"), encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t", 3)
        if len(parts) < 4:
            continue
        _, tool, field, text = parts
        if field == "json":
            try:
                value = json.loads(text)
            except ValueError:
                value = {"command": text}
            yield tool, value if isinstance(value, dict) else {"command": text}
        else:
            yield tool, {field: text}
    for line in open(os.path.join(data, "scanners", "scanners.jsonl"), encoding="utf-8"):
        case = json.loads(line)
        if "text" in case:
            yield "Bash", {"command": case["text"]}


def denial_log(path):
    """A pino log: per corpus text, an execution with a hook denial and its result record."""
    base = {"level": 40, "pid": 1, "hostname": "h", "component": "executor", "installationId": 1,
            "repo": "acme/web"}
    with open(path, "w", encoding="utf-8") as out:
        for i, (tool, tool_input) in enumerate(corpus_texts()):
            ex, use = f"exec_{i:06d}", f"toolu_{i:06d}"
            text = next((v for v in tool_input.values() if isinstance(v, str)), "")
            start = dict(base, level=30, time=1781251200000 + 3 * i, executionId=ex, jobId=ex,
                         workflow="corpus", model="m", msg="Claude Agent SDK execution started")
            denied = dict(base, time=1781251200001 + 3 * i, executionId=ex, jobId=ex,
                          workflow="corpus", event="agent.permission.denied", toolName=tool,
                          toolUseId=use, decisionReasonType="hook",
                          decisionReason=f"PreToolUse hook guard denied: {text}",
                          message=f"Permission to use {tool} has been denied.",
                          msg="agent permission denied")
            done = dict(base, level=30, time=1781251200002 + 3 * i, executionId=ex, jobId=ex,
                        workflow="corpus", sdkMsgType="result", subtype="success", costUsd=0.01,
                        durationMs=10, numTurns=1, permissionDenialCount=1,
                        permissionDenials=[{"toolName": tool, "toolUseId": use,
                                            "toolInput": tool_input}],
                        msg="Claude Agent SDK execution completed")
            for record in (start, denied, done):
                out.write(json.dumps(record) + "\n")


def audit(binary, log, scratch, name):
    path = os.path.join(scratch, name + ".audit.jsonl")
    if os.path.exists(path):
        os.unlink(path)
    subprocess.run([binary, "replay", "--audit-log", path, log], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    if not os.path.exists(path):
        return []
    # A record whose line had no time of its own is stamped with the wall clock: masked.
    today = '"time":"' + datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT")
    return [re.sub(re.escape(today) + r'[^"]*"', '"time":"(replay time)"', line)
            for line in open(path, encoding="utf-8").read().splitlines()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--keep", help="write the logs and audit streams here")
    opts = parser.parse_args()
    scratch = opts.keep or tempfile.mkdtemp()
    os.makedirs(scratch, exist_ok=True)
    corpus = os.path.join(scratch, "corpora.log")
    denial_log(corpus)
    logs = [os.path.join(ROOT, "examples", "executor.log"), corpus]
    logs += sorted(glob.glob(os.path.join(ROOT, "tests", "data", "**", "*.log"), recursive=True))
    differ = 0
    records = 0
    for log in logs:
        name = os.path.relpath(log, ROOT).replace(os.sep, "_") if log != corpus else "corpora"
        base = audit(opts.base, log, scratch, name + ".base")
        new = audit(opts.new, log, scratch, name + ".new")
        records += len(base)
        if base != new:
            differ += 1
            print(f"{name}: {len(base)} base records, {len(new)} new; first differences:")
            shown = 0
            for line in difflib.unified_diff(base, new, lineterm="", n=0):
                print("  " + line[:400])
                shown += 1
                if shown > 40:
                    break
    print(f"{len(logs)} logs, {records} base audit records, {differ} logs differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
