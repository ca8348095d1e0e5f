#!/usr/bin/env node
// A realistic executor, as far as its log goes: the real pino logger writing through the real
// pino-roll (size-based rolling, old files deleted, a `current.log` symlink) at a high rate, and a
// record of exactly which denials it wrote, for the end-to-end test (tests/e2e/run.sh) and the
// live benchmark (bench/live.sh).
//
// What it writes (docs/formats.md, "The executor's pino log"):
//   * executions, each through a child logger with executionId/jobId/workflow/installationId/repo;
//   * lots of ordinary lines (SDK messages, tool uses, HTTP calls, debug noise);
//   * ~1% `agent.permission.denied` WARN lines (toolName, toolUseId, decisionReasonType,
//     decisionReason, message), some logged twice (same toolUseId: counts once), some from
//     "older executors" without toolUseId;
//   * per finished execution one `Claude Agent SDK execution completed` INFO line whose
//     permissionDenials / permissionDeniedTools / permissionDenialCount list the mid-stream
//     denials and sometimes one the stream never reported (counted with reason "unknown");
//     older executors' records carry only permissionDeniedTools and permissionDenialCount;
//   * denials from loggers without a correlation key (they count, and reconcile nothing);
//   * decoys that must not count: the event nested, escaped inside a string, in `msg`, other
//     event names (`agent.permission.requested`, `pull_request.opened`), a completed line's
//     message in another field.
//
// At the end it writes --expected: {"series":[{"tool","workflow","reason","value"}...],
// "total", "lines", "seconds", "linesPerSecond", ...}: what `permission_denials_total` must be.
//
// Usage: node writer.mjs --dir DIR --expected FILE [--rate LINES_PER_S] [--duration S]
//          [--size 1m] [--count N] [--half FILE] [--seed N] [--concurrency N] [--file NAME]
//   --rate 0 writes as fast as pino can. --half FILE is created once half the duration passed.
//   --file NAME: no pino-roll; the plain `pino.destination()` writing DIR/NAME, reopened on
//   SIGUSR2 (what logrotate's `postrotate` sends), the pattern pino documents for logrotate.

import { writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { hostname } from 'node:os'
import pino from 'pino'

function parseArgs (argv) {
  const args = {
    dir: null,
    expected: null,
    rate: 120000,
    duration: 15,
    size: '1m',
    count: 200,
    half: null,
    seed: 1,
    concurrency: 64,
    file: null
  }
  for (let i = 2; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '')
    const value = argv[++i]
    if (!(key in args) || value === undefined) {
      console.error(`writer.mjs: unknown or incomplete option ${argv[i - 1]}`)
      process.exit(2)
    }
    args[key] = ['rate', 'duration', 'count', 'seed', 'concurrency'].includes(key) ? Number(value) : value
  }
  if (!args.dir || !args.expected) {
    console.error('usage: node writer.mjs --dir DIR --expected FILE [--rate N] [--duration S] [--size 1m] [--count N] [--half FILE]')
    process.exit(2)
  }
  return args
}

const args = parseArgs(process.argv)
mkdirSync(args.dir, { recursive: true })

// A small, fast, seeded PRNG (mulberry32): the same seed writes the same log, but for times.
let seed = args.seed >>> 0
function rand () {
  seed = (seed + 0x6D2B79F5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = (list) => list[Math.floor(rand() * list.length)]
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1))
const hex = (n) => { let s = ''; while (s.length < n) s += Math.floor(rand() * 0x100000000).toString(16).padStart(8, '0'); return s.slice(0, n) }

const WORKFLOWS = ['review', 'implement', 'triage', 'fix-ci', 'docs']
const REPOS = ['acme/web', 'acme/api', 'acme/infra', 'globex/payments', 'initech/tps-reports']
const TOOLS = ['Bash', 'Edit', 'Write', 'Read', 'WebFetch', 'Glob', 'mcp__github_comment__add_comment', 'mcp__github__create_pull_request']
// decisionReasonType as the SDK sends it → the `reason` label it must become.
const REASON_TYPES = [
  ['rule', 'rule'], ['rule', 'rule'], ['hook', 'hook'], ['hook', 'hook'], ['mode', 'mode'],
  ['classifier', 'classifier'], ['workingDir', 'workingDir'], ['safetyCheck', 'safetyCheck'],
  ['subcommandResults', 'subcommandResults'], ['permissionPromptTool', 'permissionPromptTool'],
  ['sandboxOverride', 'sandboxOverride'], ['asyncAgent', 'asyncAgent'], ['other', 'other'],
  ['policyEngineV2', 'other'] // a type this exporter does not know: "other"
]
const REASON_TEXT = {
  rule: (tool) => `Permission rule '${tool}(git push:*)' denies this call`,
  hook: () => 'PreToolUse hook block-destructive-bash denied: git push --force origin main',
  mode: () => "Tool calls are not allowed in 'plan' mode",
  classifier: () => 'Auto-mode classifier flagged the command as destructive',
  workingDir: () => 'Path /etc/passwd is outside the allowed working directories',
  safetyCheck: () => 'Safety check: command writes to a credentials file',
  subcommandResults: () => 'Subcommand `rm -rf /` of the compound command was denied',
  permissionPromptTool: () => 'mcp__approver__prompt answered deny',
  sandboxOverride: () => 'Sandbox override refused for network access',
  asyncAgent: () => 'Background agent may not use this tool',
  other: () => 'Denied',
  policyEngineV2: () => 'OPA policy exec.deny matched'
}
const INPUTS = {
  Bash: () => ({ command: pick(['git push --force origin main', "curl -H 'Authorization: Bearer ghp_" + hex(36) + "' https://api.github.com/user", 'rm -rf node_modules', 'npm publish', 'cat ~/.aws/credentials']) }),
  Edit: () => ({ file_path: `/workspace/src/${hex(6)}.ts`, old_string: 'a', new_string: 'b' }),
  Write: () => ({ file_path: '/etc/hosts', content: '127.0.0.1 evil' }),
  Read: () => ({ file_path: '/home/runner/.ssh/id_ed25519' }),
  WebFetch: () => ({ url: `https://paste.example.com/${hex(8)}`, prompt: 'summarise' }),
  Glob: () => ({ pattern: '/**/*.pem' }),
  mcp__github_comment__add_comment: () => ({ body: 'LGTM token=' + hex(40) }),
  mcp__github__create_pull_request: () => ({ title: 'chore: bump', head: 'bot/' + hex(6) })
}
const SUBTYPES = ['success', 'success', 'success', 'success', 'error_max_turns', 'error_during_execution', 'error_max_budget_usd']

const CHATTER = [
  (log) => log.info({ sdkMsgType: 'assistant', stopReason: null, contentBlocks: int(1, 4), outputTokens: int(10, 900) }, 'SDK message'),
  (log) => log.info({ sdkMsgType: 'user', toolResults: int(1, 3) }, 'SDK message'),
  (log) => { const tool = pick(TOOLS); log.info({ event: 'agent.tool.use', toolName: tool, toolUseId: 'toolu_01' + hex(22), input: INPUTS[tool]() }, 'tool use') },
  (log) => log.info({ event: 'agent.tool.result', toolUseId: 'toolu_01' + hex(22), isError: rand() < 0.05, bytes: int(10, 40000) }, 'tool result'),
  (log) => log.debug({ req: { method: 'POST', url: '/v1/messages', id: hex(16) }, res: { statusCode: 200 }, responseTime: int(80, 9000) }, 'anthropic request completed'),
  (log) => log.debug({ rateLimit: { remaining: int(0, 5000), reset: Date.now() + 60000 } }, 'github rate limit'),
  (log) => log.info({ event: 'agent.permission.requested', toolName: pick(TOOLS), toolUseId: 'toolu_01' + hex(22) }, 'agent permission requested'),
  (log) => log.info({ step: pick(['clone', 'checkout', 'install', 'prompt', 'push']), ms: int(1, 30000) }, 'executor step finished')
]

// Decoys: none of these is a denial or a completed execution.
const DECOYS = [
  (log) => log.info({ payload: { event: 'agent.permission.denied', toolName: 'Bash', toolUseId: 'toolu_01' + hex(22) } }, 'webhook payload stored'),
  (log) => log.info({ comment: '{"event":"agent.permission.denied","toolName":"Bash","decisionReasonType":"rule"}' }, 'user pasted a log line'),
  (log) => log.warn({ event: 'agent.permission.requested', toolName: 'Bash', decisionReasonType: 'rule' }, 'agent permission denied'),
  (log) => log.info({ event: 'pull_request.opened', action: 'opened', number: int(1, 9999) }, 'agent.permission.denied'),
  (log) => log.info({ event: 'agent.permission.denied.preview', toolName: 'Edit' }, 'preview only'),
  (log) => log.info({ note: 'Claude Agent SDK execution completed', permissionDenialCount: 5, permissionDeniedTools: { Bash: 5 } }, 'execution summary mirrored'),
  (log) => log.error({ err: { type: 'Error', message: '"event":"agent.permission.denied" in stack', stack: 'Error: x\n    at y' } }, 'unexpected error')
]

// expected[tool|workflow|reason] = count
const expected = new Map()
const expect = (tool, workflow, reason) => {
  const key = `${tool}\u0000${workflow}\u0000${reason}`
  expected.set(key, (expected.get(key) || 0) + 1)
}

const rollOptions = {
  file: join(args.dir, 'executor.log'),
  size: args.size,
  limit: { count: args.count },
  symlink: true,
  mkdir: true
}
// pino-roll as its README shows it: the plain transport in pino's worker thread. Under load it
// cuts lines at roll boundaries (thread-stream hands it bytes cut anywhere); the exporter joins
// them again, and this test checks that it does. With --file: pino's own destination, reopened
// at its path on SIGUSR2, for logrotate (until the signal it appends to the renamed file).
const destination = args.file
  ? pino.destination({ dest: join(args.dir, args.file), sync: false, mkdir: true })
  : pino.transport({ target: 'pino-roll', options: rollOptions })
let ending = false // once ending, a reopen would race the close: the last lines stay where they are
if (args.file) process.on('SIGUSR2', () => { if (!ending) destination.reopen() })
let lines = 0 // every line pino wrote, counted by a hook
const root = pino({ level: 'debug', hooks: { logMethod (inputArgs, method) { lines++; return method.apply(this, inputArgs) } }, base: { pid: process.pid, hostname: 'executor-7d9f6c5b8-' + hostname().slice(0, 5).toLowerCase() } }, destination)
const component = root.child({ component: 'executor' })
const scheduler = root.child({ component: 'scheduler' })

let executionSeq = 0
function newExecution () {
  executionSeq++
  const workflow = pick(WORKFLOWS)
  const id = `exec_${args.seed}_${executionSeq.toString(36)}_${hex(8)}`
  const legacy = rand() < 0.1 // an older executor: no toolUseId, no permissionDenials list
  const log = component.child({
    executionId: id,
    jobId: `job_${hex(12)}`,
    workflow,
    installationId: int(1000000, 99999999),
    repo: pick(REPOS)
  })
  return { id, workflow, legacy, log, left: int(100, 4000), denials: [] }
}

function denial (ex) {
  const tool = pick(TOOLS)
  const [type, reason] = pick(REASON_TYPES)
  const fields = {
    event: 'agent.permission.denied',
    toolName: tool,
    toolUseId: ex.legacy ? undefined : 'toolu_01' + hex(22),
    decisionReasonType: type,
    decisionReason: REASON_TEXT[type](tool),
    message: `Permission to use ${tool} has been denied.`
  }
  if (ex.legacy) delete fields.toolUseId
  ex.log.warn(fields, 'agent permission denied')
  expect(tool, ex.workflow, reason)
  ex.denials.push({ tool, toolUseId: fields.toolUseId })
  if (!ex.legacy && rand() < 0.05) ex.log.warn(fields, 'agent permission denied') // logged twice: counts once
}

function complete (ex) {
  const denials = ex.denials.slice()
  if (rand() < 0.25) {
    // One the stream never reported (a PreToolUse hook denial, a path-scoped deny rule).
    const tool = pick(TOOLS)
    denials.push({ tool, toolUseId: ex.legacy ? undefined : 'toolu_01' + hex(22) })
    expect(tool, ex.workflow, 'unknown')
  }
  const perTool = {}
  for (const d of denials) perTool[d.tool] = (perTool[d.tool] || 0) + 1
  const inputTokens = int(100, 20000)
  const outputTokens = int(100, 20000)
  const fields = {
    sdkMsgType: 'result',
    subtype: pick(SUBTYPES),
    costUsd: Math.round(rand() * 500) / 100,
    durationMs: int(5000, 900000),
    numTurns: int(1, 60),
    inputTokens,
    outputTokens,
    cacheReadInputTokens: int(0, 500000),
    cacheCreationInputTokens: int(0, 50000),
    modelUsage: { 'claude-sonnet-4-5': { inputTokens, outputTokens, costUSD: 0.5 } },
    permissionDenialCount: denials.length,
    permissionDeniedTools: perTool
  }
  if (!ex.legacy) {
    fields.permissionDenials = denials.map((d) => ({ toolName: d.tool, toolUseId: d.toolUseId, toolInput: INPUTS[d.tool]() }))
  }
  ex.log.info(fields, 'Claude Agent SDK execution completed')
}

const pool = []
for (let i = 0; i < args.concurrency; i++) pool.push(newExecution())

let calls = 0 // writeOne() calls, for pacing
function writeOne () {
  const r = rand()
  if (r < 0.0004) {
    // No correlation key: counts on its own.
    const tool = pick(TOOLS)
    const [type, reason] = pick(REASON_TYPES)
    const workflow = pick(WORKFLOWS)
    scheduler.warn({ workflow, event: 'agent.permission.denied', toolName: tool, decisionReasonType: type, decisionReason: REASON_TEXT[type](tool), message: `Permission to use ${tool} has been denied.` }, 'agent permission denied')
    expect(tool, workflow, reason)
    return
  }
  if (r < 0.003) {
    pick(DECOYS)(rand() < 0.5 ? pick(pool).log : root)
    return
  }
  if (r < 0.006) {
    scheduler.info({ queue: 'executions', depth: int(0, 40) }, 'queue depth')
    return
  }
  const slot = Math.floor(rand() * pool.length)
  const ex = pool[slot]
  if (--ex.left <= 0) {
    complete(ex)
    pool[slot] = newExecution()
    return
  }
  if (rand() < 0.01) denial(ex)
  else pick(CHATTER)(ex.log)
}

const start = process.hrtime.bigint()
const elapsed = () => Number(process.hrtime.bigint() - start) / 1e9
let halfMarked = false
let lastReport = 0

function finish () {
  // Executions still running when the writer stops: most complete, a few never do (the counts
  // of those are their mid-stream denials only).
  for (const ex of pool) {
    if (rand() < 0.9) complete(ex)
  }
  const seconds = elapsed()
  // The transport's worker does not keep the process alive: this does, until the last line is on disk.
  const keepAlive = setInterval(() => {}, 1000)
  const done = () => {
    clearInterval(keepAlive)
    const series = [...expected].map(([key, value]) => {
      const [tool, workflow, reason] = key.split('\u0000')
      return { tool, workflow, reason, value }
    }).sort((a, b) => (a.tool + a.workflow + a.reason).localeCompare(b.tool + b.workflow + b.reason))
    const total = series.reduce((s, x) => s + x.value, 0)
    const summary = { lines, seconds: Math.round(seconds * 1000) / 1000, linesPerSecond: Math.round(lines / seconds), executions: executionSeq, total, series }
    writeFileSync(args.expected, JSON.stringify(summary, null, 1) + '\n')
    console.log(JSON.stringify({ writer: 'done', lines, seconds: summary.seconds, linesPerSecond: summary.linesPerSecond, executions: executionSeq, denials: total, series: series.length }))
  }
  destination.on('close', done)
  ending = true
  destination.end()
  setTimeout(() => { console.error('writer: the destination never closed'); process.exit(1) }, 30000).unref()
}

function tick () {
  const t = elapsed()
  if (t >= args.duration) return finish()
  if (!halfMarked && args.half && t >= args.duration / 2) {
    halfMarked = true
    writeFileSync(args.half, `${lines}\n`)
  }
  if (t - lastReport >= 1) {
    lastReport = t
    console.error(`writer: ${Math.round(t)} s, ${lines} lines, ${Math.round(lines / Math.max(t, 0.001))} lines/s`)
  }
  // Write what the rate calls for by now, in batches small enough to let pino-roll roll.
  const due = args.rate > 0 ? Math.min(Math.floor(t * args.rate) - calls, 20000) : 5000
  for (let i = 0; i < due; i++) { writeOne(); calls++ }
  if (due <= 0) setTimeout(tick, 1)
  else setImmediate(tick)
}
tick()
