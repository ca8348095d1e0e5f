// pino-roll as a pino transport (it runs in pino's worker thread), handing pino-roll whole lines
// only.
//
// Why: pino's transport machinery (thread-stream) moves the log through a 4 MiB ring buffer and
// hands the worker whatever bytes are there, cut anywhere, even inside a line, once the buffer
// wrapped. pino-roll rolls between two such writes, so at high rates a line can start at the end
// of `executor.N.log` and end at the start of `executor.N+1.log`: neither file holds it whole,
// and no reader can count it (seen with pino 10.4 / thread-stream 4.2 / pino-roll 4.0 at
// ~130k lines/s: about one roll in three tore a line). Writing with `--roll plain` reproduces it.
// Here the worker keeps an unfinished line back until its newline arrives, so every roll falls
// between two lines, as it does at the rates a real executor logs at.

import pinoRoll from 'pino-roll'

export default async function (options) {
  const destination = await pinoRoll(options)
  const write = destination.write.bind(destination)
  let pending = ''
  destination.write = (data) => {
    const text = pending + data
    const end = text.lastIndexOf('\n') + 1
    pending = text.slice(end)
    return end === 0 ? true : write(text.slice(0, end))
  }
  return destination
}
