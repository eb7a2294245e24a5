import { OPENING_LENGTH, sourceNames } from './answer-tap.js';

/** A JSON answer as its record needs it: the opening as a JSON string literal (quotes included), the sources' names. */
export interface JsonAnswerReading {
  openingJson: string;
  sources: string[];
}

const ANSWER_KEY = '"answer":"';
const SOURCES_KEY = '"sources":';

/**
 * Reads a JSON answer's opening and sources from the text the proxy decoded, without parsing the answer's text: the
 * opening's first 300 characters are taken as they are written when nothing among them is escaped, and only the
 * object from the `"sources":` key on is parsed. Whatever the fast reading cannot vouch for (an escape in the
 * opening, the key nested deeper, a text that does not parse) is read by parsing the whole answer, as before.
 */
export function readJsonAnswer(text: string): JsonAnswerReading {
  const openingJson = plainOpening(text);
  const sources = tailSources(text);
  if (openingJson !== undefined && sources !== undefined) return { openingJson, sources };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { openingJson: '""', sources: [] };
  }
  const answer = (parsed as { answer?: unknown } | null)?.answer;
  return { openingJson: JSON.stringify(typeof answer === 'string' ? answer.slice(0, OPENING_LENGTH) : ''), sources: sourceNames(parsed) };
}

/** The opening as a JSON literal, when it is the top object's and its first 300 characters hold no escape. */
function plainOpening(text: string): string | undefined {
  const key = text.indexOf(ANSWER_KEY);
  if (key === -1 || !isTopKey(text, key)) return undefined;
  const start = key + ANSWER_KEY.length;
  let window = text.slice(start, start + OPENING_LENGTH);
  // The first quote ends the string, unless an escape comes before it, which the check below sends to the parser.
  const close = window.indexOf('"');
  if (close !== -1) window = window.slice(0, close);
  else if (start + OPENING_LENGTH >= text.length) return undefined;
  const literal = JSON.stringify(window);
  // Written as it was read only if nothing in it needed an escape (a backslash, a control character, a lone
  // surrogate): then its characters are the answer's own. Otherwise the answer is parsed whole.
  return literal.length === window.length + 2 ? literal : undefined;
}

/** Whether the key at `at` is one of the top object's: the keys before it make an object by themselves. */
function isTopKey(text: string, at: number): boolean {
  if (/^\s*\{\s*$/.test(text.slice(0, at))) return true;
  const before = text.slice(0, at).trimEnd();
  if (!before.endsWith(',')) return false;
  try {
    const value: unknown = JSON.parse(`${before.slice(0, -1)}}`);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * The sources' names, read from the last `"sources":` key on as an object of the keys from there (a key nested
 * deeper leaves braces unmatched, which does not parse); `[]` when there is no such key; `undefined` when unsure.
 */
function tailSources(text: string): string[] | undefined {
  // Searched forwards from near the end first, where the service puts them: V8 searches strings backwards slowly.
  const near = text.indexOf(SOURCES_KEY, Math.max(0, text.length - 4096));
  const key = near !== -1 ? near : text.lastIndexOf(SOURCES_KEY);
  if (key === -1) return [];
  // A key named after an escaped quote is inside a string.
  if (key === 0 || text.charCodeAt(key - 1) === 92) return undefined;
  try {
    return sourceNames(JSON.parse(`{${text.slice(key)}`));
  } catch {
    return undefined;
  }
}
