#!/usr/bin/env node
// A small fake of the Anthropic Messages API, on loopback only, for the SDK end-to-end test
// (tests/sdk/run.sh). The real Claude Agent SDK (its bundled Claude Code CLI) talks to it through
// ANTHROPIC_BASE_URL; nothing leaves 127.0.0.1.
//
//   node fake-api.mjs --port-file FILE [--log FILE]
//
// Listens on 127.0.0.1, on an ephemeral port that it writes to FILE once it listens. Answers
// `POST /v1/messages` (streaming SSE, or plain JSON when the request has no `stream: true`) and
// `POST /v1/messages/count_tokens`; anything else gets a 404 and is logged. --log FILE gets one
// JSON line per request: what was asked (model, script, step, tool results it saw) and what was
// served (tool calls, usage), so a failing run can be read afterwards.
//
// Scripting. A prompt sent by the executor carries a marker `[script:NAME]`. For a request whose
// conversation contains such a prompt, the fake finds the last one, counts the assistant messages
// after it (= how many steps of that script were already answered) and serves step N of SCRIPTS[NAME]:
// either tool calls (stop_reason tool_use) or a final text (end_turn). Past the script's end it
// answers a final text. A request without a marker (a helper call the CLI makes on its own) gets a
// short text answer. The scripts live in scenario.mjs, shared with the executor.
//
// Usage figures differ per response (derived from the script name, the step and the model), so
// that sums are checkable: no two turns report the same numbers.

import { createServer } from 'node:http'
import { writeFileSync, appendFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { SCRIPTS } from './scenario.mjs'

function parseArgs (argv) {
  const args = { 'port-file': null, log: null }
  for (let i = 2; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '')
    const value = argv[++i]
    if (!(key in args) || value === undefined) {
      console.error(`fake-api.mjs: unknown or incomplete option ${argv[i - 1]}`)
      process.exit(2)
    }
    args[key] = value
  }
  if (!args['port-file']) {
    console.error('usage: node fake-api.mjs --port-file FILE [--log FILE]')
    process.exit(2)
  }
  return args
}

const MARKER = /\[script:([A-Za-z0-9_-]+)\]/

// The text of a message's content (a string, or the text blocks of an array).
function textOf (message) {
  if (typeof message.content === 'string') return message.content
  if (!Array.isArray(message.content)) return ''
  return message.content.filter((b) => b && b.type === 'text').map((b) => b.text).join('\n')
}

// Which script and which step a request is at: the last user message with a marker, and how many
// assistant messages follow it.
export function locate (body) {
  const messages = Array.isArray(body.messages) ? body.messages : []
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m.role !== 'user') continue
    const found = MARKER.exec(textOf(m))
    if (!found) continue
    const step = messages.slice(i + 1).filter((x) => x.role === 'assistant').length
    return { script: found[1], step }
  }
  return { script: null, step: 0 }
}

function systemText (body) {
  if (typeof body.system === 'string') return body.system
  if (Array.isArray(body.system)) return body.system.map((b) => (b && b.text) || '').join(' ')
  return ''
}

function lastUserText (body) {
  const users = (Array.isArray(body.messages) ? body.messages : []).filter((m) => m.role === 'user')
  return users.length ? textOf(users[users.length - 1]) : ''
}

const digest = (s) => createHash('sha256').update(s).digest()

// Deterministic, distinct usage per (script, step, model, kind of answer).
function usageFor (key) {
  const h = digest('usage\0' + key)
  return {
    input_tokens: 50 + h.readUInt16BE(0) % 900,
    output_tokens: 10 + h.readUInt16BE(2) % 400,
    cache_read_input_tokens: 1000 + h.readUInt16BE(4) % 20000,
    cache_creation_input_tokens: h.readUInt16BE(6) % 3000
  }
}

// A tool_use id in the API's shape: toolu_01 + 22 base62 characters, deterministic per call.
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
function toolUseId (key) {
  const h = digest('toolu\0' + key)
  let s = ''
  for (let i = 0; i < 22; i++) s += B62[h[i] % 62]
  return 'toolu_01' + s
}

// The answer to one request: content blocks, stop reason, usage.
function answer (body, counter) {
  const model = typeof body.model === 'string' ? body.model : 'claude-sonnet-4-5'
  const { script, step } = locate(body)
  if (script === null) {
    // A helper call the CLI makes on its own (a title, a summary, …): a short text.
    const key = `helper\0${model}\0${counter}`
    return { model, script, step, content: [{ type: 'text', text: 'OK.' }], stop: 'end_turn', usage: usageFor(key) }
  }
  const steps = SCRIPTS[script]
  const key = `${script}\0${step}\0${model}`
  if (!steps) {
    return { model, script, step, content: [{ type: 'text', text: `unknown script ${script}` }], stop: 'end_turn', usage: usageFor(key) }
  }
  const s = steps[step]
  if (!s || !s.tools) {
    const text = (s && s.text) || `Done with ${script}.`
    return { model, script, step, content: [{ type: 'text', text }], stop: 'end_turn', usage: usageFor(key) }
  }
  const content = []
  if (s.text) content.push({ type: 'text', text: s.text })
  s.tools.forEach((t, i) => {
    content.push({ type: 'tool_use', id: toolUseId(`${key}\0${i}`), name: t.name, input: t.input })
  })
  return { model, script, step, content, stop: 'tool_use', usage: usageFor(key), safeguard: safeguardFor(body, s, content) }
}

// The server-side auto-mode classifier's answer, for a request that asks for it (auto mode sends
// `safeguards: [{type: "dangerous_tool_use", classifier_context}]`; the real API answers in the
// final message_delta, `delta.safeguard_results`). A step may give the whole response's status
// (`safeguard: {type: "unavailable", reason: "error"}`, or `safeguard: null` for a response that
// carries no result at all, as from a proxy that drops it); else each tool call gets its scripted
// `verdict` (`{type: "unavailable", reason: "timeout"}`, `{type: "evaluated", outcome: "flagged",
// explanation}`, …), by default "not flagged". Undefined: the request did not ask.
function safeguardFor (body, s, content) {
  const asked = Array.isArray(body.safeguards) && body.safeguards.some((g) => g && g.type === 'dangerous_tool_use')
  if (!asked) return undefined
  if (s.safeguard === null) return null
  if (s.safeguard) return [{ type: 'dangerous_tool_use', status: s.safeguard }]
  const uses = content.filter((b) => b.type === 'tool_use')
  const verdicts = Object.fromEntries(uses.map((b, i) =>
    [b.id, s.tools[i]?.verdict ?? { type: 'evaluated', outcome: 'not_flagged' }]))
  return [{ type: 'dangerous_tool_use', status: { type: 'available', tool_uses: verdicts } }]
}

// The CLI's own auto-mode classifier (run when the server-side one is switched off,
// CLAUDE_CODE_AUTO_MODE_SERVER=0): a separate, non-streaming request with no tools, whose system
// prompt opens "You are a security monitor for autonomous AI coding agents", asked in two
// stages (the first stops at `</block>`), about the action on the transcript's last line
// (`{"Bash":"make deploy"}`). The scripted call with that tool and command says what to answer
// (`local`): 'overloaded' (HTTP 529), 'error' (HTTP 500), 'malformed' (a reply with no <block>),
// `{ block: REASON, category }` (blocked), or nothing (not blocked).
const CLASSIFIER_SYSTEM = /^You are a security monitor for autonomous AI coding agents/

function classifierCall (body) {
  const system = Array.isArray(body.system) ? body.system : [{ text: systemText(body) }]
  if (!system.some((b) => CLASSIFIER_SYSTEM.test(String(b?.text ?? '')))) return null
  const lines = lastUserText(body).split('\n').filter((l) => l.startsWith('{'))
  let action = {}
  try { action = JSON.parse(lines[lines.length - 1] ?? '{}') } catch {}
  const [tool, value] = Object.entries(action)[0] ?? []
  for (const steps of Object.values(SCRIPTS)) {
    for (const step of steps) {
      const call = (step.tools ?? []).find((t) => t.name === tool && (t.input.command ?? t.input.file_path ?? t.input.url) === value)
      if (call) return { tool, value, local: call.local ?? null }
    }
  }
  return { tool, value, local: null }
}

function classifierAnswer (body, call, counter) {
  const model = typeof body.model === 'string' ? body.model : 'claude-sonnet-4-6'
  const stage1 = Array.isArray(body.stop_sequences) && body.stop_sequences.includes('</block>')
  const usage = usageFor(`classifier\0${call.tool}\0${call.value}\0${stage1}\0${counter}`)
  const base = { model, script: null, step: 0, classifier: { tool: call.tool, stage: stage1 ? 1 : 2, local: call.local }, usage }
  if (call.local === 'overloaded') return { ...base, status: 529, error: { type: 'overloaded_error', message: 'Overloaded' } }
  if (call.local === 'error') return { ...base, status: 500, error: { type: 'api_error', message: 'Internal server error' } }
  if (call.local === 'malformed') return { ...base, content: [{ type: 'text', text: 'The action looks routine to me.' }], stop: 'end_turn' }
  const block = call.local && call.local.block
  const text = stage1
    ? (block ? '<block>yes' : '<block>no')
    : (block ? `<thinking>Checked.</thinking><block>yes</block><category>${call.local.category}</category><reason>[${call.local.category}] ${block}</reason>` : '<block>no</block>')
  return { ...base, content: [{ type: 'text', text }], stop: stage1 ? 'stop_sequence' : 'end_turn', stopSequence: stage1 ? '</block>' : null }
}

function sse (res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
}

function stream (res, id, a) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': 'req_fake_' + id,
    connection: 'keep-alive'
  })
  const u = a.usage
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: 'msg_fake_' + id,
      type: 'message',
      role: 'assistant',
      model: a.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        output_tokens: 1
      }
    }
  })
  sse(res, 'ping', { type: 'ping' })
  a.content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } })
    } else {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } })
      const json = JSON.stringify(block.input)
      const half = Math.floor(json.length / 2)
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } })
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } })
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index })
  })
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: a.stop, stop_sequence: null, ...(a.safeguard ? { safeguard_results: a.safeguard } : {}) },
    usage: {
      input_tokens: u.input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens,
      cache_read_input_tokens: u.cache_read_input_tokens,
      output_tokens: u.output_tokens
    }
  })
  sse(res, 'message_stop', { type: 'message_stop' })
  res.end()
}

function plain (res, id, a) {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake_' + id })
  res.end(JSON.stringify({
    id: 'msg_fake_' + id,
    type: 'message',
    role: 'assistant',
    model: a.model,
    content: a.content,
    stop_reason: a.stop,
    stop_sequence: a.stopSequence ?? null,
    usage: a.usage,
    ...(a.safeguard ? { safeguard_results: a.safeguard } : {})
  }))
}

export function startFakeApi ({ log = null } = {}) {
  let counter = 0
  const record = (entry) => { if (log) appendFileSync(log, JSON.stringify(entry) + '\n') }
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const id = String(++counter).padStart(6, '0')
      const path = (req.url || '').split('?')[0]
      let body = {}
      try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {} } catch {}
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        record({ id, method: req.method, path })
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ input_tokens: 1000 }))
        return
      }
      if (req.method !== 'POST' || path !== '/v1/messages') {
        record({ id, method: req.method, path, status: 404 })
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `fake API: no ${req.method} ${path}` } }))
        return
      }
      const local = classifierCall(body)
      const a = local ? classifierAnswer(body, local, counter) : answer(body, counter)
      if (a.error) {
        record({ id, method: req.method, path, model: a.model, script: null, classifier: a.classifier, status: a.status })
        res.writeHead(a.status, { 'content-type': 'application/json', 'request-id': 'req_fake_' + id })
        res.end(JSON.stringify({ type: 'error', error: a.error }))
        return
      }
      if (!('safeguard' in a) || a.safeguard === undefined) a.safeguard = safeguardFor(body, { tools: [] }, a.content)
      const results = []
      const last = Array.isArray(body.messages) ? body.messages[body.messages.length - 1] : null
      if (last && Array.isArray(last.content)) {
        for (const b of last.content) {
          if (b && b.type === 'tool_result') {
            const text = typeof b.content === 'string' ? b.content : JSON.stringify(b.content)
            results.push({ id: b.tool_use_id, error: !!b.is_error, text: String(text).slice(0, 160) })
          }
        }
      }
      record({
        id,
        method: req.method,
        path,
        stream: body.stream === true,
        model: a.model,
        script: a.script,
        step: a.step,
        toolResults: results,
        served: a.content.map((b) => b.type === 'tool_use' ? { tool: b.name, id: b.id, input: b.input } : { text: b.text }),
        stop: a.stop,
        usage: a.usage,
        ...(a.safeguard !== undefined ? { safeguard: a.safeguard } : {}),
        ...(a.classifier ? { classifier: a.classifier } : {}),
        // A helper call the CLI makes on its own: what it was for (the start of its system prompt).
        ...(a.script === null && !a.classifier ? { helperSystem: systemText(body).slice(0, 300), helperPrompt: lastUserText(body).slice(0, 300) } : {})
      })
      if (body.stream === true) stream(res, id, a)
      else plain(res, id, a)
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve(server))
  })
}

if (process.argv[1] && import.meta.url === new URL('file://' + process.argv[1]).href) {
  const args = parseArgs(process.argv)
  if (args.log) writeFileSync(args.log, '')
  const server = await startFakeApi({ log: args.log })
  writeFileSync(args['port-file'], String(server.address().port) + '\n')
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}
