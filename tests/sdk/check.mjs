#!/usr/bin/env node
// Compares the exporter's text exposition with what the real Agent SDK reported (expected.json,
// written by executor.mjs), for the SDK end-to-end test (tests/sdk/run.sh).
//
//   node check.mjs METRICS EXPECTED.json [--name NAME] [--workflow-as WORKFLOW]
//                  [--audit AUDIT.jsonl] [--log EXPORTER.log]
//
// METRICS is a URL (http://…/metrics) or a file holding the exposition (`denials-exporter replay`
// output). --workflow-as maps every expected workflow to one name, for input that carries no
// workflow of its own (stream-json replayed with --workflow-default). --name labels the output.
// --audit is the exporter's audit log (--audit-log) of the same run, --log its own log (stderr).
//
// Checks, each printed as `ok` or `FAIL` with a diff table of the series that differ:
//   permission_denials_total{tool,workflow,reason}   label set by label set
//   permission_denials_total by workflow, and in total
//   permission_denials_total{reason="unknown"}       0: every denial's reason from the layer that
//                                                      denied it (its frame or per-call record)
//   permission_denials_unenforced_total              = expected.json's `unenforced` (0 when real)
//   permission_denial_risks_total{tool,workflow,risk} the class scenario.mjs gives each denial
//   permission_denial_risks_total summed over risk   = permission_denials_total, by tool and
//                                                      workflow, and in total (both exposed)
//   with --audit: each denial's class, by tool use id (the `risk` of its `permission_denial`
//                 line, or of the `risk_decided` line that follows a `pending` one), and its
//                 reason (the layer's), and `denial_unenforced` lines only for `unenforced`
//   the fake key pair of expected.json (`secrets`) in none of the exposition, the audit log and
//                 the exporter's log
//   agent_executions_total{workflow,outcome}         one per SDK result message
//   agent_execution_cost_usd_sum{workflow}           = Σ sessions' last total_cost_usd
//   agent_tokens_total{workflow,kind}                = Σ sessions' last modelUsage, all models
//   agent_tokens_by_model_total{workflow,kind,model} = Σ sessions' last modelUsage[model]
//   agent_cost_usd_total{workflow,model}             = Σ sessions' last modelUsage[model].costUSD
//   agent_cost_usd_total summed over models          = Σ sessions' last total_cost_usd
// Counts must match exactly, dollars within 1e-9 relative. A series missing on one side counts as
// 0 there. Prints `check(NAME): P of N checks passed`; exits 1 if any failed, 2 on bad input.

import { readFileSync } from 'node:fs'

function parseArgs (argv) {
  const positional = []
  const opts = { name: 'exposition', 'workflow-as': null, audit: null, log: null }
  for (let i = 2; i < argv.length; i++) {
    if (argv[i].startsWith('--')) {
      const key = argv[i].slice(2)
      if (!(key in opts) || argv[i + 1] === undefined) usage(`unknown or incomplete option ${argv[i]}`)
      opts[key] = argv[++i]
    } else positional.push(argv[i])
  }
  if (positional.length !== 2) usage('need METRICS and EXPECTED.json')
  return { metrics: positional[0], expected: positional[1], ...opts }
}

function usage (why) {
  console.error(`check.mjs: ${why}\nusage: node check.mjs METRICS(URL|FILE) EXPECTED.json [--name NAME] [--workflow-as WORKFLOW] [--audit FILE] [--log FILE]`)
  process.exit(2)
}

// The text exposition: [{ name, labels, value }], comments skipped.
export function parseExposition (text) {
  const samples = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line)
    if (!m) continue
    const labels = {}
    if (m[3]) {
      for (const l of m[3].matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
        labels[l[1]] = l[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\')
      }
    }
    samples.push({ name: m[1], labels, value: Number(m[4]) })
  }
  return samples
}

async function load (where) {
  if (/^https?:\/\//.test(where)) {
    const res = await fetch(where, { signal: AbortSignal.timeout(5000) })
    if (!res.ok) throw new Error(`${where}: HTTP ${res.status}`)
    return res.text()
  }
  return readFileSync(where, 'utf8')
}

// Sums samples of one metric over the given label names: Map(key → value), key = values joined.
function collect (samples, name, labelNames) {
  const out = new Map()
  for (const s of samples) {
    if (s.name !== name) continue
    const key = labelNames.map((l) => s.labels[l] ?? '').join('\u0000')
    out.set(key, (out.get(key) ?? 0) + s.value)
  }
  return out
}

function fromRows (rows, labelNames, mapWorkflow) {
  const out = new Map()
  for (const r of rows) {
    const key = labelNames.map((l) => (l === 'workflow' ? mapWorkflow(r[l]) : r[l])).join('\u0000')
    out.set(key, (out.get(key) ?? 0) + r.value)
  }
  return out
}

const exact = (a, b) => a === b
const dollars = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) + 1e-15

function table (headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const fmt = (r) => '      ' + r.map((c, i) => String(c).padEnd(widths[i])).join('  ')
  return [fmt(headers), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)].join('\n')
}

const fmtNum = (v) => v === undefined ? 'missing' : (Number.isInteger(v) ? String(v) : v.toPrecision(12).replace(/\.?0+$/, ''))

async function main () {
  const args = parseArgs(process.argv)
  let text, expected, audit, exporterLog
  try {
    text = await load(args.metrics)
    expected = JSON.parse(readFileSync(args.expected, 'utf8'))
    audit = args.audit === null ? null : readFileSync(args.audit, 'utf8')
    exporterLog = args.log === null ? null : readFileSync(args.log, 'utf8')
  } catch (e) {
    console.error(`check.mjs: ${e.message}`)
    process.exit(2)
  }
  const samples = parseExposition(text)
  const wf = args['workflow-as'] ? () => args['workflow-as'] : (w) => w
  const results = []

  function compare (title, metric, labelNames, have, want, same = exact, columns = ['series', 'exporter', 'expected (SDK)', 'difference']) {
    const rows = []
    for (const key of [...new Set([...have.keys(), ...want.keys()])].sort()) {
      const h = have.get(key)
      const w = want.get(key)
      if ((h ?? 0) === 0 && (w ?? 0) === 0) continue
      if (!same(h ?? 0, w ?? 0)) {
        const labels = labelNames.length ? key.split('\u0000').map((v, i) => `${labelNames[i]}="${v}"`).join(',') : ''
        rows.push([`${metric}{${labels}}`, fmtNum(h), fmtNum(w), h === undefined || w === undefined ? '' : fmtNum(h - w)])
      }
    }
    const present = samples.some((s) => s.name === metric)
    const ok = rows.length === 0
    results.push(ok)
    const size = `${[...have.values()].filter((v) => v !== 0).length} series in the exposition, ${[...want.values()].filter((v) => v !== 0).length} ${columns[2].startsWith('expected') ? 'expected' : 'to match'}`
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${title}: ${size}${present ? '' : ` (no ${metric} in the exposition)`}`)
    // A metric missing altogether: a few rows say enough. Otherwise at most 40.
    const cap = present ? 40 : 4
    if (!ok) {
      console.log(table(columns, rows.slice(0, cap)))
      if (rows.length > cap) console.log(`      … and ${rows.length - cap} more`)
    }
  }

  const D = 'permission_denials_total'
  compare(`${D} by tool, workflow, reason`, D, ['tool', 'workflow', 'reason'],
    collect(samples, D, ['tool', 'workflow', 'reason']), fromRows(expected.denials, ['tool', 'workflow', 'reason'], wf))
  compare(`${D} by workflow`, D, ['workflow'],
    collect(samples, D, ['workflow']), fromRows(expected.denials, ['workflow'], wf))
  compare(`${D} in total`, D, [],
    collect(samples, D, []), fromRows(expected.denials, [], wf))

  const unknownRows = [...collect(samples, D, ['tool', 'workflow', 'reason']).entries()]
    .filter(([key, v]) => key.endsWith('\u0000unknown') && v !== 0)
  compare(`${D}{reason="unknown"}: none (each reason from its layer)`, D, ['tool', 'workflow', 'reason'],
    new Map(unknownRows), new Map())
  const U = 'permission_denials_unenforced_total'
  const unenforcedRows = (expected.unenforced ?? []).map((u) => ({ ...u, value: 1 }))
  compare(`${U} by tool, workflow`, U, ['tool', 'workflow'],
    collect(samples, U, ['tool', 'workflow']), fromRows(unenforcedRows, ['tool', 'workflow'], wf))

  // What was attempted: the risk class of each denial, and the sums that tie it to the denials.
  const R = 'permission_denial_risks_total'
  compare(`${R} by tool, workflow, risk`, R, ['tool', 'workflow', 'risk'],
    collect(samples, R, ['tool', 'workflow', 'risk']), fromRows(expected.risks ?? [], ['tool', 'workflow', 'risk'], wf))
  const sumColumns = ['series', `Σ ${R} over risk`, D, 'difference']
  compare(`Σ over risk of ${R} = ${D}, by tool, workflow`, R, ['tool', 'workflow'],
    collect(samples, R, ['tool', 'workflow']), collect(samples, D, ['tool', 'workflow']), exact, sumColumns)
  compare(`Σ over risk of ${R} = ${D}, in total`, R, [],
    collect(samples, R, []), collect(samples, D, []), exact, sumColumns)
  if (audit !== null) checkAudit(audit)

  // Each denial's class in the audit log, by tool use id: the class of its `permission_denial`
  // line, or, when that says `pending`, of the `risk_decided` line that follows.
  function checkAudit (auditText) {
    const classOf = new Map()
    const reasonOf = new Map()
    const marked = new Set()
    let lines = 0
    for (const raw of auditText.split('\n')) {
      if (!raw.trim()) continue
      lines++
      let r
      try { r = JSON.parse(raw) } catch { classOf.set(`(line ${lines} is no JSON)`, 'malformed'); continue }
      if (r.audit === 'permission_denial') { classOf.set(r.tool_use_id, r.risk); reasonOf.set(r.tool_use_id, r.reason) } else if (r.audit === 'risk_decided') classOf.set(r.tool_use_id, r.risk)
      else if (r.audit === 'denial_unenforced') marked.add(r.tool_use_id)
    }
    const rows = []
    for (const a of expected.attempts ?? []) {
      const have = classOf.get(a.toolUseId)
      if (have !== a.risk) rows.push([a.toolUseId, a.tool, a.workflow, a.layer, have ?? 'missing', a.risk])
    }
    const ids = new Set((expected.attempts ?? []).map((a) => a.toolUseId))
    for (const [id, have] of classOf) if (!ids.has(id)) rows.push([id, '?', '?', '(not an SDK denial)', have, 'none expected'])
    const ok = rows.length === 0 && (expected.attempts ?? []).length > 0
    results.push(ok)
    console.log(`${ok ? 'ok  ' : 'FAIL'} risk class of each denial in the audit log: ${classOf.size} denials in ${lines} lines, ${(expected.attempts ?? []).length} expected`)
    if (rows.length) console.log(table(['tool use id', 'tool', 'workflow', 'layer', 'audit log', 'expected'], rows.slice(0, 40)))

    // Each denial's reason on its own audit line, and the unenforced marks.
    const reasonRows = []
    for (const a of expected.attempts ?? []) {
      if (reasonOf.get(a.toolUseId) !== a.reason) reasonRows.push([a.toolUseId, a.tool, a.workflow, a.layer, reasonOf.get(a.toolUseId) ?? 'missing', a.reason])
    }
    const unenforced = new Set((expected.unenforced ?? []).map((u) => u.toolUseId))
    for (const id of marked) if (!unenforced.has(id)) reasonRows.push([id, '?', '?', 'denial_unenforced line', 'unenforced', 'enforced'])
    for (const id of unenforced) if (!marked.has(id)) reasonRows.push([id, '?', '?', 'denial_unenforced line', 'missing', 'unenforced'])
    const reasonsOk = reasonRows.length === 0 && (expected.attempts ?? []).length > 0
    results.push(reasonsOk)
    console.log(`${reasonsOk ? 'ok  ' : 'FAIL'} reason of each denial in the audit log (the layer that denied it): ${reasonOf.size} denials, ${marked.size} marked unenforced, ${unenforced.size} expected`)
    if (reasonRows.length) console.log(table(['tool use id', 'tool', 'workflow', 'layer', 'audit log', 'expected'], reasonRows.slice(0, 40)))
  }

  // The fake key pair is in the input (run.sh checks that); nothing the exporter writes may hold it.
  const outputs = [['the exposition', text], ['the audit log', audit], ["the exporter's log", exporterLog]].filter(([, t]) => t !== null)
  const leaks = []
  for (const [where, t] of outputs) {
    for (const secret of expected.secrets ?? []) {
      const n = t.split(secret).length - 1
      if (n) leaks.push([where, `${secret.slice(0, 4)}…(${secret.length} characters)`, n])
    }
  }
  const secretsOk = leaks.length === 0 && (expected.secrets ?? []).length > 0
  results.push(secretsOk)
  console.log(`${secretsOk ? 'ok  ' : 'FAIL'} the fake key pair in no output: ${(expected.secrets ?? []).length} secrets looked for in ${outputs.map(([w]) => w).join(', ')}`)
  if (leaks.length) console.log(table(['output', 'secret', 'occurrences'], leaks))

  const E = 'agent_executions_total'
  compare(`${E} by workflow, outcome`, E, ['workflow', 'outcome'],
    collect(samples, E, ['workflow', 'outcome']), fromRows(expected.executions, ['workflow', 'outcome'], wf))

  const C = 'agent_execution_cost_usd_sum'
  const totalCostRows = Object.entries(expected.totalCostUsdByWorkflow).map(([workflow, value]) => ({ workflow, value }))
  compare(`${C} by workflow (Σ total_cost_usd)`, C, ['workflow'],
    collect(samples, C, ['workflow']), fromRows(totalCostRows, ['workflow'], wf), dollars)

  const T = 'agent_tokens_total'
  compare(`${T} by workflow, kind (Σ modelUsage over models)`, T, ['workflow', 'kind'],
    collect(samples, T, ['workflow', 'kind']), fromRows(expected.tokens, ['workflow', 'kind'], wf))

  const TM = 'agent_tokens_by_model_total'
  compare(`${TM} by workflow, kind, model`, TM, ['workflow', 'kind', 'model'],
    collect(samples, TM, ['workflow', 'kind', 'model']), fromRows(expected.tokens, ['workflow', 'kind', 'model'], wf))

  const CM = 'agent_cost_usd_total'
  compare(`${CM} by workflow, model`, CM, ['workflow', 'model'],
    collect(samples, CM, ['workflow', 'model']), fromRows(expected.cost, ['workflow', 'model'], wf), dollars)
  compare(`${CM} by workflow, all models (Σ total_cost_usd)`, CM, ['workflow'],
    collect(samples, CM, ['workflow']), fromRows(totalCostRows, ['workflow'], wf), dollars)

  const passed = results.filter(Boolean).length
  console.log(`check(${args.name}): ${passed} of ${results.length} checks passed`)
  process.exit(passed === results.length ? 0 : 1)
}

await main()
