import { codeSpan } from '../ingest/markdown.js';

// Quoted document text written as markdown that renders as the words quoted:
// nothing in a quote becomes emphasis, a link, a tag or a citation marker.

/** Longest sentence, list item or table row quoted, in characters; a longer one is cut at a word. */
export const QUOTE_LIMIT = 800;

/** `text` cut at the last word before `limit` characters, with "…". */
export function cutAtWord(text: string, limit = QUOTE_LIMIT): string {
  if (text.length <= limit) return text;
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  const space = text.lastIndexOf(' ', end);
  // Text without spaces (Chinese, Japanese, a long address) is cut where the limit falls.
  if (space >= limit * 0.6) end = space;
  return `${text.slice(0, end).replace(/[\s,;:(\-–—]+$/u, '')}…`;
}

/**
 * Quoted text as markdown that shows it as written: inline code (a balanced
 * backtick span, as Markdown extraction keeps it) stays code, everything else
 * is escaped. `[n]` in a quote is shown as code, so it is not taken for a marker.
 */
export function markdownText(text: string): string {
  const escaped = codeSpansOf(text)
    .map((part) => (part.code !== undefined ? codeSpan(part.code) : part.text.split(/(\[\d{1,3}\])/).map((piece, index) => (index % 2 === 1 ? `\`${piece}\`` : escapeInline(piece))).join('')))
    .join('');
  // What would start a heading, quote or list at the start of a paragraph.
  return escaped.replace(/^(#{1,6}(?=\s|$)|>|[-+](?=\s)|\d{1,9}(?=[.)]\s))/, (start) => (/^\d/.test(start) ? `${start}\\` : `\\${start}`));
}

/** `text` cut into plain parts and inline code spans (a run of backticks closed by a run of the same length). */
function codeSpansOf(text: string): ({ text: string; code?: undefined } | { text: string; code: string })[] {
  const parts: ({ text: string; code?: undefined } | { text: string; code: string })[] = [];
  let plainFrom = 0;
  for (let i = 0; i < text.length; ) {
    if (text[i] !== '`') {
      i++;
      continue;
    }
    let runEnd = i;
    while (text[runEnd] === '`') runEnd++;
    const run = runEnd - i;
    let close = -1;
    for (let j = runEnd; j < text.length; ) {
      if (text[j] !== '`') {
        j++;
        continue;
      }
      let end = j;
      while (text[end] === '`') end++;
      if (end - j === run) {
        close = j;
        break;
      }
      j = end;
    }
    if (close < 0) {
      // An unmatched run is plain text (escaped).
      i = runEnd;
      continue;
    }
    const inner = text.slice(runEnd, close);
    if (plainFrom < i) parts.push({ text: text.slice(plainFrom, i) });
    // Markdown drops one space at each end when both are there.
    parts.push({ text: text.slice(i, close + run), code: /^ .*\S.* $/s.test(inner) ? inner.slice(1, -1) : inner });
    i = plainFrom = close + run;
  }
  if (plainFrom < text.length) parts.push({ text: text.slice(plainFrom) });
  return parts;
}

function escapeInline(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if ('\\`*~[]'.includes(char)) out += `\\${char}`;
    else if (char === '<' && /[A-Za-z/!?]/.test(text[i + 1] ?? '')) out += '\\<';
    else if (char === '&' && /^&#?\w+;/.test(text.slice(i, i + 12))) out += '\\&';
    else if (char === '_' && !(isWordChar(text[i - 1]) && isWordChar(text[i + 1]))) out += '\\_';
    else out += char;
  }
  return out;
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}]/u.test(char);
}

/** A fenced code block, its common indentation removed and its fence longer than any backtick run inside. */
export function codeBlock(code: string, language: string): string {
  const lines = code.split('\n');
  const indents = lines.filter((line) => line.trim()).map((line) => line.length - line.trimStart().length);
  const indent = indents.length ? Math.min(...indents) : 0;
  const body = lines.map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length))).join('\n').replace(/^\n+|\s+$/g, '');
  let longestRun = 0;
  for (const run of body.match(/`+/g) ?? []) longestRun = Math.max(longestRun, run.length);
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const info = /^[\w.+#-]+$/.test(language) && language !== 'text' ? language : '';
  return `${fence}${info}\n${body}\n${fence}`;
}
