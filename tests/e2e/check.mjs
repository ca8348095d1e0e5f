#!/usr/bin/env node
// The end-to-end test's eyes (tests/e2e/run.sh): reads the exporter's /metrics and Prometheus'
// HTTP API, and compares them with what the writer recorded (writer.mjs --expected).
//
//   node check.mjs sample METRICS_URL OUT.json
//       Scrapes METRICS_URL every 100 ms until SIGTERM, then writes OUT.json: every time a
//       permission_denials_total series went down between two answers (what Prometheus would
//       take for a counter reset), and the sums seen. Failed scrapes (exporter down) are skipped.
//   node check.mjs settle METRICS_URL EXPECTED.json SECONDS
//       Waits until sum(permission_denials_total) equals the expected total and then stays put
//       for 2 s; exits 1 if that does not happen within SECONDS.
//   node check.mjs prometheus PROM_URL JOB EXPECTED.json SAMPLES.json SECONDS KILLED_AT
//       Waits (at most SECONDS) until Prometheus' latest sum equals the expected total, then
//       checks, in Prometheus: that every permission_denials_total label set has the value the
//       writer recorded (no missing or extra ones); that the exporter read as many lines as the
//       writer wrote; that resets() is 0 for every series; that it scraped the exporter before
//       the kill at KILLED_AT (epoch seconds) and after the restart (so the samples resets() saw
//       span it). And that the 10 Hz sampler saw no counter go down. Prints one line per check;
//       exits 1 if any failed.
//   node check.mjs explain AUDIT.jsonl LOGS_DIR
//       After a failure: every denial the stream reported (a mid-stream line with its toolUseId)
//       that the audit log says was counted from its execution's record as reason "unknown"
//       instead, with the file and byte offset of both lines, so that a misattribution names the
//       order the exporter read them in. Prints at most 5; exits 0.
//   node check.mjs exact METRICS_URL EXPECTED.json SAMPLES.json
//       Without Prometheus: checks that the exporter's own permission_denials_total equals, label
//       set by label set, what the writer recorded, that no line was malformed, and that the
//       10 Hz sampler saw no counter go down. Exits 1 if any failed.

import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const METRIC = 'permission_denials_total'
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const key = (tool, workflow, reason) => `{tool="${tool}",workflow="${workflow}",reason="${reason}"}`

// Parses the text exposition: labels string → value, for the denials counter only.
function parseDenials (text) {
  const series = new Map()
  for (const line of text.split('\n')) {
    if (!line.startsWith(METRIC + '{')) continue
    const close = line.lastIndexOf('}')
    const labels = {}
    for (const m of line.slice(METRIC.length + 1, close).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1]] = m[2]
    series.set(key(labels.tool, labels.workflow, labels.reason), Number(line.slice(close + 1).trim()))
  }
  return series
}

async function scrape (url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) })
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`)
  return parseDenials(await res.text())
}

const sum = (series) => [...series.values()].reduce((a, b) => a + b, 0)

function loadExpected (path) {
  const expected = JSON.parse(readFileSync(path, 'utf8'))
  const series = new Map(expected.series.map((s) => [key(s.tool, s.workflow, s.reason), s.value]))
  return { ...expected, series }
}

async function sample (url, out) {
  const last = new Map()
  const dips = []
  const sums = []
  let scrapes = 0
  let failures = 0
  let stop = false
  process.on('SIGTERM', () => { stop = true })
  process.on('SIGINT', () => { stop = true })
  while (!stop) {
    try {
      const now = await scrape(url)
      scrapes++
      for (const [k, v] of now) {
        const before = last.get(k)
        if (before !== undefined && v < before) dips.push({ at: new Date().toISOString(), series: k, from: before, to: v })
        last.set(k, v)
      }
      for (const k of last.keys()) {
        if (!now.has(k)) dips.push({ at: new Date().toISOString(), series: k, from: last.get(k), to: null })
      }
      const total = sum(now)
      if (sums.length === 0 || sums[sums.length - 1].sum !== total) sums.push({ at: Date.now(), sum: total })
    } catch {
      failures++
    }
    await sleep(100)
  }
  writeFileSync(out, JSON.stringify({ scrapes, failures, dips, sums }) + '\n')
}

async function settle (url, expectedPath, seconds) {
  const { total } = loadExpected(expectedPath)
  const deadline = Date.now() + seconds * 1000
  let seen = null
  let since = Date.now()
  while (Date.now() < deadline) {
    let now = null
    try { now = sum(await scrape(url)) } catch {}
    if (now !== seen) { seen = now; since = Date.now() }
    if (seen === total && Date.now() - since >= 2000) {
      console.log(`e2e: exporter settled at sum(${METRIC}) = ${seen}`)
      return 0
    }
    await sleep(200)
  }
  console.log(`e2e: exporter did not settle at the expected total within ${seconds} s: sum(${METRIC}) = ${seen}, expected ${total}`)
  return 1
}

async function query (prom, q, time) {
  const at = time ? `&time=${time}` : ''
  const res = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(q)}${at}`, { signal: AbortSignal.timeout(5000) })
  const body = await res.json()
  if (body.status !== 'success') throw new Error(`query ${q}: ${JSON.stringify(body)}`)
  return body.data.result
}

async function prometheus (prom, job, expectedPath, samplesPath, seconds, killedAt) {
  const expected = loadExpected(expectedPath)
  const sel = `${METRIC}{job="${job}"}`
  const deadline = Date.now() + seconds * 1000
  let latest = null
  while (Date.now() < deadline) {
    const r = await query(prom, `sum(${sel})`)
    latest = r.length ? Number(r[0].value[1]) : null
    if (latest === expected.total) break
    await sleep(500)
  }
  await sleep(2500) // two more scrapes of the settled value

  const results = []
  const check = (name, ok, detail) => {
    results.push(ok)
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`)
  }

  const got = new Map()
  for (const s of await query(prom, sel)) {
    got.set(key(s.metric.tool, s.metric.workflow, s.metric.reason), Number(s.value[1]))
  }
  const wrong = []
  for (const k of new Set([...expected.series.keys(), ...got.keys()])) {
    const want = expected.series.get(k)
    const have = got.get(k)
    if (want !== have) wrong.push(`${METRIC}${k}: Prometheus ${have ?? 'missing'}, writer ${want ?? 'none (extra series)'}`)
  }
  check(`Prometheus' ${METRIC} equals what the writer wrote, label set by label set`,
    wrong.length === 0,
    `${got.size} series in Prometheus, ${expected.series.size} expected, sum ${sum(got)} vs ${expected.total}` +
      (wrong.length ? `; ${wrong.length} differ:\n      ` + wrong.slice(0, 25).join('\n      ') + (wrong.length > 25 ? '\n      …' : '') : ''))

  const lines = await query(prom, `sum(denials_exporter_lines_total{job="${job}"})`)
  const linesRead = lines.length ? Number(lines[0].value[1]) : 0
  check('every line the writer wrote was read exactly once (sum of denials_exporter_lines_total)',
    linesRead === expected.lines, `${linesRead} read, ${expected.lines} written`)

  const resets = (await query(prom, `resets(${sel}[1h]) > 0`))
  check('resets() is 0 for every series (no scrape saw a counter go down)', resets.length === 0,
    resets.length ? resets.slice(0, 10).map((s) => `${key(s.metric.tool, s.metric.workflow, s.metric.reason)} ${s.value[1]}`).join(', ') : `${got.size} series`)

  // The check above means something only if Prometheus scraped the exporter both before the
  // kill and after the restart, so that the samples resets() looked at span the restart.
  const ups = await query(prom, `up{job="${job}"}[1h]`)
  const raw = ups.length ? ups[0].values.map(([t, v]) => [Number(t), Number(v)]) : []
  const upBefore = raw.filter(([t, v]) => v === 1 && t < killedAt).length
  const upAfter = raw.filter(([t, v]) => v === 1 && t > killedAt).length
  const downScrapes = raw.filter(([, v]) => v === 0).length
  const atKill = killedAt > 0 ? await query(prom, `sum(${sel})`, killedAt) : []
  check('Prometheus scraped the exporter before the kill -9 and after the restart',
    killedAt > 0 && upBefore > 0 && upAfter > 0,
    `kill at ${killedAt > 0 ? new Date(killedAt * 1000).toISOString() : 'never'}: ${upBefore} scrapes before, ` +
      `${downScrapes} failed, ${upAfter} after; sum at the kill ${atKill.length ? atKill[0].value[1] : 'none'}, final ${expected.total}`)

  const samples = JSON.parse(readFileSync(samplesPath, 'utf8'))
  check('no counter went down in 10 Hz samples of /metrics (a scrape at that moment would have seen a reset)',
    samples.dips.length === 0,
    `${samples.scrapes} samples, ${samples.failures} failed while the exporter was down` +
      (samples.dips.length ? `; ${samples.dips.length} dips, first: ` + samples.dips.slice(0, 5).map((d) => `${d.series} ${d.from}→${d.to} at ${d.at}`).join(', ') : ''))

  return results.every(Boolean) ? 0 : 1
}

async function exact (url, expectedPath, samplesPath) {
  const expected = loadExpected(expectedPath)
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) })
  const text = await res.text()
  const got = parseDenials(text)
  const wrong = []
  for (const k of new Set([...expected.series.keys(), ...got.keys()])) {
    const want = expected.series.get(k)
    const have = got.get(k)
    if (want !== have) wrong.push(`${METRIC}${k}: exporter ${have ?? 'missing'}, writer ${want ?? 'none'}`)
  }
  const malformed = text.split('\n').filter((l) => /^denials_exporter_lines_total\{.*outcome="(malformed|non_utf8)"/.test(l) && !/ 0$/.test(l))
  const samples = JSON.parse(readFileSync(samplesPath, 'utf8'))
  const checks = [
    [`${METRIC} equals what the writer wrote, label set by label set`, wrong.length === 0,
      `sum ${sum(got)} vs ${expected.total}` + (wrong.length ? `; ${wrong.length} differ:\n      ` + wrong.slice(0, 15).join('\n      ') : '')],
    ['no line read as malformed (a compressed file is never read as lines)', malformed.length === 0, malformed.join('; ')],
    ['no counter went down in 10 Hz samples of /metrics', samples.dips.length === 0,
      `${samples.scrapes} samples, ${samples.failures} failed while the exporter was down` +
        (samples.dips.length ? `; ${samples.dips.length} dips, first: ` + samples.dips.slice(0, 5).map((d) => `${d.series} ${d.from}→${d.to}`).join(', ') : '')]
  ]
  for (const [name, ok, detail] of checks) console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`)
  return checks.every((c) => c[1]) ? 0 : 1
}

function explain (auditPath, logs) {
  const counted = new Map() // toolUseId → the audit record that counted it from a record as unknown
  for (const line of readFileSync(auditPath, 'utf8').split('\n')) {
    if (!line.includes('"unknown"')) continue
    const r = JSON.parse(line)
    if (r.reason === 'unknown' && r.origin === 'record' && r.tool_use_id) counted.set(r.tool_use_id, r)
  }
  const files = readdirSync(logs).filter((n) => lstatSync(join(logs, n)).isFile())
  const found = new Map() // toolUseId → { denial, record } as 'file@offset'
  const where = (name, text, at) => `${name}@${Buffer.byteLength(text.slice(0, at))}/${Buffer.byteLength(text)}`
  for (const name of files) {
    const text = readFileSync(join(logs, name), 'utf8')
    for (const m of text.matchAll(/"toolUseId":"(toolu_[0-9a-f]+)"/g)) {
      if (!counted.has(m[1])) continue
      const start = text.lastIndexOf('\n', m.index) + 1
      const end = text.indexOf('\n', m.index)
      const kind = text.slice(start, end < 0 ? undefined : end).includes('"sdkMsgType":"result"') ? 'record' : 'denial'
      const entry = found.get(m[1]) ?? {}
      entry[kind] ??= where(name, text, start)
      found.set(m[1], entry)
    }
  }
  const wrong = [...found].filter(([, e]) => e.denial)
  console.log(`e2e: explain: ${counted.size} denials counted from a record as unknown; ${wrong.length} of them the stream had reported (${files.length} files left to search)`)
  for (const [id, e] of wrong.slice(0, 5)) {
    const r = counted.get(id)
    console.log(`e2e: explain: ${id} (${r.tool}, ${r.workflow}): denial at ${e.denial}, record at ${e.record ?? 'a file deleted since'}; counted from ${r.source_file} at ${r.time}`)
  }
  return 0
}

const [cmd, ...rest] = process.argv.slice(2)
let code
if (cmd === 'sample') code = await sample(rest[0], rest[1]) ?? 0
else if (cmd === 'settle') code = await settle(rest[0], rest[1], Number(rest[2]))
else if (cmd === 'explain') code = explain(rest[0], rest[1])
else if (cmd === 'exact') code = await exact(rest[0], rest[1], rest[2])
else if (cmd === 'prometheus') code = await prometheus(rest[0], rest[1], rest[2], rest[3], Number(rest[4]), Number(rest[5] ?? 0))
else {
  console.error('usage: node check.mjs sample|settle|exact|prometheus|explain …  (see the head of this file)')
  code = 2
}
process.exit(code)
