import { redactText } from './redact.js';

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

/** A `Log` that redacts the key from every entry before the operator's logger sees it, and never throws. */
export function createLogger(logger: ProxyLogger | false | undefined, apiKey: string): Log {
  if (logger === false) return () => {};
  const sink = logger ?? consoleLogger;
  return (level, message, fields = {}) => {
    try {
      const entry = JSON.parse(redactText(JSON.stringify({ ...fields, level, message }, errorsAsText), apiKey)) as ProxyLogEntry;
      sink(entry);
    } catch {
      // A logger that fails must not fail the request.
    }
  };
}

// Errors serialise as `{}` by default; the operator needs their name and message.
function errorsAsText(_key: string, value: unknown): unknown {
  if (value instanceof Error) return `${value.name}: ${value.message}${value.cause instanceof Error ? ` (cause: ${value.cause.message})` : ''}`;
  return value;
}
