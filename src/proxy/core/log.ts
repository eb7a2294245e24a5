import { keyForms, redactText } from './redact.js';

/** One thing the proxy wants the operator to know. Never holds the API key. */
export interface ProxyLogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  [field: string]: unknown;
}

/** Receives every log entry; the default writes one JSON line per entry to the console. */
export type ProxyLogger = (entry: ProxyLogEntry) => void;

/** How the proxy's modules write to the log. */
export type Log = (level: ProxyLogEntry['level'], message: string, fields?: Record<string, unknown>) => void;

export const consoleLogger: ProxyLogger = (entry) => {
  const line = JSON.stringify({ time: new Date().toISOString(), ...entry });
  if (entry.level === 'error') console.error(line);
  else if (entry.level === 'warn') console.warn(line);
  else console.log(line);
};

/** A `Log` that redacts the key and the other secrets from every entry before the operator's logger sees it, and never throws. */
export function createLogger(logger: ProxyLogger | false | undefined, secrets: readonly string[]): Log {
  if (logger === false) return () => {};
  const sink = logger ?? consoleLogger;
  const forms = keyForms(secrets);
  return (level, message, fields = {}) => {
    try {
      // Most entries (a request answered, one refused) hold only numbers and short strings free of the key:
      // those go to the sink as they are. The rest are written to JSON and read back, redacted.
      const entry = plainAndClean(message, fields, forms) ? withLevel(fields, level, message) : (JSON.parse(redactText(JSON.stringify(withLevel(fields, level, message), errorsAsText), secrets)) as ProxyLogEntry);
      sink(entry);
    } catch {
      // A logger that fails must not fail the request.
    }
  };
}

/** `{ ...fields, level, message }`, copied field by field: a spread of objects of many shapes goes through V8's slow path, on every request. */
function withLevel(fields: Record<string, unknown>, level: ProxyLogEntry['level'], message: string): ProxyLogEntry {
  const entry: Record<string, unknown> = {};
  for (const name in fields) entry[name] = fields[name];
  entry.level = level;
  entry.message = message;
  return entry as ProxyLogEntry;
}

/** Whether the entry holds only numbers, booleans and strings (no objects, no errors), none with a form of the key. */
function plainAndClean(message: string, fields: Record<string, unknown>, forms: string[]): boolean {
  for (const form of forms) if (message.includes(form)) return false;
  for (const name in fields) {
    const value = fields[name];
    if (typeof value === 'string') {
      for (const form of forms) if (value.includes(form)) return false;
    } else if (typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))) return false;
  }
  return true;
}

// Errors serialise as `{}` by default; the operator needs their name and message.
function errorsAsText(_key: string, value: unknown): unknown {
  if (value instanceof Error) return `${value.name}: ${value.message}${value.cause instanceof Error ? ` (cause: ${value.cause.message})` : ''}`;
  return value;
}

/** Logs one kind of event at most once per interval, however often it happens. */
export type RateLimitedLog = (kind: string, level: ProxyLogEntry['level'], message: string, fields?: Record<string, unknown>) => void;

/**
 * A log for events an attacker can trigger thousands of times a second
 * (refused or timed-out connections): the first of each `kind` is written at
 * once, the rest of its interval are counted and written as one line with
 * `count` when the interval ends, so a flood costs a line per interval.
 */
export function createRateLimitedLog(log: Log, intervalMs = 10_000): RateLimitedLog {
  const kinds = new Map<string, { count: number; level: ProxyLogEntry['level']; message: string; fields: Record<string, unknown> }>();
  return (kind, level, message, fields = {}) => {
    const pending = kinds.get(kind);
    if (pending) {
      pending.count++;
      Object.assign(pending, { level, message, fields });
      return;
    }
    log(level, message, { ...fields, count: 1 });
    const entry = { count: 0, level, message, fields };
    kinds.set(kind, entry);
    const timer = setTimeout(() => {
      kinds.delete(kind);
      if (entry.count > 0) log(entry.level, entry.message, { ...entry.fields, count: entry.count, inLastSeconds: intervalMs / 1000 });
    }, intervalMs);
    // A pending summary never keeps a process alive (Node and Bun have unref; others have no such notion).
    (timer as { unref?: () => void }).unref?.();
  };
}
