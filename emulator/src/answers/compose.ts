import { LIGHT_WEIGHT, questionConcepts, questionRead, searchTerms } from '../search/terms.js';
import { piecesOf, type Piece } from './passages.js';
import { QUOTE_LIMIT, codeBlock, cutAtWord, markdownText } from './quote.js';
import type { Retrieved } from './retrieve.js';

// Without a language model, the emulator answers extractively, in markdown: a
// short lead line, then for each of the first sources one point, a passage of
// a few neighbouring, complete sentences (or the matching items of a list, or
// the matching rows of a table under its header row) that best match the
// question, each followed by the marker of its source ([1] is the first
// source). A point opens with the title of its section when the document has
// sections. A code block goes with it when it is what the question asks for
// (a how-to whose section holds it) or when the passage introduces it; a list
// or table goes with the paragraph right before it.

/** Sources quoted, at most. */
const SOURCES_QUOTED = 3;
/** Sentences in one point, at most. */
const PIECES_PER_POINT = 3;
/** Items of a list or rows of a table in one point, at most. */
const ROWS_PER_POINT = 8;
/** Prose in one point, in characters, at most. */
const POINT_LIMIT = 900;
/** A list or table in one point, in characters, at most. */
const TABLE_LIMIT = 2000;
/** Code blocks in one point, and how long one may be. */
const CODE_BLOCKS_PER_POINT = 3;
const CODE_LINE_LIMIT = 16;
const CODE_CHAR_LIMIT = 800;
/** How much a heading that matches the question counts for the passages under it. */
const HEADING_WEIGHT = 0.5;

/** Questions whose answer is often a command or a configuration. */
const ASKS_HOW = /\b(hows?|command|commands|run|install|deploy|configure|config|configuration|setup|set up|start|launch|use|example|write|create|add|enable|call|build|script)\b/i;
/** Questions whose answer is a figure: a size, a speed, a count, a duration. */
const ASKS_FIGURE = /\b(how (big|large|small|heavy|fast|slow|quick|long|much|many|often)|what size|biggest|largest|smallest|fastest|slowest|latency|throughput)\b/i;
/** Questions whose answer is a list: "which …s", "what …s" (up to two words between), "what are", "list". */
const ASKS_LIST = /\b(?:which|what)\s+(?:(?!(?:do|does|did|is|are|was|were|can|could|will|would|should|has|have)\b)[\w-]+\s+){0,2}?(?!(?:does|is|was|has|happens|means|goes)\b)[\w-]{2,}(?<![su]s)s\b|\bwhat are\b|^\s*list\b/i;
/** Questions that ask what a thing is or does, naming only the thing ("What does the proxy do?", "What is an agent?", "whats an agent"). */
const ASKS_OVERVIEW = /^\s*what(?:\s+(?:is|are)\s+|['’]?s\s+)(?:an?\s+|the\s+)?[^\s?]+(?:\s+[^\s?]+)?\s*\?*\s*$|^\s*what\s+does\s+(?:an?\s+|the\s+)?[^\s?]+(?:\s+[^\s?]+)?\s+do\s*\?*\s*$/i;
/**
 * A sentence that qualifies what is said beside it (a caveat: "Neither mode stops …", "Where
 * X is missing, …", "Unless …") rather than saying it: it leads a quote only when nothing
 * plainer matches as well.
 */
const CAVEAT = /^(?:Neither|Nor|Unless|Except|However|But|Note|Only|Not|None|No|Without|Otherwise|(?:Where|When|If)\b[^,]{0,80}\b(?:missing|absent|lacks?|unavailable|unsupported|not|no|fails?|older)\b)/;
/** How much a piece without a figure counts for a figure question, against one with a figure. */
const ASIDE_WEIGHT = 0.5;
/** How much more a piece holding code counts for a how-to, and one holding a figure for a figure question. */
const FITS_INTENT_WEIGHT = 1.5;
/** Items of a list or rows of a table a "which" question gets, at most (all of a shorter list, in its order). */
const LIST_ROWS = 12;
/** Words with which a sentence leans on the one before it. */
const LEANS_BACK = /^(It|Its|This|That|These|Those|They|Their|Them|Then|So|But|Also|Here|There)\b/;

export const NO_ANSWER = "I don't know: nothing in this agent's datastores matches the question.";
/** How an answer opens when no passage scored as a source, but one came close. */
export const CLOSEST = 'The closest I found';

export { sentencesOf } from './passages.js';

/** A piece of a source with how well it matches the question. */
interface Scored extends Piece {
  index: number;
  score: number;
  headingScore: number;
}

/** What kind of answer a question asks for, from its wording. */
interface Intent {
  /** Steps, commands or configuration. */
  how: boolean;
  /** A figure: how big, how fast, how many. */
  figure: boolean;
  /** A list or a table, whole. */
  list: boolean;
  /** What a thing is or does: the section about it. */
  overview: boolean;
}

export function intentOf(question: string): Intent {
  return { how: ASKS_HOW.test(question), figure: ASKS_FIGURE.test(question), list: ASKS_LIST.test(question), overview: ASKS_OVERVIEW.test(question) };
}

/** A number with a unit of size, time or share ("15 KB", "120 ms", "3%"): what a "how big / how fast" question asks for. */
const MEASURE = /\d[\d,.]*\s?(?:[kKMGT]i?B|B|bytes?|ms|µs|s|seconds?|minutes?|hours?|%|×)(?![\p{L}\d])/u;

/** Whether a text gives a measure: a step number or a version ("step 2", "Node 20") is none. */
export function holdsMeasure(text: string): boolean {
  return MEASURE.test(text);
}

/**
 * The answer text for `question` from the sources' fragments, with `[n]` markers. `closest`:
 * no source scored above the threshold, and the one given is the closest passage found, which
 * the answer says.
 */
export function composeAnswer(asked: string, sources: readonly Retrieved[], { closest = false }: { closest?: boolean } = {}): string {
  // As much of the question as the search read: the cost of an answer is bounded whatever the question's length.
  const question = questionRead(asked);
  const quoted = sources.slice(0, SOURCES_QUOTED).map((hit) => piecesOf(hit));
  const weigh = termWeights(question, quoted);
  const intent = intentOf(question);
  const points: { pieces: Scored[]; number: number; hit: Retrieved }[] = [];
  for (const [index, pieces] of quoted.entries()) {
    // A row is weighed by its values: the column names, in every row, tell the rows apart no better than the header does.
    // For a list question they count too: a table whose header names what is asked for ("Flag") is the list asked for.
    const rowWeight = (table: NonNullable<Piece['table']>) => weigh(table.cells.join('\n')) + (intent.list ? weigh(table.columns.join('\n')) : 0);
    const scored = pieces.map((piece, position) => ({ ...piece, index: position, score: piece.table ? rowWeight(piece.table) : weigh(weighedText(piece)), headingScore: weigh(piece.heading) }));
    const chosen = choosePieces(intent, scored, index === 0 && points.length === 0);
    if (chosen.length === 0) continue;
    points.push({ pieces: chosen, number: index + 1, hit: sources[index]! });
  }
  if (points.length === 0) return NO_ANSWER;
  if (points.length === 1) {
    const [{ pieces, number, hit }] = points as [(typeof points)[0]];
    const title = sectionTitle(pieces, hit);
    const source = markdownText(hit.datasource.name);
    const where = title ? `**${markdownText(title)}** in ${source}` : source;
    return renderPoint(pieces, number, source, closest ? `${CLOSEST}, in ${where}` : title ? `From ${where}` : `According to ${source}`);
  }
  return [
    'Here is what the documents say:',
    ...points.map(({ pieces, number, hit }) => {
      const title = sectionTitle(pieces, hit);
      const source = markdownText(hit.datasource.name);
      return renderPoint(pieces, number, source, title ? `**${markdownText(title)}** (${source})` : undefined);
    }),
  ].join('\n\n');
}

/**
 * The title of the section a point is quoted from, when naming it helps: the
 * document has sections (Markdown headings) and the point is not in the
 * outermost one (the document's own title, which its name already says).
 */
function sectionTitle(pieces: readonly Piece[], hit: Retrieved): string {
  const section = hit.fragment.section ?? [];
  if (section.length === 0) return '';
  const title = pieces[0]!.heading || section[section.length - 1]!;
  return title === section[0] ? '' : title;
}

/** The words a piece is weighed by: a row's values (its column names are the table's, not the row's), else its text. */
function weighedText(piece: Piece): string {
  return piece.table ? piece.table.cells.join('\n') : piece.text;
}

/**
 * Weighs a text by the question's terms it holds, each by how rare it is
 * among the pieces quoted (a word in every piece tells little).
 */
function termWeights(question: string, quoted: readonly Piece[][]): (text: string) => number {
  const questionTerms = new Set(searchTerms(question));
  // Everyday words of questions ("use", "start", "show") weigh a third here too, as the search weighs them.
  const light = new Set(questionConcepts(question).filter((concept) => concept.isLight).flatMap((concept) => concept.terms));
  const pieceCount = quoted.reduce((sum, pieces) => sum + pieces.length, 0);
  const documentFrequency = new Map<string, number>();
  for (const pieces of quoted) {
    for (const piece of pieces) {
      for (const term of searchTerms(weighedText(piece))) if (questionTerms.has(term)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  const cache = new Map<string, number>();
  return (text) => {
    let weight = cache.get(text);
    if (weight !== undefined) return weight;
    weight = 0;
    for (const term of searchTerms(text)) {
      if (questionTerms.has(term)) weight += Math.log(1 + (pieceCount + 1) / ((documentFrequency.get(term) ?? 0) + 1)) * (light.has(term) ? LIGHT_WEIGHT : 1);
    }
    cache.set(text, weight);
    return weight;
  };
}

/** The pieces one source contributes, in reading order; none when nothing in it matches (unless it must answer). */
function choosePieces(intent: Intent, pieces: readonly Scored[], mustAnswer: boolean): Scored[] {
  // A sentence that announces a list or code ("as follows:") is no answer when what it announces is not there.
  const announcesNothing = new Set(pieces.filter((piece) => piece.introduces && introducedBy(piece, pieces, intent).length === 0));
  const asksHow = intent.how;
  const prose = pieces.filter((piece) => piece.kind !== 'code' && !announcesNothing.has(piece));
  const code = pieces.filter((piece) => piece.kind === 'code' && fitsAsCode(piece));
  let window = bestWindow(prose, pieces, intent);
  if (!window) {
    // Only code matches: quote the best block, with the sentence that introduces it.
    const block = [...code].sort((a, b) => b.score - a.score || a.index - b.index)[0];
    if (block && block.score > 0) return withLeadIns([block], pieces);
    if (!mustAnswer) return [];
    if (prose.length) return extend([prose[0]!], prose);
    // A section that is one long code block: its first lines, rather than no answer beside its source.
    const longest = pieces.find((piece) => piece.kind === 'code' && piece.text.trim() !== '');
    return code.length ? code.slice(0, 1) : longest ? withLeadIns([{ ...longest, text: codeStart(longest.text) }], pieces) : [];
  }
  window = extend(window, prose);
  const chosen = [...window];
  const last = window[window.length - 1]!;
  let introduced = introducedBy(last, pieces, intent);
  // A passage from a paragraph that closes by announcing a list or table ("The eight types:") is about it too.
  const closing = last.kind === 'sentence' && introduced.length === 0 ? pieces.filter((piece) => piece.group === last.group).at(-1) : undefined;
  if (closing && closing !== last && closing.introduces) {
    introduced = introducedBy(closing, pieces, intent);
    // The rest of the paragraph comes with it, so the quote stays the source's own words.
    if (introduced.length) chosen.push(...pieces.filter((piece) => piece.group === last.group && piece.index > last.index));
  }
  chosen.push(...introduced);
  if (asksHow && !introduced.some((piece) => piece.kind !== 'code')) {
    // A how-to: the commands and configuration around the passage, in its section.
    const section = window[0]!.heading;
    const near = (block: Scored) => block.index >= window![0]!.index - 3 && block.index <= window![window!.length - 1]!.index + 3;
    const related = code.filter((block) => near(block) && block.heading === section && (block.score > 0 || block.headingScore > 0) && !introduced.includes(block));
    chosen.push(...withLeadIns(related.slice(0, CODE_BLOCKS_PER_POINT - introduced.length), pieces));
  }
  return [...new Map(chosen.map((piece) => [piece.index, piece])).values()].sort((a, b) => a.index - b.index);
}

/**
 * What a quote shows after its last sentence: the code block that sentence
 * introduces (ending with ':'), or the list or table right after its paragraph
 * (which a paragraph before a table or list is most often about). Of a list or
 * table, the items or rows that match the question, or its first ones when
 * none does (the question asked for what the whole list answers); for a
 * "which" question, the list whole as far as it fits.
 */
function introducedBy(piece: Scored, pieces: readonly Scored[], intent: Intent): Scored[] {
  const next = pieces[piece.index + 1];
  const shown = piece.introduces || (piece.followedBy ?? '');
  if (!shown || next?.group !== shown) return [];
  if (next.kind === 'code') return piece.introduces && fitsAsCode(next) ? [next] : [];
  const all = pieces.filter((other) => other.group === next.group);
  const matching = all.filter((other) => other.score > 0);
  return intent.list ? wholeList(all) : firstRows(matching.length ? matching : all);
}

/** The best of a list's items or a table's rows that fit in a point, in reading order. */
function firstRows(rows: readonly Scored[]): Scored[] {
  const chosen: Scored[] = [];
  const byScore = [...rows].sort((a, b) => b.score - a.score || a.index - b.index);
  for (const row of byScore) {
    if (chosen.length >= ROWS_PER_POINT || length([...chosen, row]) > TABLE_LIMIT) break;
    chosen.push(row);
  }
  return chosen.sort((a, b) => a.index - b.index);
}

/** A list's items or a table's rows from its start, as many as fit in a point (`LIST_ROWS`, `TABLE_LIMIT`). */
function wholeList(rows: readonly Scored[]): Scored[] {
  const chosen: Scored[] = [];
  for (const row of rows) {
    if (chosen.length >= LIST_ROWS || length([...chosen, row]) > TABLE_LIMIT) break;
    chosen.push(row);
  }
  return chosen;
}

/**
 * How well a piece answers, as the lead of a quote: its words and a little its heading's,
 * and more for what the kind of question asks for: a piece holding code for a how-to, a figure
 * for a figure question (less for one without), an item or a row for a list question.
 */
function leadValue(piece: Scored, pieces: readonly Scored[], intent: Intent): number {
  let value = piece.score + HEADING_WEIGHT * piece.headingScore;
  if (intent.figure) value *= /\d/.test(piece.text) ? FITS_INTENT_WEIGHT : ASIDE_WEIGHT;
  else if (intent.how && (holdsCode(piece) || pieces[piece.index + 1]?.kind === 'code')) value *= FITS_INTENT_WEIGHT;
  if (intent.list && (piece.kind === 'row' || piece.kind === 'item')) value *= FITS_INTENT_WEIGHT;
  return value;
}

function isCaveat(piece: Piece): boolean {
  return piece.kind === 'sentence' && CAVEAT.test(piece.text);
}

/** Whether a piece of prose names code: a command, a setting, a property (`inline code`). */
function holdsCode(piece: Piece): boolean {
  return piece.kind !== 'code' && /`[^`]+`/.test(piece.text);
}

/**
 * The passage that best matches the question: the best piece (its own words,
 * and a little its heading's), with the neighbours of its paragraph that match
 * too, or the items and rows of its list or table that match as well as it does.
 */
function bestWindow(prose: readonly Scored[], pieces: readonly Scored[], intent: Intent): Scored[] | undefined {
  let anchor: Scored | undefined;
  // A caveat leads only when nothing plainer matches.
  for (const caveats of [false, true]) {
    let anchorValue = 0;
    for (const piece of prose) {
      if ((piece.score <= 0 && piece.headingScore <= 0) || isCaveat(piece) !== caveats) continue;
      const value = leadValue(piece, pieces, intent);
      if (value > anchorValue + 1e-9) [anchor, anchorValue] = [piece, value];
    }
    if (anchor) break;
  }
  if (!anchor) return undefined;
  // Sentences around the best one that match at all (for a how-to, also one holding code: what to do), but not a
  // caveat, which qualifies the answer rather than giving it; items and rows of its list or table that match
  // two thirds as well (a row that shares one word with the question, as every row of a table may, is not what was asked).
  const relevant = (piece: Scored) =>
    anchor.kind === 'sentence' ? (piece.score > 0 || (intent.how && holdsCode(piece))) && (!isCaveat(piece) || isCaveat(anchor)) : piece.score >= (anchor.score * 2) / 3;
  if (anchor.kind !== 'sentence') {
    const group = prose.filter((piece) => piece.group === anchor.group);
    const rows = intent.list ? wholeList(group) : firstRows(group.filter((piece) => piece === anchor || relevant(piece)));
    // The sentence that announces the list or table ("… as follows:") goes with it.
    const leadIn = prose.find((piece) => piece.introduces === anchor.group);
    return leadIn ? [leadIn, ...rows] : rows;
  }
  let window = [anchor];
  for (const forward of [true, false]) {
    for (;;) {
      if (window.length >= PIECES_PER_POINT) break;
      const edge = forward ? window[window.length - 1]! : window[0]!;
      const next = prose[prose.indexOf(edge) + (forward ? 1 : -1)];
      if (!next || !neighbours(edge, next) || !relevant(next)) break;
      const grown = forward ? [...window, next] : [next, ...window];
      if (length(grown) > POINT_LIMIT) break;
      window = grown;
    }
  }
  return window;
}

/** Whether two pieces follow each other in one paragraph, list or table. */
function neighbours(a: Scored, b: Scored): boolean {
  return a.group === b.group && Math.abs(a.index - b.index) === 1;
}

/**
 * A sentence that leans on the one before it ("It …", "This …") takes that one
 * along; a single short sentence takes the next one of its paragraph, which
 * usually says more about the same thing (unless it is a caveat).
 */
function extend(window: Scored[], prose: readonly Scored[]): Scored[] {
  const first = window[0]!;
  const before = prose[prose.indexOf(first) - 1];
  let result = window;
  if (first.kind === 'sentence' && LEANS_BACK.test(first.text) && before && neighbours(before, first) && result.length < PIECES_PER_POINT) {
    result = [before, ...result];
  }
  const last = result[result.length - 1]!;
  const after = prose[prose.indexOf(last) + 1];
  if (result.length === 1 && last.kind === 'sentence' && last.text.length < 200 && after && neighbours(last, after) && !isCaveat(after) && length([...result, after]) <= POINT_LIMIT) {
    result = [...result, after];
  }
  return result;
}

/** Code blocks with the sentence right before each that introduces it. */
function withLeadIns(blocks: readonly Scored[], pieces: readonly Scored[]): Scored[] {
  const result: Scored[] = [];
  for (const block of blocks) {
    const before = pieces[block.index - 1];
    if (before?.introduces === block.group) result.push(before);
    result.push(block);
  }
  return result;
}

/** The first lines of a code block, as many as a quote's block may have (`CODE_LINE_LIMIT`, `CODE_CHAR_LIMIT`). */
function codeStart(code: string): string {
  const lines: string[] = [];
  let length = 0;
  for (const line of code.replace(/^\n+/, '').split('\n')) {
    if (lines.length === CODE_LINE_LIMIT || length + line.length + 1 > CODE_CHAR_LIMIT) break;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

function fitsAsCode(piece: Piece): boolean {
  return piece.text.trim() !== '' && piece.text.length <= CODE_CHAR_LIMIT && piece.text.split('\n').length <= CODE_LINE_LIMIT;
}

function length(pieces: readonly Piece[]): number {
  return pieces.reduce((sum, piece) => sum + Math.min(piece.text.length, QUOTE_LIMIT + 1) + 1, 0);
}

/**
 * One source's point in markdown: sentences of one paragraph as a paragraph,
 * list items as a list, table rows as a table under its header row, code
 * fenced. Every paragraph and item ends with the marker (before a closing
 * colon); a table or code block follows a line that carries it: the
 * sentence before it, or `opening` (or the source's name) as a caption.
 */
function renderPoint(pieces: readonly Piece[], number: number, sourceName: string, opening?: string): string {
  const marker = `[${number}]`;
  const cite = (text: string) => (text.endsWith(':') ? `${text.slice(0, -1)} ${marker}:` : `${text} ${marker}`);
  const blocks: string[] = [];
  const startsWithBlock = pieces[0]!.kind === 'code' || (pieces[0]!.kind === 'row' && pieces[0]!.table !== undefined);
  if (opening) blocks.push(startsWithBlock ? `${opening} ${marker}:` : `${opening}:`);
  let cited = opening !== undefined && startsWithBlock;
  for (let i = 0; i < pieces.length; ) {
    const piece = pieces[i]!;
    const run: Piece[] = [piece];
    for (i++; piece.kind !== 'code' && i < pieces.length && pieces[i]!.kind === piece.kind && pieces[i]!.group === piece.group; i++) run.push(pieces[i]!);
    const table = piece.kind === 'row' ? tableOf(run) : undefined;
    if (piece.kind === 'code' || table) {
      if (!cited) blocks.push(`${sourceName} ${marker}:`);
      blocks.push(table ?? codeBlock(piece.text, piece.language));
    } else if (piece.kind === 'sentence') blocks.push(cite(run.map((sentence) => markdownText(cutAtWord(sentence.text))).join(' ')));
    else blocks.push(run.map((line) => `- ${cite(markdownText(cutAtWord(line.text)))}`).join('\n'));
    cited = piece.kind !== 'code' && !table;
  }
  return blocks.join('\n\n');
}

/** Rows of one table as a GFM table under its header row; none when they cannot be read back into the same columns. */
function tableOf(rows: readonly Piece[]): string | undefined {
  const columns = rows[0]!.table?.columns;
  if (!columns || rows.some((row) => row.table?.columns.join('\n') !== columns.join('\n'))) return undefined;
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => tableCell(cell)).join(' | ')} |`;
  return [line(columns), `|${columns.map(() => '---').join('|')}|`, ...rows.map((row) => line(row.table!.cells))].join('\n');
}

/** A cell's text as markdown: shown as written, a pipe escaped so it does not end the cell (in code too, as GFM wants). */
function tableCell(text: string): string {
  return markdownText(cutAtWord(text)).replace(/\|/g, '\\|');
}

/**
 * The answer cut into pieces the size of a model's deltas (a word or two,
 * with its spacing), so a stream looks like one.
 */
export function answerPieces(answer: string): string[] {
  const pieces: string[] = [];
  const words = answer.match(/\s*\S+/g) ?? [];
  for (let i = 0; i < words.length; i += 2) pieces.push(words.slice(i, i + 2).join(''));
  const trailing = answer.match(/\s+$/)?.[0];
  if (trailing && pieces.length) pieces[pieces.length - 1] += trailing;
  return pieces.length ? pieces : [answer];
}
