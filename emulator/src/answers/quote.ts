// Quoted document text written as markdown that renders as the words quoted:
// nothing in a quote becomes emphasis, a link, a tag or a citation marker.

/** Longest sentence, list item or table row quoted, in characters; a longer one is cut at a word. */
export const QUOTE_LIMIT = 400;

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

/** Plain text as markdown that shows it as written. `[n]` in a quote is shown as code, so it is not taken for a marker. */
export function markdownText(text: string): string {
  const parts = text.split(/(\[\d{1,3}\])/);
  const escaped = parts.map((part, index) => (index % 2 === 1 ? `\`${part}\`` : escapeInline(part))).join('');
  // What would start a heading, quote or list at the start of a paragraph.
  return escaped.replace(/^(#{1,6}(?=\s|$)|>|[-+](?=\s)|\d{1,9}(?=[.)]\s))/, (start) => (/^\d/.test(start) ? `${start}\\` : `\\${start}`));
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
