import type { Retrieved } from './retrieve.js';

// Reads a retrieved fragment as the pieces a quote can take whole: complete
// sentences of prose, list items, table rows and code blocks. The fragment is
// read together with the document's text around it, so a sentence, item or
// code block cut by the fragment's edges is known as cut and left out, and a
// list or table that starts in the fragment is read to its end (so a quote
// can show all of it).

export type PieceKind = 'sentence' | 'item' | 'row' | 'code';

/** A part of a fragment that can be quoted on its own. */
export interface Piece {
  kind: PieceKind;
  /** One line for prose, items and rows; code keeps its lines. */
  text: string;
  /** Code only: its language ('' when unknown). */
  language: string;
  /** Pieces of one paragraph, one list or one table share a group, in reading order. */
  group: string;
  /** The nearest heading above the piece ('' when none is in sight). */
  heading: string;
  /** A sentence ending with ':': the group of the code block, list or table right after it, which it introduces ('' for none). */
  introduces: string;
  /** The last sentence of a paragraph: the group of the code block, list or table right after it, if one is. */
  followedBy?: string;
  /**
   * Rows only: the table's column names and the row's value in each ('' for an empty cell),
   * when the row could be read back into its columns, so a quote can show it as a table again.
   */
  table?: { columns: string[]; cells: string[] };
}

type UnitKind = 'prose' | 'item' | 'row' | 'table-header' | 'heading' | 'code';

/** A paragraph, list item, table row, heading or code block, and where it lies in the text read. */
interface Unit {
  kind: UnitKind;
  block: number;
  start: number;
  end: number;
  /** Its lines (without indentation for prose, items and rows), each with where it starts. */
  lines: { text: string; start: number }[];
  language: string;
  /** Code: whether its opening and closing fences (or its bounds, for unfenced code) were both seen. */
  complete: boolean;
  fenceLength: number;
  fenceChar: string;
}

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

const FENCE = /^(`{3,}|~{3,})(.*)$/;
const ITEM = /^(\s*)(?:[-*+•]|\d{1,3}[.)])\s+(\S.*)$/;
const ROW_PAIR = /^[^:;]{1,60}: \S/;
/** How a sentence ends when nothing cut it: a stop, or a colon before what it introduces. */
const SENTENCE_END = /[.!?:;…。！？][)\]"'”’»]*$/;

/**
 * The pieces of `hit`'s fragment that lie whole inside it, in reading order.
 * Without `textBefore`/`textAfter`, a fragment not at its document's start is
 * taken to start mid-sentence, and a last sentence with no end to be cut.
 */
export function piecesOf(hit: Pick<Retrieved, 'fragment' | 'textBefore' | 'textAfter'>): Piece[] {
  const before = hit.textBefore ?? '';
  const text = hit.fragment.text;
  const full = before + text + (hit.textAfter ?? '');
  const from = before.length;
  const to = from + text.length;
  const startKnown = hit.textBefore !== undefined || hit.fragment.offset === 0;
  const endKnown = hit.textAfter !== undefined;

  const units = readUnits(full, hit.textAfter === '');
  // The last line of the text after the fragment may be cut, unless the document ends there.
  const readTo = hit.textAfter === '' ? full.length : full.lastIndexOf('\n');
  const pieces: Piece[] = [];
  const columns = new Map<number, string[]>();
  /** Lists and tables that start inside the fragment: their items and rows after it are read too. */
  const startedInside = new Set<string>();
  // Lists and tables the fragment starts inside, whose start the text before shows (a table's header line, a list's
  // first item after a break): their items and rows before it are read too, so a quote can show them whole.
  const wholeBefore = new Set<string>();
  if (startKnown) {
    const first = new Map<string, Unit>();
    for (const [index, unit] of units.entries()) if ((unit.kind === 'item' || unit.kind === 'row') && !first.has(groupOf(unit, index))) first.set(groupOf(unit, index), unit);
    for (const [index, unit] of units.entries()) {
      if ((unit.kind !== 'item' && unit.kind !== 'row') || unit.end <= from || unit.start >= to) continue;
      const start = first.get(groupOf(unit, index))!;
      const seen = start.kind === 'row' ? units.some((other) => other.kind === 'table-header' && other.block === start.block) : start.start > 0;
      if (seen && start.start < from) wholeBefore.add(groupOf(unit, index));
    }
  }
  let heading = '';
  let firstInside = true;
  for (const [index, unit] of units.entries()) {
    if (unit.kind === 'heading') {
      heading = unitText(unit);
      if (unit.start >= from) firstInside = false;
      continue;
    }
    if (unit.kind === 'table-header') columns.set(unit.block, unitText(unit).split(' | '));
    const continues = (unit.kind === 'item' || unit.kind === 'row') && unit.start >= to && unit.end <= readTo && startedInside.has(groupOf(unit, index));
    const readWhole = (unit.kind === 'item' || unit.kind === 'row') && unit.start < from && wholeBefore.has(groupOf(unit, index));
    const precedes = readWhole && unit.end <= from;
    if ((unit.end <= from && !precedes) || (unit.start >= to && !continues)) continue;
    // Without the text before it, a fragment's first line may be the tail of a sentence or row.
    const cutAtStart = !startKnown && firstInside;
    firstInside = false;
    if (unit.kind === 'table-header' || (cutAtStart && (unit.kind === 'row' || (unit.kind === 'code' && unit.fenceLength === 0)))) continue;
    let group = groupOf(unit, index);
    if (unit.kind === 'code') {
      const endSeen = endKnown || unit.fenceLength > 0;
      if (unit.complete && endSeen && unit.start >= from && unit.end <= to) {
        pieces.push({ kind: 'code', text: unit.lines.map((line) => line.text).join('\n'), language: unit.language, group, heading, introduces: '' });
      }
      continue;
    }
    const cut = (unit.start < from || unit.end > to) && !continues && !readWhole;
    // A paragraph cut by the fragment's edge, or a list item of several sentences: its whole sentences inside the fragment still count.
    if (cut && unit.kind === 'row') continue;
    if (cut) group = `unit-${index}`;
    if (!cut && (unit.kind === 'item' || unit.kind === 'row')) {
      startedInside.add(group);
      const text = unitText(unit);
      const table = unit.kind === 'row' ? rowCells(text, columns.get(unit.block)) : undefined;
      pieces.push({ kind: unit.kind, text, language: '', group, heading, introduces: '', ...(table ? { table } : {}) });
      continue;
    }
    // A paragraph the fragment starts inside is read from its start when the text before shows it (a break before it):
    // the sentence a quote needs beside the one that matches may lie just before the fragment.
    const whole = startKnown && unit.kind === 'prose' && unit.start > 0 && unit.start < from;
    const sentences = sentencesWithin(unit, whole ? unit.start : from, to).slice(cutAtStart ? 1 : 0);
    const next = units[index + 1];
    for (const [position, sentence] of sentences.entries()) {
      const last = position === sentences.length - 1 && sentence.end === unitText(unit).length;
      if (last && !endKnown && unit.end >= to && !SENTENCE_END.test(sentence.text)) continue;
      const followed = last && next !== undefined && next.kind !== 'prose' && next.kind !== 'heading' && next.block <= unit.block + 1;
      const followedBy = followed ? groupOf(next.kind === 'table-header' ? units[index + 2] ?? next : next, next.kind === 'table-header' ? index + 2 : index + 1) : '';
      const introduces = sentence.text.endsWith(':') ? followedBy : '';
      pieces.push({ kind: 'sentence', text: sentence.text, language: '', group, heading, introduces, ...(followedBy ? { followedBy } : {}) });
    }
  }
  return pieces;
}

/**
 * A row read as "Header: value; Header: value" back into its columns: those of
 * the table's header line when it is in sight, else the row's own names. None
 * when the row does not split into them (a value without its name).
 */
export function rowCells(row: string, known: readonly string[] | undefined): { columns: string[]; cells: string[] } | undefined {
  const columns = known ?? row.split('; ').filter((pair) => ROW_PAIR.test(pair)).map((pair) => pair.slice(0, pair.indexOf(': ')));
  if (columns.length < 2 || columns.some((column) => !column)) return undefined;
  const cells = columns.map(() => '');
  let at = 0;
  let column = -1;
  while (at < row.length) {
    // The next column named here, after the one before: its value runs to where a later column is named.
    const found = columns.findIndex((name, i) => i > column && row.startsWith(`${name}: `, at));
    if (found < 0) return undefined;
    const valueStart = at + columns[found]!.length + 2;
    let valueEnd = row.length;
    for (let i = found + 1; i < columns.length; i++) {
      const next = row.indexOf(`; ${columns[i]}: `, valueStart);
      if (next >= 0 && next < valueEnd) valueEnd = next;
    }
    cells[found] = row.slice(valueStart, valueEnd);
    column = found;
    at = valueEnd + 2;
  }
  return { columns: [...columns], cells };
}

/** Pieces of one list or table share a group; otherwise a unit is its own. */
function groupOf(unit: Unit, index: number): string {
  return unit.kind === 'item' || unit.kind === 'row' ? `${unit.kind}-${unit.block}` : `unit-${index}`;
}

/** The sentences of `text`, one line each, for text read without its surroundings. */
export function sentencesOf(text: string): string[] {
  return piecesOf({ fragment: { text, offset: 0 } as Retrieved['fragment'], textBefore: '', textAfter: '' }).map((piece) => piece.text);
}

/** A unit's text on one line: its lines joined by a space. */
function unitText(unit: Unit): string {
  return unit.lines.map((line) => line.text).join(' ');
}

/** The sentences of a prose unit that start and end inside `from`..`to` of the text read. */
function sentencesWithin(unit: Unit, from: number, to: number): { text: string; end: number }[] {
  const joined = unitText(unit);
  // Where each character of the joined text was in the text read.
  const origin: number[] = [];
  for (const line of unit.lines) {
    if (origin.length) origin.push(origin[origin.length - 1]! + 1);
    for (let i = 0; i < line.text.length; i++) origin.push(line.start + i);
  }
  const sentences: { text: string; end: number }[] = [];
  for (const { start, end } of sentenceSpans(joined)) {
    if (origin[start]! >= from && origin[end - 1]! < to) sentences.push({ text: joined.slice(start, end), end });
  }
  return sentences;
}

/** Abbreviations after which the segmenter ends a sentence that goes on (German, French, English). */
const ABBREVIATION = /(?:^|[\s(])(?:\p{L}|ca|bzw|vgl|usw|Nr|Dr|Mr|Mrs|Ms|vs|cf|ex|al)\.$/u;

/**
 * Where the sentences of `text` start and end. Intl.Segmenter knows no
 * abbreviations ("z. B.", "p. ex.") and splits before a closing « » spaced
 * French-style; such pieces are joined back.
 */
function sentenceSpans(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (const { segment, index } of sentenceSegmenter.segment(text)) {
    const trimmed = segment.trim();
    if (!trimmed) continue;
    const start = index + segment.indexOf(trimmed);
    const end = start + trimmed.length;
    const previous = spans[spans.length - 1];
    const previousText = previous && text.slice(previous.start, previous.end);
    if (previous && (ABBREVIATION.test(previousText!) || /^[\p{Ll}»”’)\]」』]/u.test(trimmed))) {
      const closer = /^[»”’)\]」』]+/u.exec(trimmed)?.[0];
      if (closer && trimmed.length > closer.length && !ABBREVIATION.test(previousText!) && /^\s+\p{Lu}/u.test(trimmed.slice(closer.length))) {
        // "… ? » Les autres …": the closer ends the sentence before; the rest starts the next.
        previous.end = start + closer.length;
        const rest = text.slice(previous.end).search(/\S/);
        spans.push({ start: previous.end + rest, end });
        continue;
      }
      previous.end = end;
      continue;
    }
    spans.push({ start, end });
  }
  return spans;
}

/**
 * The text read as units: fenced or code-like lines, list items, table rows,
 * headings and paragraphs. `endsDocument`: nothing follows the text, so its
 * last line is no heading.
 */
function readUnits(full: string, endsDocument: boolean): Unit[] {
  const lines: { text: string; start: number; end: number }[] = [];
  for (let start = 0; start <= full.length; ) {
    const newline = full.indexOf('\n', start);
    const end = newline < 0 ? full.length : newline;
    lines.push({ text: full.slice(start, end).replace(/\r$/, ''), start, end });
    start = end + 1;
  }
  const units: Unit[] = [];
  let block = 0;
  let code: Unit | undefined = startsInsideCode(lines) ? newUnit('code', 0, 0, { complete: false }) : undefined;
  if (code) units.push(code);
  let previousLine = -1;
  let lastText = lines.length - 1;
  while (lastText >= 0 && !lines[lastText]!.text.trim()) lastText--;
  for (const [index, line] of lines.entries()) {
    const trimmed = line.text.trim();
    if (code) {
      const fence = FENCE.exec(trimmed);
      code.end = line.end;
      if (fence && fence[1]![0] === code.fenceChar && fence[1]!.length >= Math.max(3, code.fenceLength) && !fence[2]!.trim()) {
        code.complete = code.fenceLength > 0;
        code = undefined;
      } else {
        code.lines.push({ text: line.text, start: line.start });
      }
      previousLine = index;
      continue;
    }
    const fence = FENCE.exec(trimmed);
    if (fence && !(fence[1]![0] === '`' && fence[2]!.includes('`'))) {
      code = newUnit('code', block, line.start, { fenceLength: fence[1]!.length, fenceChar: fence[1]![0]!, language: fence[2]!.trim().split(/\s/)[0] ?? '' });
      code.end = line.end;
      units.push(code);
      previousLine = index;
      continue;
    }
    if (!trimmed) {
      block++;
      continue;
    }
    const last = units[units.length - 1];
    const sameBlock = last !== undefined && last.block === block && previousLine === index - 1;
    const indent = line.text.length - line.text.trimStart().length;
    const text = { text: trimmed, start: line.start + indent };
    previousLine = index;

    const item = ITEM.exec(line.text);
    if (item) {
      const unit = newUnit('item', block, line.start, {});
      unit.lines.push({ text: item[2]!, start: line.start + line.text.indexOf(item[2]!) });
      unit.end = line.end;
      units.push(unit);
      continue;
    }
    if (sameBlock && last.kind === 'item' && indent >= 2) {
      last.lines.push(text);
      last.end = line.end;
      continue;
    }
    if (isTableHeader(trimmed, lines[index + 1]?.text.trim())) {
      units.push({ ...newUnit('table-header', block, line.start, {}), end: line.end, lines: [text] });
      continue;
    }
    if ((sameBlock && (last.kind === 'row' || last.kind === 'table-header') && ROW_PAIR.test(trimmed)) || isRow(trimmed)) {
      units.push({ ...newUnit('row', block, line.start, {}), end: line.end, lines: [text] });
      continue;
    }
    if (looksLikeCode(trimmed)) {
      if (sameBlock && last.kind === 'code' && last.fenceLength === 0) {
        last.lines.push({ text: line.text, start: line.start });
        last.end = line.end;
      } else {
        units.push({ ...newUnit('code', block, line.start, { complete: true }), end: line.end, lines: [{ text: line.text, start: line.start }] });
      }
      continue;
    }
    if (sameBlock && last.kind === 'prose') {
      last.lines.push(text);
      last.end = line.end;
      continue;
    }
    const followed = !endsDocument || index < lastText;
    const alone = !sameBlock && !lines[index + 1]?.text.trim() && followed;
    units.push({ ...newUnit(alone && isHeadingLike(trimmed) ? 'heading' : 'prose', block, line.start, {}), end: line.end, lines: [text] });
  }
  return units;
}

function newUnit(kind: UnitKind, block: number, start: number, extra: Partial<Unit>): Unit {
  return { kind, block, start, end: start, lines: [], language: '', complete: true, fenceLength: 0, fenceChar: '`', ...extra };
}

/**
 * Whether the text begins inside a code block whose opening fence lies before it:
 * its first fence is bare (an opening fence names a language in extracted Markdown)
 * and the next one, if any, opens a block.
 */
function startsInsideCode(lines: readonly { text: string }[]): boolean {
  const fences = [];
  for (const line of lines) {
    const fence = FENCE.exec(line.text.trim());
    if (fence) fences.push(fence);
    if (fences.length === 2) break;
  }
  if (fences.length === 0 || fences[0]![2]!.trim()) return false;
  return fences.length === 1 || fences[1]![2]!.trim() !== '';
}

/** `Plan | Price` followed by a row `Plan: ...`: the header line of a table read as rows. */
function isTableHeader(line: string, next: string | undefined): boolean {
  const cells = line.split(' | ');
  return cells.length >= 2 && cells.every((cell) => cell.length > 0 && cell.length <= 60) && next !== undefined && next.startsWith(`${cells[0]}: `);
}

/** `Header: value; Header: value`: a table row read on its own. */
function isRow(line: string): boolean {
  const pairs = line.split('; ');
  return pairs.length >= 2 && pairs.every((pair) => ROW_PAIR.test(pair));
}

/** A short line standing alone with no sentence end, with text after it: a heading. */
function isHeadingLike(line: string): boolean {
  return line.length <= 90 && line.split(/\s+/).length <= 12 && !/[.!?:;,…。！？]$/.test(line);
}

/**
 * Commands, assignments, configuration and program text, which read badly as
 * prose: a line that does not end as a sentence does and starts like a command
 * or a statement, assigns a value, or is mostly symbols.
 */
export function looksLikeCode(text: string): boolean {
  if (/^(\$ |\/\/|\/\*|#!|<\/?[a-z][\w-]*[\s>])/.test(text)) return true;
  // Inline code (`name`) is part of a sentence: it counts as a word, not as symbols.
  const line = text.replace(/(`+)(?!`)(.+?)(?<!`)\1(?!`)/g, 'code');
  if (!line.trim() || line === 'code') return false;
  if (/^[{}()[\];,]+$/.test(line) || /^\[[\w.-]+\]$/.test(line)) return true;
  const symbols = line.match(/[{}()[\];=<>`$\\|]/g)?.length ?? 0;
  // A sentence of a few words that ends as one is prose, whatever words it starts with.
  if (/[.!?:。！？]["')\]]*$/.test(line) && line.split(/\s+/).length >= 4 && symbols / line.length <= 0.15) return false;
  if (symbols / line.length > 0.08) return true;
  return (
    /^(npx|npm|pnpm|yarn|node|deno|bun|git|curl|docker|cd|export|import|const|let|var|function|return|await|def|from)\s/.test(line) ||
    /^[\w.[\]"'-]+\s*[:+]?=\s*\S/.test(line) ||
    /^[A-Z_][A-Z0-9_]*=\S/.test(line) ||
    /[;{}]$/.test(line)
  );
}
