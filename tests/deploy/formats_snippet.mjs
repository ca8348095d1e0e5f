// Runs the pino snippet of docs/formats.md ("Logging tool results and denials with pino") the
// way an executor would, with the real pino (tests/e2e/node_modules), and writes the log an
// execution leaves: a hook denial, a canUseTool denial, one allowed call of each, a path-rule
// denial no code of ours saw, the SDK messages of those calls (as CLI 2.1.330 sends them: each
// call's tool_use, and its answer with its tool_result_meta record) through logToolResults, and
// the completed line whose record lists the three denials.
//
//   node formats_snippet.mjs SNIPPET.mjs LOG [--unwrapped | --results-only]
//
// --unwrapped logs neither the wrappers' denials nor the answers: the control run, in which the
// denials are known only from the record. --results-only logs the answers alone.
import { createRequire } from 'node:module'
import { pathToFileURL, fileURLToPath } from 'node:url'
import { dirname, join, resolve } from 'node:path'

const [snippetPath, logPath, flag] = process.argv.slice(2)
const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(join(here, '..', 'e2e', 'package.json'))
const pino = require('pino')
const { loggedPreToolUse, loggedCanUseTool, logToolResults } = await import(pathToFileURL(resolve(snippetPath)).href)
const wrap = flag === undefined
const results = flag !== '--unwrapped'

const logger = pino({}, pino.destination({ dest: logPath, sync: true }))
const log = logger.child({ executionId: 'exec_snippet', workflow: 'review' })
const signal = new AbortController().signal

// The executor's own policy: a PreToolUse hook that blocks force pushes, a callback that refuses Write.
const blockForcePush = async (input) => ({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: /--force/.test(input.tool_input.command) ? 'deny' : 'allow',
    permissionDecisionReason: 'force pushes are not allowed'
  }
})
const approveTool = async (toolName, input) =>
  toolName === 'Write' ? { behavior: 'deny', message: 'Write is not allowed in review' } : { behavior: 'allow', updatedInput: input }

const hook = wrap ? loggedPreToolUse(log, 'block-force-push', blockForcePush) : blockForcePush
const canUseTool = wrap ? loggedCanUseTool(log, approveTool) : approveTool

const call = (command, id) => hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: id }, id, { signal })
const denied = await call('git push --force origin main', 'toolu_hook1')
const allowed = await call('git status', 'toolu_hook2')
const refused = await canUseTool('Write', { file_path: 'README.md' }, { signal, toolUseID: 'toolu_cb1' })
const granted = await canUseTool('Read', { file_path: 'README.md' }, { signal, toolUseID: 'toolu_cb2' })
if (denied.hookSpecificOutput.permissionDecision !== 'deny' || allowed.hookSpecificOutput.permissionDecision !== 'allow' ||
    refused.behavior !== 'deny' || granted.behavior !== 'allow') {
  console.error('formats_snippet: the wrappers changed a decision')
  process.exit(1)
}

// The SDK messages of those calls, as the CLI sends them.
const toolNames = new Map()
const calls = [
  ['toolu_hook1', 'Bash', { command: 'git push --force origin main' }, 'PreToolUse:Bash hook error: force pushes are not allowed',
    { non_execution_kind: 'permission-rule', permission_decision: { decision: 'reject', source: 'hook', reason_type: 'hook' } }],
  ['toolu_hook2', 'Bash', { command: 'git status' }, null, { permission_decision: { decision: 'accept', source: 'config', reason_type: 'rule' } }],
  ['toolu_cb1', 'Write', { file_path: 'README.md', content: 'x' }, 'Write is not allowed in review',
    { non_execution_kind: 'permission-rule', permission_decision: { decision: 'reject', source: 'user_reject' } }],
  ['toolu_cb2', 'Read', { file_path: 'README.md' }, null, { permission_decision: { decision: 'accept', source: 'config', reason_type: 'mode' } }],
  ['toolu_rule1', 'Read', { file_path: '.env' }, '<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>',
    { permission_decision: { decision: 'reject', source: 'config', reason_type: 'rule' } }]
]
for (const [id, name, input, refusal, record] of results ? calls : []) {
  logToolResults(log, { type: 'assistant', message: { content: [{ type: 'tool_use', id, name, input }] } }, toolNames)
  const answer = refusal === null
    ? { type: 'tool_result', tool_use_id: id, content: 'done', is_error: false }
    : { type: 'tool_result', tool_use_id: id, content: refusal, is_error: true }
  logToolResults(log, { type: 'user', message: { role: 'user', content: [answer] }, tool_result_meta: [{ id, ...record }] }, toolNames)
}

log.info({
  sdkMsgType: 'result',
  subtype: 'success',
  costUsd: 0.12,
  numTurns: 3,
  durationMs: 4100,
  permissionDenialCount: 3,
  permissionDeniedTools: { Bash: 1, Write: 1, Read: 1 },
  permissionDenials: [
    { toolName: 'Bash', toolUseId: 'toolu_hook1', toolInput: { command: 'git push --force origin main' } },
    { toolName: 'Write', toolUseId: 'toolu_cb1', toolInput: { file_path: 'README.md' } },
    { toolName: 'Read', toolUseId: 'toolu_rule1', toolInput: { file_path: '.env' } }
  ]
}, 'Claude Agent SDK execution completed')
