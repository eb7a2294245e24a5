import type { Token, Tokens } from 'marked';

// While an answer streams, its last block is often cut inside a construct:
// `**bold`, `` `code ``, `[text](http`, half a table row, a bare `- `. Shown
// as they are, their markers flash and then vanish when the closing ones
// arrive. These functions change only the text of the open blocks, for
// display: unfinished constructs are closed, and what cannot be known yet
// (a link's address, a line that may become a table, a list or a rule) is
// held back. The work is proportional to the open block, never to the answer.

/**
 * The open blocks' text as they should be shown while more is to come.
 * `tokens` are those blocks lexed as they are; the text returned is lexed
 * again for display (or is `text` itself when nothing needs healing).
 */
export function healOpenBlocks(text: string, tokens: Token[]): string {
  const leaf = lastLeaf(tokens);
  if (!leaf) return text;
  const lineStart = text.lastIndexOf('\n') + 1;
  const line = text.slice(lineStart);
  const unquoted = line.replace(QUOTE_MARKERS, '');
  if (leaf.type === 'code') {
    // Only the closing fence being typed is held back; the code itself shows as it comes.
    const fence = (leaf as Tokens.Code).codeBlockStyle !== 'indented' && /^[ \t]*(`+|~+)[ \t]*$/.exec(unquoted);
    return fence && (leaf as Tokens.Code).raw.trimStart().startsWith(fence[1]![0]!) ? text.slice(0, lineStart) : text;
  }
  // A table's rows show once complete, so earlier rows never reflow for a half row.
  if (leaf.type === 'table') {
    if (!line) return text;
    // Until the delimiter row is complete, the header is not shown either.
    const rows = leaf.raw.replace(/\n+$/, '').split('\n').length;
    return text.slice(0, rows > 2 ? lineStart : text.lastIndexOf('\n', lineStart - 2) + 1);
  }
  if (leaf.type !== 'paragraph' && leaf.type !== 'text' && leaf.type !== 'heading') return text;

  // A line of markers only may still become a list item, a rule, a setext underline, a fence or a heading.
  if (unquoted.trim() && (MARKERS_ONLY.test(unquoted) || TASK_ONLY.test(unquoted))) return healInline(text.slice(0, lineStart));
  // A line starting with `[` that has no `]` yet, or `]:`, may be a reference definition: shown once it is one or is not.
  if (DEFINITION_START.test(unquoted)) return healInline(text.slice(0, lineStart));
  if (leaf.type !== 'heading') {
    // A line with a `|` may be a table's header row, until the next line shows whether a delimiter row follows.
    const previousStart = text.lastIndexOf('\n', lineStart - 2) + 1;
    const previous = lineStart > 0 ? text.slice(previousStart, lineStart - 1).replace(QUOTE_MARKERS, '') : '';
    if ((!unquoted.trim() || DELIMITER_ROW_START.test(unquoted)) && previous.includes('|')) return healInline(text.slice(0, previousStart));
    if (unquoted.includes('|')) return healInline(text.slice(0, lineStart));
  }
  return healInline(text);
}

const QUOTE_MARKERS = /^(?:[ \t]*>)+/;
const MARKERS_ONLY = /^[ \t]*(?:[-+*=_#`~]|\d{1,9}[.)]?)[-+*=_#`~ \t]*$/;
/** A task list item's box without its text yet: until the text comes, it may be plain `[ ]`. */
const TASK_ONLY = /^[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]+\[[ xX]?\]?[ \t]*$/;
const DEFINITION_START = /^[ \t]{0,3}\[(?:[^\]\\]|\\.)*(?:\]:.*)?$/;
const DELIMITER_ROW_START = /^[ \t]*\|?[ \t:|-]*$/;
/** What starts a line's content: indentation, a list marker, a heading's `#`s. */
const LINE_START = /^[ \t]*(?:(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)[ \t]*|#{1,6}(?=[ \t]|$)[ \t]*)?/;
const BLANK = /^[ \t]*$/;

/** The innermost last block: into quotes and list items. */
function lastLeaf(tokens: Token[]): Token | undefined {
  let list: Token[] | undefined = tokens;
  let leaf: Token | undefined;
  while (list) {
    leaf = list.findLast((token) => token.type !== 'space');
    if (leaf?.type === 'blockquote') list = (leaf as Tokens.Blockquote).tokens;
    else if (leaf?.type === 'list') list = (leaf as Tokens.List).items.at(-1)?.tokens;
    else break;
  }
  return leaf;
}

interface Opener {
  kind: '*' | '_' | '~' | '[' | '![';
  /** Where its marker starts in the text, and how many marker characters are still open. */
  at: number;
  length: number;
}

const isSpace = (c: string | undefined) => c === undefined || /\s/u.test(c);
const isPunctuation = (c: string | undefined) => c !== undefined && /[\p{P}\p{S}]/u.test(c);

/**
 * Closes the inline constructs left open at the end of the last paragraph
 * (or heading, or list item's text) of `text`: emphasis, strong and
 * strikethrough get their closing markers, an open code span its backticks;
 * a link whose address is unfinished shows as its text; a `[` not yet
 * closed, a trailing backslash, entity or autolink start are held back.
 */
function healInline(text: string): string {
  const start = paragraphStart(text);
  const removals: [number, number][] = [];
  const stack: Opener[] = [];
  let code: { at: number; length: number } | undefined;
  const end = text.length;
  let i = start;
  // The content of each line starts after its quote markers, indentation and list or heading marker.
  const skipLineStart = (from: number) => {
    const rest = text.slice(from, text.indexOf('\n', from) < 0 ? end : text.indexOf('\n', from));
    const quote = QUOTE_MARKERS.exec(rest)?.[0].length ?? 0;
    return from + quote + (LINE_START.exec(rest.slice(quote))?.[0].length ?? 0);
  };
  i = skipLineStart(i);
  scan: while (i < end) {
    const c = text[i]!;
    if (c === '\n') {
      i = skipLineStart(i + 1);
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= end) removals.push([i, end]);
      i += 2;
      continue;
    }
    if (c === '`') {
      const length = runLength(text, i, '`');
      const close = findRun(text, i + length, '`', length);
      if (close < 0) {
        code = { at: i, length };
        break;
      }
      i = close + length;
      continue;
    }
    if (c === '<') {
      const rest = text.slice(i);
      const autolink = /^<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>/.exec(rest);
      if (autolink) {
        i += autolink[0].length;
        continue;
      }
      if (/^<[A-Za-z][A-Za-z0-9+.-]{1,31}(?::[^\s<>]*)?$/.test(rest) || /^<[\w.+-]+@[\w.-]*$/.test(rest)) {
        removals.push([i, end]);
        break;
      }
      i++;
      continue;
    }
    if (c === '&') {
      if (/^&#?[A-Za-z0-9]{0,31}$/.test(text.slice(i))) {
        removals.push([i, end]);
        break;
      }
      i++;
      continue;
    }
    // A `!` at the very end may start an image.
    if (c === '!' && i + 1 === end) {
      removals.push([i, end]);
      break;
    }
    if (c === '[' || (c === '!' && text[i + 1] === '[')) {
      stack.push({ kind: c === '!' ? '![' : '[', at: i, length: 0 });
      i += c === '!' ? 2 : 1;
      continue;
    }
    if (c === ']') {
      const index = stack.findLastIndex((opener) => opener.kind === '[' || opener.kind === '![');
      if (index < 0) {
        i++;
        continue;
      }
      const bracket = stack[index]!;
      const next = text[i + 1];
      if (next === undefined || next === '(' || next === '[') {
        const close = next === undefined ? -1 : next === '(' ? destinationEnd(text, i + 2) : text.indexOf(']', i + 2);
        if (close < 0) {
          // The text is done, the address (or label) is not: shown as text, never as a link to half an address.
          stack.splice(index, 1);
          if (bracket.kind === '![') removals.push([bracket.at, end]);
          else removals.push([bracket.at, bracket.at + 1], [i, end]);
          break scan;
        }
        // A complete link: what is still open inside its text stays as it is.
        stack.splice(index);
        i = close + 1;
        continue;
      }
      stack.splice(index, 1);
      i++;
      continue;
    }
    if (c === '*' || c === '_' || c === '~') {
      let length = runLength(text, i, c);
      const before = i > start ? text[i - 1] : undefined;
      const after = text[i + length];
      if (after === undefined) {
        // A run at the very end: it closes what it can, or waits to see what it opens.
        if (!isSpace(before) && stack.some((opener) => opener.kind === c)) closeRun(stack, c, length);
        else removals.push([i, end]);
        break;
      }
      const leftFlanking = !isSpace(after) && (!isPunctuation(after) || isSpace(before) || isPunctuation(before));
      const rightFlanking = !isSpace(before) && (!isPunctuation(before) || isSpace(after) || isPunctuation(after));
      const canOpen = c === '_' ? leftFlanking && (!rightFlanking || isPunctuation(before)) : leftFlanking;
      const canClose = c === '_' ? rightFlanking && (!leftFlanking || isPunctuation(after)) : rightFlanking;
      if (canClose) length = closeRun(stack, c, length);
      if (length > 0 && canOpen) stack.push({ kind: c, at: i, length });
      i += runLength(text, i, c);
      continue;
    }
    i++;
  }

  let closers = '';
  if (code) {
    if (BLANK.test(text.slice(code.at + code.length))) removals.push([code.at, end]);
    else closers += '`'.repeat(code.length);
  }
  const cut = removals.length ? Math.min(...removals.map(([from]) => from)) : end;
  for (const opener of stack.reverse()) {
    if (opener.kind === '[') removals.push([opener.at, opener.at + 1]);
    else if (opener.kind === '![') removals.push([opener.at, end]);
    // An opener with nothing after it yet is held back rather than closed on nothing.
    else if (opener.at + opener.length >= cut || !text.slice(opener.at + opener.length, cut).trim()) removals.push([opener.at, opener.at + opener.length]);
    else if (!code || opener.at < code.at) closers += opener.kind.repeat(opener.length);
  }
  if (!removals.length && !closers) return text;
  let healed = text;
  for (const [from, to] of removals.sort((a, b) => b[0] - a[0])) healed = healed.slice(0, from) + healed.slice(Math.min(to, healed.length));
  // A closing marker after a space would not close: trailing spaces go (a paragraph drops them anyway).
  return closers ? healed.replace(/\s+$/, '') + closers : healed;
}

/** Where the last paragraph of `text` starts: after the last blank line, or at the last list item or heading line. */
function paragraphStart(text: string): number {
  let lineEnd = text.length;
  for (;;) {
    const lineStart = text.lastIndexOf('\n', lineEnd - 1) + 1;
    const line = text.slice(lineStart, lineEnd).replace(QUOTE_MARKERS, '');
    if (BLANK.test(line) && lineEnd < text.length) return lineEnd + 1;
    if (/^[ \t]*(?:[-+*]|\d{1,9}[.)]|#{1,6})(?:[ \t]|$)/.test(line) || lineStart === 0) return lineStart;
    lineEnd = lineStart - 1;
  }
}

function runLength(text: string, at: number, c: string): number {
  let length = 0;
  while (text[at + length] === c) length++;
  return length;
}

/** The start of the next run of exactly `length` characters `c` from `from`, or -1. */
function findRun(text: string, from: number, c: string, length: number): number {
  for (let i = text.indexOf(c, from); i >= 0; i = text.indexOf(c, i)) {
    const run = runLength(text, i, c);
    if (run === length) return i;
    i += run;
  }
  return -1;
}

/** Closes openers of `c` on the stack with a run of `length`; returns what is left of the run. */
function closeRun(stack: Opener[], c: string, length: number): number {
  while (length > 0) {
    const index = stack.findLastIndex((opener) => opener.kind === c);
    if (index < 0) break;
    const opener = stack[index]!;
    const used = Math.min(length, opener.length);
    opener.length -= used;
    length -= used;
    // Openers between the two can no longer close anything.
    stack.splice(opener.length ? index + 1 : index);
  }
  return length;
}

/** The `)` that ends a link destination and title starting at `from`, or -1 while it has not come. */
function destinationEnd(text: string, from: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') i++;
    else if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/**
 * Shows a bare web address still being typed at the end of the text (`www.ex`,
 * `https://ex`) as text: it becomes a link once a space or the end of the
 * answer shows that it is complete. Returns whether it changed `tokens`.
 */
export function unlinkUnfinishedAddress(tokens: Token[], text: string): boolean {
  if (/\s$/.test(text)) return false;
  let holder: { tokens?: Token[] } | undefined = lastLeaf(tokens) as { tokens?: Token[] } | undefined;
  while (holder?.tokens?.length) {
    const inline = holder.tokens;
    // Punctuation right after an address is left out of it, and may yet turn out to be inside it (`example.` + `com`).
    const index = inline.length - (inline.length > 1 && inline.at(-1)!.type === 'text' && TRAILING_PUNCTUATION.test(inline.at(-1)!.raw) ? 2 : 1);
    const last = inline[index]!;
    if (last.type === 'link' && !last.raw.startsWith('[') && !last.raw.startsWith('<')) {
      inline[index] = { type: 'text', raw: last.raw, text: (last as Tokens.Link).text, escaped: false } as Tokens.Text;
      return true;
    }
    holder = inline.at(-1) as { tokens?: Token[] };
  }
  return false;
}

const TRAILING_PUNCTUATION = /^[?!.,:;*_~'")]+$/;
