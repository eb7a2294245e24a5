import { decodeText } from './decode-text.js';
import type { ExtractedDocument } from './document.js';
import { IngestError, reasonOf } from './errors.js';

// Deeper structure than this is written as compact JSON instead of being walked further.
const MAX_DEPTH = 64;

/**
 * A JSON file (or JSON Lines) as readable lines: `key.path: value` for each value, a list of
 * plain values on one line, and each record of a list of records on one line of `key: value` pairs.
 */
export function extractJson(bytes: Uint8Array): ExtractedDocument {
  const source = decodeText(bytes, 'JSON file');
  const value = parseJsonOrLines(source);
  const lines: string[] = [];
  writeValue(value, '', 0, lines);
  return { pages: [{ text: lines.join('\n') }] };
}

function parseJsonOrLines(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (error) {
    // JSON Lines: one JSON value per line.
    const lines = source.split('\n').filter((line) => line.trim());
    if (lines.length > 1) {
      try {
        return lines.map((line) => JSON.parse(line) as unknown);
      } catch {
        // Fall through to the original error, which describes the file as a whole.
      }
    }
    throw new IngestError(`not valid JSON: ${reasonOf(error)}`);
  }
}

function writeValue(value: unknown, path: string, depth: number, lines: string[]): void {
  if (isPlain(value)) {
    const text = plainText(value);
    if (text !== '') lines.push(path ? `${path}: ${text}` : text);
    return;
  }
  if (depth >= MAX_DEPTH) {
    lines.push(path ? `${path}: ${compact(value)}` : compact(value));
    return;
  }
  if (Array.isArray(value)) {
    if (value.every(isPlain)) {
      const text = value.map(plainText).filter(Boolean).join(', ');
      if (text) lines.push(path ? `${path}: ${text}` : text);
    } else if (value.every(isRecord)) {
      value.forEach((record, index) => {
        const pairs = recordPairs(record, '', depth + 1).join('; ');
        if (pairs) lines.push(path ? `${path} ${index + 1}: ${pairs}` : pairs);
      });
    } else {
      value.forEach((item, index) => writeValue(item, `${path}[${index + 1}]`, depth + 1, lines));
    }
    return;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    writeValue(item, path ? `${path}.${key}` : key, depth + 1, lines);
  }
}

// A record's values as "key: value" pairs, nested keys joined with dots, for one line per record.
function recordPairs(record: Record<string, unknown>, prefix: string, depth: number): string[] {
  const pairs: string[] = [];
  for (const [key, item] of Object.entries(record)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (isPlain(item)) {
      const text = plainText(item);
      if (text !== '') pairs.push(`${name}: ${text}`);
    } else if (depth >= MAX_DEPTH) {
      pairs.push(`${name}: ${compact(item)}`);
    } else if (Array.isArray(item) && item.every(isPlain)) {
      const text = item.map(plainText).filter(Boolean).join(', ');
      if (text) pairs.push(`${name}: ${text}`);
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => {
        if (isRecord(element)) pairs.push(...recordPairs(element, `${name}[${index + 1}]`, depth + 1));
        else pairs.push(`${name}[${index + 1}]: ${isPlain(element) ? plainText(element) : compact(element)}`);
      });
    } else {
      pairs.push(...recordPairs(item as Record<string, unknown>, name, depth + 1));
    }
  }
  return pairs;
}

type Plain = string | number | boolean | null;

function isPlain(value: unknown): value is Plain {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function plainText(value: Plain): string {
  return value === null ? '' : String(value);
}

// Compact JSON for structure too deep to walk; nesting beyond what the stack holds is summarised.
function compact(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '(nested too deeply to show)';
  }
}
