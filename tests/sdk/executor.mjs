#!/usr/bin/env node
// An executor in the style of the one this project started from (with the denial logging
// docs/formats.md asks of an executor), running the REAL Claude Agent SDK against the fake Messages API
// (fake-api.mjs) and logging with the REAL pino, for the SDK end-to-end test (tests/sdk/run.sh).
//
//   node executor.mjs --base-url http://127.0.0.1:PORT --work DIR --log FILE --stream-dir DIR
//                     --expected FILE [--fake-log FILE] [--concurrency N] [--timeout-ms MS]
//
// For each execution in scenario.mjs it calls query() (a string prompt, or an async iterable of
// prompts for a streaming-input session) in a scratch working directory under --work, with HOME
// and CLAUDE_CONFIG_DIR under --work and an environment that holds only what the CLI needs (so
// nothing on the machine is read or written, and the API is the fake on loopback).
//
// It writes:
//   --log FILE      the executor's pino log (docs/formats.md, "The executor's pino log"): per execution a child logger
//                   with executionId/jobId/workflow/installationId/repo; per `system/permission_denied`
//                   SDK message a WARN `agent.permission.denied` line; per `result` a
//                   `Claude Agent SDK execution completed` INFO line (inputTokens… copied from
//                   result.usage as the real executor does, modelUsage verbatim, the denial record).
//   --stream-dir    the raw SDK messages as stream-json, one file per workflow
//                   (WORKFLOW.jsonl) plus all.jsonl with every message.
//   --expected FILE what the SDK itself reported, as the figures the exporter must show (see
//                   README.md beside this file and `expectedFrom` below).
// Exits 1 if the SDK could not be loaded, an execution failed in an unexpected way, or a scripted
// tool call was not denied / allowed as scenario.mjs says (the layers changed: the test would
// otherwise silently test less).

import { appendFileSync, mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs'
import { join, dirname, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hostname } from 'node:os'
import { createHash } from 'node:crypto'
import { EXECUTIONS, SCRIPTS, HOOKS, CAN_USE_TOOL, SECRETS, APP_TS } from './scenario.mjs'

const here = dirname(fileURLToPath(import.meta.url))

function parseArgs (argv) {
  const args = { 'base-url': null, work: null, log: null, 'stream-dir': null, expected: null, 'fake-log': null, concurrency: '3', 'timeout-ms': '45000' }
  for (let i = 2; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '')
    const value = argv[++i]
    if (!(key in args) || value === undefined) die(`unknown or incomplete option ${argv[i - 1]}`, 2)
    args[key] = value
  }
  for (const k of ['base-url', 'work', 'log', 'stream-dir', 'expected']) if (!args[k]) die(`--${k} is required`, 2)
  const url = new URL(args['base-url'])
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost' && url.hostname !== '[::1]') {
    die(`--base-url must be on loopback, not ${url.hostname}`, 2)
  }
  return args
}

// The fake key pair masked, for this script's own output (which is not the exporter's, but needs
// no key in it either).
function masked (text) {
  return SECRETS.reduce((t, secret) => t.split(secret).join('<fake key>'), String(text))
}

function die (message, code = 1) {
  console.error(`sdk-e2e executor: ${message}`)
  process.exit(code)
}

const args = parseArgs(process.argv)

// The SDK and pino are the test's subject: not installed means FAIL, never a silent skip.
let query, pino
try {
  ({ query } = await import('@anthropic-ai/claude-agent-sdk'))
} catch (e) {
  die(`@anthropic-ai/claude-agent-sdk cannot be loaded (${e.code || e.message}): run (cd tests/sdk && npm ci)`)
}
try {
  pino = (await import('pino')).default
} catch (e) {
  die(`pino cannot be loaded (${e.code || e.message}): run (cd tests/sdk && npm ci)`)
}
const sdkPackage = JSON.parse(readFileSync(join(here, 'node_modules/@anthropic-ai/claude-agent-sdk/package.json'), 'utf8'))

mkdirSync(args['stream-dir'], { recursive: true })
mkdirSync(dirname(args.log), { recursive: true })
const home = join(args.work, 'home')
mkdirSync(join(home, '.claude'), { recursive: true })

// Only what the CLI needs: the fake API on loopback, a fake key, no non-essential traffic, a
// private HOME and config directory.
const cliEnv = {
  PATH: process.env.PATH,
  LANG: 'C.UTF-8',
  HOME: home,
  CLAUDE_CONFIG_DIR: join(home, '.claude'),
  TMPDIR: join(args.work, 'tmp'),
  ANTHROPIC_BASE_URL: args['base-url'],
  ANTHROPIC_API_KEY: 'sk-ant-api03-e2e-fake-key-not-a-secret',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_AGENT_SDK_CLIENT_APP: 'denials-exporter-sdk-e2e/0.0.0',
  NO_PROXY: '*'
}
mkdirSync(cliEnv.TMPDIR, { recursive: true })

// The executor's logger: real pino, synchronous file destination (the test reads it right after).
const root = pino({ level: 'debug' }, pino.destination({ dest: args.log, sync: true, mkdir: true }))
  .child({ component: 'executor' })

const digest = (s) => createHash('sha256').update(s).digest('hex')
const promptFor = (script, workflow) =>
  `You are running the ${workflow} workflow for this repository. Follow the task. [script:${script}]`

// One execution: a query() through the SDK, every message logged and kept.
async function runExecution (spec, index) {
  const executionId = 'exec_' + digest('exec\0' + spec.name).slice(0, 20)
  const log = root.child({
    executionId,
    jobId: 'job_' + digest('job\0' + spec.name).slice(0, 12),
    workflow: spec.workflow,
    installationId: 10792956 + index,
    repo: spec.repo
  })
  const cwd = join(args.work, 'repos', spec.name)
  mkdirSync(join(cwd, 'src'), { recursive: true })
  mkdirSync(join(cwd, 'docs'), { recursive: true })
  writeFileSync(join(cwd, 'README.md'), `# ${spec.repo}\n`)
  writeFileSync(join(cwd, '.env'), 'DATABASE_URL=postgres://e2e:not-a-secret@127.0.0.1/e2e\n')
  writeFileSync(join(cwd, 'src', 'app.ts'), APP_TS)

  const messages = []
  const streamFiles = [join(args['stream-dir'], `${spec.workflow}.jsonl`), join(args['stream-dir'], 'all.jsonl')]
  const keep = (m) => {
    messages.push(m)
    const line = JSON.stringify(m) + '\n'
    for (const f of streamFiles) appendFileSync(f, line)
  }

  // A hung CLI must not hang CI: each execution gets a deadline.
  const abortController = new AbortController()
  const deadline = setTimeout(() => abortController.abort(), Number(args['timeout-ms']))
  const options = {
    abortController,
    cwd,
    env: { ...cliEnv, ...(spec.env ?? {}) },
    model: spec.model,
    permissionMode: spec.permissionMode,
    settingSources: [],
    settings: { permissions: spec.permissions },
    stderr: (data) => log.debug({ stderr: String(data).slice(0, 2000) }, 'claude code stderr')
  }
  if (spec.maxTurns) options.maxTurns = spec.maxTurns
  if (spec.hook) {
    const hook = HOOKS[spec.hook] ?? die(`scenario.mjs: no hook ${spec.hook}`)
    options.hooks = {
      PreToolUse: [{
        matcher: 'Bash',
        hooks: [async (input) => {
          const command = String(input?.tool_input?.command ?? '')
          if (!hook.match.test(command)) return {}
          const decision = { hookEventName: 'PreToolUse', permissionDecision: 'deny' }
          if (hook.reason) decision.permissionDecisionReason = hook.reason(command)
          return { hookSpecificOutput: decision }
        }]
      }]
    }
  }
  if (spec.canUseTool) {
    const rules = CAN_USE_TOOL[spec.canUseTool] ?? die(`scenario.mjs: no canUseTool ${spec.canUseTool}`)
    options.canUseTool = async (toolName, input) => {
      const denies = (r) => {
        const value = String(input?.[r.field] ?? '')
        return r.outside ? !resolve(cwd, value).startsWith(cwd + sep) : r.match.test(value)
      }
      const rule = rules.find((r) => r.tool === toolName && denies(r))
      if (rule) return { behavior: 'deny', message: rule.message }
      return { behavior: 'allow', updatedInput: input }
    }
  }

  // A single prompt is a string; several make a streaming-input session whose next prompt is sent
  // once the previous result arrived.
  let q
  let resultArrived = () => {}
  const streaming = spec.prompts.length > 1
  async function * prompts () {
    for (let i = 0; i < spec.prompts.length; i++) {
      if (spec.switchModel && spec.switchModel.before === i) {
        await q.setModel(spec.switchModel.model)
        log.info({ model: spec.switchModel.model }, 'model switched')
      }
      const arrived = new Promise((resolve) => { resultArrived = resolve })
      yield { type: 'user', message: { role: 'user', content: promptFor(spec.prompts[i], spec.workflow) }, parent_tool_use_id: null }
      await arrived
    }
  }

  log.info({ model: spec.model, permissionMode: spec.permissionMode, streaming, prompts: spec.prompts.length }, 'Claude Agent SDK execution started')
  const started = Date.now()
  const toolNames = new Map() // tool use id → tool name, from the assistant's tool_use blocks
  let thrown = null
  try {
    q = query({ prompt: streaming ? prompts() : promptFor(spec.prompts[0], spec.workflow), options })
    for await (const m of q) {
      keep(m)
      if (m.type === 'system' && m.subtype === 'permission_denied') {
        log.warn({
          event: 'agent.permission.denied',
          toolName: m.tool_name,
          toolUseId: m.tool_use_id,
          decisionReasonType: m.decision_reason_type,
          decisionReason: m.decision_reason,
          message: m.message
        }, 'agent permission denied')
      } else if (m.type === 'system') {
        log.info({ sdkMsgType: 'system', subtype: m.subtype, model: m.model, tools: Array.isArray(m.tools) ? m.tools.length : undefined }, 'SDK message')
      } else if (m.type === 'assistant') {
        for (const block of m.message?.content ?? []) {
          if (block.type !== 'tool_use') continue
          toolNames.set(block.id, block.name)
          log.info({ event: 'agent.tool.use', toolName: block.name, toolUseId: block.id }, 'tool use')
        }
      } else if (m.type === 'user') {
        logToolResults(log, m, toolNames)
        log.debug({ sdkMsgType: 'assistant', model: m.message?.model }, 'SDK message')
      } else if (m.type === 'result') {
        log.info({ sdkMsgType: 'result', subtype: m.subtype }, 'SDK message')
        logCompleted(log, m)
        resultArrived()
      } else {
        log.debug({ sdkMsgType: m.type, subtype: m.subtype }, 'SDK message')
      }
    }
  } catch (e) {
    thrown = e
    log.error({ err: { type: e?.name, message: String(e?.message ?? e).slice(0, 500) } }, 'Claude Agent SDK execution threw')
    resultArrived()
  } finally {
    clearTimeout(deadline)
  }
  if (abortController.signal.aborted) thrown ??= new Error(`aborted after ${args['timeout-ms']} ms`)
  return { spec, executionId, messages, thrown, timedOut: abortController.signal.aborted, ms: Date.now() - started }
}

// Each tool call's answer, as docs/formats.md asks an executor to log it: the tool use id, the
// tool, whether the result is an error, and the CLI's own per-call record (`tool_result_meta`)
// as it came. Never the output.
function logToolResults (log, message, toolNames) {
  const records = Array.isArray(message.tool_result_meta) ? message.tool_result_meta : []
  for (const block of Array.isArray(message.message?.content) ? message.message.content : []) {
    if (block?.type !== 'tool_result') continue
    log.info({
      event: 'agent.tool.result',
      toolName: toolNames.get(block.tool_use_id),
      toolUseId: block.tool_use_id,
      isError: block.is_error === true,
      toolResultMeta: records.find((r) => r?.id === block.tool_use_id)
    }, 'agent tool result')
  }
}

// The completed line, as the real executor builds it from a result message (with the denial
// record docs/formats.md asks for: tool name, tool use id and input of every denial).
function logCompleted (log, result) {
  const usage = result.usage ?? {}
  const denials = Array.isArray(result.permission_denials) ? result.permission_denials : []
  const perTool = {}
  for (const d of denials) perTool[d.tool_name] = (perTool[d.tool_name] ?? 0) + 1
  log.info({
    sdkMsgType: result.type,
    subtype: result.subtype,
    costUsd: result.total_cost_usd,
    durationMs: result.duration_ms,
    numTurns: result.num_turns,
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadInputTokens: usage.cache_read_input_tokens,
    cacheCreationInputTokens: usage.cache_creation_input_tokens,
    modelUsage: result.modelUsage,
    permissionDenialCount: denials.length,
    permissionDeniedTools: perTool,
    permissionDenials: denials.map((d) => ({ toolName: d.tool_name, toolUseId: d.tool_use_id, toolInput: d.tool_input }))
  }, 'Claude Agent SDK execution completed')
}

// The exporter's closed set of reasons (docs/formats.md, "How denials are counted"); any other type becomes `other`.
const REASONS = new Set(['rule', 'mode', 'subcommandResults', 'permissionPromptTool', 'hook', 'asyncAgent',
  'sandboxOverride', 'workingDir', 'safetyCheck', 'classifier', 'classifierUnavailable', 'other', 'user'])
const reasonOf = (frame) => frame.decision_reason_type === undefined
  ? null // no type: the exporter classifies the text; not predictable here (reported if it happens)
  : (REASONS.has(frame.decision_reason_type) ? frame.decision_reason_type : 'other')

// The reason of the layer scenario.mjs says denied a call, whatever the SDK reported: what
// permission_denials_total must show for it. Bash prefix rules are reported as
// `subcommandResults`; a Bash call in `plan` mode is a headless ask (`other`); auto mode's
// classifier blocking a call is `classifier`, and giving no verdict `classifierUnavailable`.
function layerReason (layer, tool) {
  if (/^deny rule Bash\(/.test(layer)) return 'subcommandResults'
  if (/^deny rule /.test(layer)) return 'rule'
  if (/^headless ask/.test(layer)) return 'other'
  if (/^PreToolUse hook/.test(layer)) return 'hook'
  if (/^canUseTool callback/.test(layer)) return 'permissionPromptTool'
  if (/^dontAsk mode/.test(layer)) return 'mode'
  if (/^plan mode/.test(layer)) return tool === 'Bash' ? 'other' : 'mode'
  if (/^write outside the working directory/.test(layer)) return 'workingDir'
  if (/classifier (flagged|blocked)$/.test(layer)) return 'classifier'
  if (/classifier/.test(layer)) return 'classifierUnavailable'
  return null
}

// The texts and codes of a `classifier` frame that gave no verdict (docs/formats.md, "When auto
// mode's classifier cannot decide").
const OUTAGE = /classifier unavailable|could not evaluate this action|is temporarily unavailable|classifier gave no verdict|classifier transcript exceeded/i
const outageFrame = (frame) => frame.decision_reason_type === 'classifier' &&
  (frame.decision_reason_code != null || OUTAGE.test(`${frame.decision_reason ?? ''} ${frame.message ?? ''}`))

// The reason a denial's own records give, first as they arrive: the frame's type where there is a
// frame (`classifierUnavailable` for a classifier that gave no verdict), else the per-call record:
// `non_execution_kind` automode-unavailable or automode-parsing-error → `classifierUnavailable`,
// else `permission_decision.reason_type`, else its `source` (`user_reject`: the host's canUseTool
// callback said no → `permissionPromptTool`; `hook` → `hook`), else `other` (a headless ask's
// `user-rejected`). Without either: `unknown`. Types outside the closed set become `other`.
function recordReason (frame, record) {
  if (frame) return outageFrame(frame) ? 'classifierUnavailable' : (reasonOf(frame) ?? 'other')
  if (!record) return 'unknown'
  const decision = record.permission_decision ?? {}
  if (['automode-unavailable', 'automode-parsing-error'].includes(record.non_execution_kind)) return 'classifierUnavailable'
  if (typeof decision.reason_type === 'string') return REASONS.has(decision.reason_type) ? decision.reason_type : 'other'
  if (decision.source === 'user_reject') return 'permissionPromptTool'
  if (decision.source === 'hook') return 'hook'
  return 'other'
}

const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o?.[k] ?? null]))

// A tool_result's text: a string, or the text blocks of a list.
function resultText (result) {
  if (typeof result.content === 'string') return result.content
  if (!Array.isArray(result.content)) return ''
  return result.content.filter((b) => b?.type === 'text').map((b) => b.text).join('\n')
}

const KINDS = [['input', 'inputTokens'], ['output', 'outputTokens'], ['cache_read', 'cacheReadInputTokens'], ['cache_creation', 'cacheCreationInputTokens']]

// Which scripted call a denial or a tool use is: same tool, and the scripted command or path is
// the reported one (Read/Write paths come back absolute).
function scripted (scripts, toolName, input) {
  for (const script of scripts) {
    for (const [step, s] of (SCRIPTS[script] ?? []).entries()) {
      for (const call of s.tools ?? []) {
        if (call.name !== toolName) continue
        const want = call.input.command ?? call.input.file_path ?? call.input.url
        const have = String(input?.command ?? input?.file_path ?? input?.url ?? '')
        const norm = String(want).replace(/^\.\.\//, '').replace(/^\.\//, '')
        if (have === want || have.endsWith('/' + norm)) return { script, step, call }
      }
    }
  }
  return null
}

// The expected figures: what the SDK reported, per workflow.
function expectedFrom (runs) {
  const add = (map, key, n) => map.set(key, (map.get(key) ?? 0) + n)
  const denials = new Map() // tool \0 workflow \0 reason → n
  const risks = new Map() // tool \0 workflow \0 risk → n
  const attempts = [] // one per denial: its tool use id and the class scenario.mjs expects
  const executions = new Map() // workflow \0 outcome → n
  const tokens = new Map() // workflow \0 model \0 kind → n
  const cost = new Map() // workflow \0 model → usd
  const totalCost = new Map() // workflow → usd (total_cost_usd)
  const sessions = []
  const layers = []
  const denialRecords = [] // one per denial: frame, per-call record, tool_result (see README.md)
  const recordReasons = new Map() // tool \0 workflow \0 reason from frame or record → n
  const unenforced = [] // denied calls whose tool_result says they ran
  const problems = []
  let modelUsageMethod = 'last cumulative modelUsage of each session'

  for (const run of runs) {
    const { spec, messages } = run
    const frames = new Map()
    const framesInOrder = []
    for (const m of messages) {
      if (m.type === 'system' && m.subtype === 'permission_denied') { frames.set(m.tool_use_id, m); framesInOrder.push(m) }
    }
    const results = messages.filter((m) => m.type === 'result')
    const booked = new Set()
    let deltaSum = null
    for (const r of results) {
      add(executions, `${spec.workflow}\0${r.subtype}`, 1)
      for (const d of r.permission_denials ?? []) {
        if (booked.has(d.tool_use_id)) continue // a denial listed again counts once
        booked.add(d.tool_use_id)
        const frame = frames.get(d.tool_use_id)
        if (frame && reasonOf(frame) === null) problems.push(`frame without decision_reason_type for ${d.tool_name} ${d.tool_use_id} (${spec.name})`)
        const found = scripted(spec.prompts, d.tool_name, d.tool_input)
        // The reason comes from the layer that denied the call (scenario.mjs), not from what the
        // SDK said of it; that the SDK's own records say the same is checked below.
        const reason = found ? layerReason(found.call.layer, d.tool_name) : null
        if (!reason) problems.push(`SCENARIO: ${spec.name} ${d.tool_name} ${d.tool_use_id}: no reason for the layer ${found?.call.layer ?? '(not scripted)'}`)
        add(denials, `${d.tool_name}\0${spec.workflow}\0${reason ?? '(no layer)'}`, 1)
        const risk = found?.call.risk
        if (!risk) problems.push(`SCENARIO: ${spec.name} ${d.tool_name} ${d.tool_use_id} was denied but scenario.mjs gives it no risk class`)
        add(risks, `${d.tool_name}\0${spec.workflow}\0${risk ?? '(none given)'}`, 1)
        attempts.push({ execution: spec.name, workflow: spec.workflow, tool: d.tool_name, toolUseId: d.tool_use_id, layer: found?.call.layer ?? '(not scripted)', reason: reason ?? '(no layer)', risk: risk ?? '(none given)' })
      }
      if (r.model_usage_since_last_result && typeof r.model_usage_since_last_result === 'object') {
        deltaSum ??= {}
        for (const [model, u] of Object.entries(r.model_usage_since_last_result)) {
          deltaSum[model] ??= { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: 0 }
          for (const k of Object.keys(deltaSum[model])) deltaSum[model][k] += Number(u[k] ?? 0)
        }
      }
    }
    // A frame whose denial never got booked still counts (the exporter counts frames at once).
    for (const f of framesInOrder) {
      if (booked.has(f.tool_use_id)) continue
      booked.add(f.tool_use_id)
      add(denials, `${f.tool_name}\0${spec.workflow}\0${reasonOf(f) ?? 'other'}`, 1)
      add(risks, `${f.tool_name}\0${spec.workflow}\0(frame without a booking)`, 1)
      problems.push(`frame without a booking: ${f.tool_name} ${f.tool_use_id} (${spec.name})`)
    }
    // Tokens and cost: modelUsage and total_cost_usd are running totals per session, so the last
    // result's figures are the session's. (model_usage_since_last_result, where present, is
    // summed and compared as a cross-check.)
    const last = results[results.length - 1]
    if (last) {
      for (const [model, u] of Object.entries(last.modelUsage ?? {})) {
        for (const [kind, field] of KINDS) add(tokens, `${spec.workflow}\0${model}\0${kind}`, Number(u[field] ?? 0))
        add(cost, `${spec.workflow}\0${model}`, Number(u.costUSD ?? 0))
      }
      add(totalCost, spec.workflow, Number(last.total_cost_usd ?? 0))
      if (deltaSum) {
        modelUsageMethod = 'last cumulative modelUsage of each session (model_usage_since_last_result summed as a cross-check)'
        for (const [model, u] of Object.entries(last.modelUsage ?? {})) {
          for (const [, field] of KINDS) {
            if ((deltaSum[model]?.[field] ?? 0) !== Number(u[field] ?? 0)) problems.push(`${spec.name}: sum of model_usage_since_last_result.${model}.${field} = ${deltaSum[model]?.[field]} but the last modelUsage says ${u[field]}`)
          }
        }
      }
    }
    // Running totals must not go down from one result to the next.
    for (let i = 1; i < results.length; i++) {
      if (results[i].total_cost_usd < results[i - 1].total_cost_usd) problems.push(`${spec.name}: total_cost_usd went down between results ${i - 1} and ${i}`)
    }

    // Which layer denied what, and whether it sent a frame.
    const uses = []
    for (const m of messages) {
      if (m.type !== 'assistant') continue
      for (const b of m.message?.content ?? []) if (b.type === 'tool_use') uses.push(b)
    }
    const deniedIds = new Set(results.flatMap((r) => (r.permission_denials ?? []).map((d) => d.tool_use_id)))
    // The CLI's own per-call record: the `tool_result` of each call and, beside it in the same
    // `user` message, `tool_result_meta[]` (not declared in sdk.d.ts; names as observed).
    const toolResults = new Map()
    const records = new Map()
    for (const m of messages) {
      if (m.type !== 'user') continue
      for (const b of Array.isArray(m.message?.content) ? m.message.content : []) {
        if (b?.type === 'tool_result') toolResults.set(b.tool_use_id, b)
      }
      for (const r of Array.isArray(m.tool_result_meta) ? m.tool_result_meta : []) if (r?.id) records.set(r.id, r)
    }
    for (const use of uses) {
      const found = scripted(spec.prompts, use.name, use.input)
      const denied = deniedIds.has(use.id)
      const frame = frames.get(use.id)
      const record = records.get(use.id)
      const result = toolResults.get(use.id)
      const ran = result !== undefined && result.is_error !== true && record?.permission_decision?.decision !== 'reject'
      if (denied) {
        const reasonFromRecord = recordReason(frame, record)
        denialRecords.push({
          execution: spec.name,
          workflow: spec.workflow,
          tool: use.name,
          toolUseId: use.id,
          layer: found?.call.layer ?? '(not scripted)',
          frame: frame
            ? { decision_reason_type: frame.decision_reason_type ?? null, decision_reason_code: frame.decision_reason_code ?? null, decision_reason: frame.decision_reason ?? null }
            : null,
          record: record
            ? { non_execution_kind: record.non_execution_kind ?? null, ...pick(record.permission_decision, ['decision', 'source', 'reason_type']) }
            : null,
          reasonFromRecord,
          classifierOutage: reasonFromRecord === 'classifierUnavailable',
          result: result ? { is_error: result.is_error === true, text: masked(resultText(result)).slice(0, 400) } : null
        })
        add(recordReasons, `${use.name}\0${spec.workflow}\0${reasonFromRecord}`, 1)
        const byLayer = found ? layerReason(found.call.layer, use.name) : null
        if (reasonFromRecord !== byLayer) problems.push(`the SDK's records give ${use.name} ${use.id} (${spec.name}, ${found?.call.layer ?? 'not scripted'}) the reason ${reasonFromRecord}, its layer ${byLayer}`)
        if (!record) problems.push(`denial without a tool_result_meta record: ${use.name} ${use.id} (${spec.name})`)
        if (ran) {
          unenforced.push({ execution: spec.name, workflow: spec.workflow, tool: use.name, toolUseId: use.id })
          problems.push(`denied but ran: ${use.name} ${use.id} (${spec.name}): its tool_result is no error`)
        }
      }
      layers.push({
        execution: spec.name,
        workflow: spec.workflow,
        tool: use.name,
        input: use.input.command ?? use.input.file_path ?? use.input.url,
        layer: found?.call.layer ?? '(not scripted)',
        expected: found?.call.expect ?? null,
        risk: denied ? (found?.call.risk ?? null) : null,
        denied,
        frame: frame ? (frame.decision_reason_type ?? '(no type)') : null,
        decisionReason: frame?.decision_reason ?? null,
        messageLength: frame?.message?.length ?? null,
        record: record ? { non_execution_kind: record.non_execution_kind ?? null, ...pick(record.permission_decision, ['decision', 'source', 'reason_type']) } : null,
        ran
      })
      if (found && (found.call.expect === 'deny') !== denied) {
        problems.push(`SCENARIO: ${spec.name} ${use.name} ${masked(JSON.stringify(use.input.command ?? use.input.file_path ?? use.input.url))} was ${denied ? 'denied' : 'not denied'}, scenario.mjs expects ${found.call.expect} (${found.call.layer})`)
      }
    }
    sessions.push({
      execution: spec.name,
      workflow: spec.workflow,
      executionId: run.executionId,
      sessionId: results[0]?.session_id ?? messages[0]?.session_id ?? null,
      ms: run.ms,
      threw: run.thrown ? String(run.thrown.message ?? run.thrown).slice(0, 200) : null,
      results: results.map((r) => ({
        result_index: r.result_index ?? null,
        subtype: r.subtype,
        num_turns: r.num_turns,
        total_cost_usd: r.total_cost_usd,
        denials: (r.permission_denials ?? []).length,
        models: Object.keys(r.modelUsage ?? {}),
        has_model_usage_since_last_result: r.model_usage_since_last_result !== undefined
      })),
      frames: framesInOrder.length
    })
  }

  const rows = (map, names) => [...map].map(([k, value]) => {
    const parts = k.split('\0')
    return Object.fromEntries([...names.map((n, i) => [n, parts[i]]), ['value', value]])
  }).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
  const byWorkflow = (list) => {
    const out = {}
    for (const r of list) out[r.workflow] = (out[r.workflow] ?? 0) + r.value
    return out
  }
  const denialRows = rows(denials, ['tool', 'workflow', 'reason'])
  const costRows = rows(cost, ['workflow', 'model'])
  return {
    sdk: { package: '@anthropic-ai/claude-agent-sdk', version: sdkPackage.version, claudeCodeVersion: sdkPackage.claudeCodeVersion },
    modelUsageMethod,
    denials: denialRows,
    denialsByWorkflow: byWorkflow(denialRows),
    denialsTotal: denialRows.reduce((a, r) => a + r.value, 0),
    risks: rows(risks, ['tool', 'workflow', 'risk']),
    // What the per-call record says of each denial (not yet checked by check.mjs: the exporter
    // counts a denial without a frame as `unknown` today): the truth for reading the record.
    denialRecords,
    denialsByRecordReason: rows(recordReasons, ['tool', 'workflow', 'reason']),
    classifierOutages: denialRecords.filter((d) => d.classifierOutage).length,
    unenforced,
    attempts,
    secrets: SECRETS,
    executions: rows(executions, ['workflow', 'outcome']),
    tokens: rows(tokens, ['workflow', 'model', 'kind']),
    cost: costRows,
    costByWorkflow: byWorkflow(costRows),
    totalCostUsdByWorkflow: Object.fromEntries(totalCost),
    costTotal: [...totalCost.values()].reduce((a, b) => a + b, 0),
    sessions,
    layers,
    problems
  }
}

// What the fake API served to scripted prompts and to the auto-mode classifier, per model: a
// cross-check of the SDK's modelUsage.
// (Helper calls the CLI makes on its own, outside the query pipeline, are not in modelUsage.)
function served (fakeLog) {
  if (!fakeLog || !existsSync(fakeLog)) return null
  const out = {}
  for (const line of readFileSync(fakeLog, 'utf8').split('\n')) {
    if (!line) continue
    const r = JSON.parse(line)
    // Helper calls outside the query pipeline are not in modelUsage; the auto-mode classifier's
    // own requests are.
    if (!r.usage || (r.script === null && !r.classifier)) continue
    out[r.model] ??= { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }
    const o = out[r.model]
    o.requests++
    o.inputTokens += r.usage.input_tokens
    o.outputTokens += r.usage.output_tokens
    o.cacheReadInputTokens += r.usage.cache_read_input_tokens
    o.cacheCreationInputTokens += r.usage.cache_creation_input_tokens
  }
  return out
}

// Run the executions, a few at a time (their log lines interleave, as in a real executor).
const runs = new Array(EXECUTIONS.length)
let next = 0
const workers = Array.from({ length: Math.max(1, Number(args.concurrency) || 1) }, async () => {
  while (next < EXECUTIONS.length) {
    const i = next++
    runs[i] = await runExecution(EXECUTIONS[i], i)
  }
})
await Promise.all(workers)
root.flush?.()

const expected = expectedFrom(runs)
expected.fakeServed = served(args['fake-log'])
if (expected.fakeServed) {
  // modelUsage summed over sessions, per model, against what the fake served.
  const reported = {}
  for (const r of expected.tokens) {
    reported[r.model] ??= {}
    reported[r.model][r.kind] = (reported[r.model][r.kind] ?? 0) + r.value
  }
  for (const [model, s] of Object.entries(expected.fakeServed)) {
    for (const [kind, field] of KINDS) {
      if ((reported[model]?.[kind] ?? 0) !== s[field]) {
        expected.problems.push(`the fake served ${s[field]} ${kind} tokens of ${model}, the SDK's modelUsage adds up to ${reported[model]?.[kind] ?? 0}`)
      }
    }
  }
}
writeFileSync(args.expected, JSON.stringify(expected, null, 2) + '\n')

// Which layer denied what, and whether the SDK sent a permission_denied frame for it.
console.log('sdk-e2e: denied tool calls, by layer, with the risk class expected (frame = decision_reason_type of the permission_denied frame; record = tool_result_meta non_execution_kind/source/reason_type):')
for (const l of expected.layers.filter((x) => x.denied)) {
  const r = l.record ? `${l.record.non_execution_kind ?? '-'}/${l.record.source ?? '-'}/${l.record.reason_type ?? '-'}` : 'none'
  console.log(`sdk-e2e:   ${l.workflow.padEnd(9)} ${l.tool.padEnd(8)} ${masked(l.input).slice(0, 34).padEnd(34)} ${l.layer.padEnd(46)} ${String(l.risk).padEnd(17)} ${(l.frame ? 'frame ' + l.frame : 'no frame').padEnd(23)} record ${r}`)
}

let failed = false
for (const run of runs) {
  const results = run.messages.filter((m) => m.type === 'result')
  const wantThrow = run.spec.maxTurns !== undefined
  console.log(`sdk-e2e: ${run.spec.name} (${run.spec.workflow}, ${run.spec.permissionMode}): ${results.length} result(s) [${results.map((r) => r.subtype).join(', ')}], ` +
    `${run.messages.filter((m) => m.subtype === 'permission_denied').length} frame(s), ` +
    `${results.reduce((a, r) => a + (r.permission_denials?.length ?? 0), 0)} booked denial(s), ${run.ms} ms` +
    (run.thrown ? `, threw: ${String(run.thrown.message ?? run.thrown).slice(0, 160)}` : ''))
  if (results.length !== run.spec.prompts.length) {
    console.log(`sdk-e2e: FAIL ${run.spec.name}: ${results.length} result message(s), expected ${run.spec.prompts.length}`)
    failed = true
  }
  if (run.timedOut) {
    console.log(`sdk-e2e: FAIL ${run.spec.name}: no end within ${args['timeout-ms']} ms (aborted)`)
    failed = true
  } else if (run.thrown && !wantThrow) {
    console.log(`sdk-e2e: FAIL ${run.spec.name}: query() threw: ${run.thrown.stack ?? run.thrown}`)
    failed = true
  }
}
for (const p of expected.problems) {
  console.log(`sdk-e2e: ${p.startsWith('SCENARIO') || p.startsWith('the fake') ? 'FAIL' : 'note'} ${p}`)
  if (p.startsWith('SCENARIO') || p.startsWith('the fake')) failed = true
}
console.log(`sdk-e2e: expected ${expected.denialsTotal} denial(s) ${JSON.stringify(expected.denialsByWorkflow)}, ` +
  `${expected.executions.reduce((a, r) => a + r.value, 0)} result(s), cost ${expected.costTotal.toFixed(6)} USD`)
process.exit(failed ? 1 : 0)
