// Node: the kagent-proxy command's log. The same JSON lines as the console
// logger, but the request lines of one event-loop turn leave in one write:
// a write to a pipe is synchronous on Node and cost about a tenth of the
// CPU of a proxied request when made per line (docs/benchmarks.md, Proxy).
import type { ProxyLogger } from '../core/index.js';

/** Lines waiting longer than this many bytes are written at once rather than at the end of the turn. */
const MAX_PENDING_BYTES = 64 * 1024;

/**
 * A logger writing one JSON line per entry, as `consoleLogger` does: `info`
 * to stdout, gathered and written at the end of the event-loop turn (or
 * when the process exits); `warn` and `error` to stderr at once (stdout's
 * pending lines first, so the order holds on a terminal that shows both).
 */
export function createBatchedConsoleLogger(out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): ProxyLogger {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const text = pending;
    pending = '';
    out.write(text);
  };
  process.once('exit', flush);
  // The time is written out once per millisecond, not per line; the entry is not copied to put it first.
  let stampedAt = NaN;
  let stamp = '';
  return (entry) => {
    const now = Date.now();
    if (now !== stampedAt) {
      stampedAt = now;
      stamp = `{"time":"${new Date(now).toISOString()}",`;
    }
    // An entry always has a level and a message, so its JSON is never `{}`.
    const line = `${stamp}${JSON.stringify(entry).slice(1)}\n`;
    if (entry.level === 'info') {
      pending += line;
      if (pending.length >= MAX_PENDING_BYTES) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return;
    }
    flush();
    err.write(line);
  };
}
