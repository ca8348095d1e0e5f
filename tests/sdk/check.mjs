#!/usr/bin/env node
// Compares the exporter's text exposition with what the real Agent SDK reported (expected.json,
// written by executor.mjs), for the SDK end-to-end test (tests/sdk/run.sh).
//
//   node check.mjs METRICS EXPECTED.json [--name NAME] [--workflow-as WORKFLOW]
//
// METRICS is a URL (http://…/metrics) or a file holding the exposition (`denials-exporter replay`
// output). --workflow-as maps every expected workflow to one name, for input that carries no
// workflow of its own (stream-json replayed with --workflow-default). --name labels the output.
//
// Checks, each printed as `ok` or `FAIL` with a diff table of the series that differ:
//   permission_denials_total{tool,workflow,reason}   label set by label set
//   permission_denials_total by workflow, and in total
//   permission_denial_risks_total{tool,workflow,risk} the class scenario.mjs gives each denied call
//   permission_denial_risks_total summed over risk   = permission_denials_total summed over reason,
//                                                      by tool and workflow (both from the exposition)
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
  const opts = { name: 'exposition', 'workflow-as': null }
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
  console.error(`check.mjs: ${why}\nusage: node check.mjs METRICS(URL|FILE) EXPECTED.json [--name NAME] [--workflow-as WORKFLOW]`)
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
  let text, expected
  try {
    text = await load(args.metrics)
    expected = JSON.parse(readFileSync(args.expected, 'utf8'))
  } catch (e) {
    console.error(`check.mjs: ${e.message}`)
    process.exit(2)
  }
  const samples = parseExposition(text)
  const wf = args['workflow-as'] ? () => args['workflow-as'] : (w) => w
  const results = []

  function compare (title, metric, labelNames, have, want, same = exact) {
    const rows = []
    for (const key of [...new Set([...have.keys(), ...want.keys()])].sort()) {
      const h = have.get(key)
      const w = want.get(key)
      if ((h ?? 0) === 0 && (w ?? 0) === 0) continue
      if (!same(h ?? 0, w ?? 0)) {
        const labels = key.split('\u0000').map((v, i) => `${labelNames[i]}="${v}"`).join(',')
        rows.push([`${metric}{${labels}}`, fmtNum(h), fmtNum(w), h === undefined || w === undefined ? '' : fmtNum(h - w)])
      }
    }
    const present = samples.some((s) => s.name === metric)
    const ok = rows.length === 0
    results.push(ok)
    const size = `${[...have.values()].filter((v) => v !== 0).length} series in the exposition, ${[...want.values()].filter((v) => v !== 0).length} expected`
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${title}: ${size}${present ? '' : ` (no ${metric} in the exposition)`}`)
    // A metric missing altogether: a few rows say enough. Otherwise at most 40.
    const cap = present ? 40 : 4
    if (!ok) {
      console.log(table(['series', 'exporter', 'expected (SDK)', 'difference'], rows.slice(0, cap)))
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

  const R = 'permission_denial_risks_total'
  compare(`${R} by tool, workflow, risk`, R, ['tool', 'workflow', 'risk'],
    collect(samples, R, ['tool', 'workflow', 'risk']), fromRows(expected.denialRisks, ['tool', 'workflow', 'risk'], wf))
  compare(`${R} summed over risk = ${D} summed over reason, by tool, workflow`, R, ['tool', 'workflow'],
    collect(samples, R, ['tool', 'workflow']), collect(samples, D, ['tool', 'workflow']))

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
