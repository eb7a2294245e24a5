import { getDefaults, Lexer, Parser, Renderer, type MarkedOptions, type Token, type Tokens } from 'marked';
import { healOpenBlocks, unlinkUnfinishedAddress } from './heal.js';
import { ELEMENT_NODE, TEXT_NODE, morphNodes } from './morph.js';
import { sanitizeToNodes } from './sanitize.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

// Raw HTML in an answer is shown as the text it is: the model's markup never
// becomes elements, and every block renders to self-contained HTML.
const renderer = new Renderer();
renderer.html = (token: Tokens.HTML | Tokens.Tag) => ('block' in token && token.block ? `<p>${escapeHtml(token.text.trim())}</p>\n` : escapeHtml(token.text));
// marked's Lexer and Parser, not its Marked class: the class adds extensions,
// hooks and async parsing, which the chat never uses, to what a visitor loads.
// marked's defaults: GitHub-flavoured, `pedantic` and `breaks` off (the script-tag build leaves out their rule sets,
// and fails should a marked release change those defaults: scripts/trim-libraries.ts).
const options: MarkedOptions = { ...getDefaults(), renderer };

type Links = Record<string, { href: string | null; title: string | null }>;

/** The renderer's HTML for `text`, before it is sanitized. */
export function markdownHtml(text: string): string {
  // (marked's lexer makes every line end a \n itself.)
  return Parser.parse(Lexer.lex(text, options), options);
}

/** Renders markdown to sanitized DOM nodes in one go. */
export function renderMarkdown(text: string): Node[] {
  return sanitizeToNodes(markdownHtml(text));
}

/**
 * Renders an answer still arriving as the streaming view shows it: its
 * complete blocks as they are, its open last block with unfinished
 * constructs closed (`**bold` as bold, `[text](http` as its text).
 */
export function renderMarkdownSoFar(text: string): Node[] {
  text = normalizeNewlines(text);
  const lex = (source: string, links: Links = Object.create(null)) => {
    const lexer = new Lexer(options);
    Object.assign(lexer.tokens.links, links);
    return lexer.lex(source);
  };
  const tokens = lex(text);
  const openFrom = rawText(tokens).length === text.length ? openBlockIndex(tokens) : 0;
  let frozen = tokens.slice(0, openFrom);
  const openText = text.slice(rawText(frozen).length);
  if (mayDefine(frozen, openText)) frozen = lex(text.slice(0, rawText(frozen).length));
  const links: Links = Object.create(null);
  for (const definition of newDefinitions(frozen, links)) links[definition.tag] = { href: definition.href, title: definition.title };
  const open = openForDisplay(openText, tokens.slice(openFrom), (source) => lex(source, links));
  return sanitizeToNodes(Parser.parse([...frozen, ...open.tokens], options));
}

/** Whether the open text may hold a reference definition that blocks before it would use. */
function mayDefine(frozen: Token[], openText: string): boolean {
  return frozen.length > 0 && openText.includes(']:') && frozen.some((token) => token.raw.includes('['));
}

/** The open blocks' tokens as shown while more is to come (`healedText`: their text so), and whether healing changed them. */
function openForDisplay(openText: string, open: Token[], lex: (text: string) => Token[], healedText = healOpenBlocks(openText, open)): { tokens: Token[]; healed: boolean } {
  const tokens = healedText === openText ? open : lex(healedText);
  const unlinked = unlinkUnfinishedAddress(tokens, healedText);
  return { tokens, healed: unlinked || healedText !== openText };
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Counters that let tests and benchmarks see how much work rendering did. */
export interface RenderStats {
  /** Renders done (at most one per animation frame while streaming). */
  renders: number;
  /** Characters handed to the markdown lexer, over all renders. */
  lexedChars: number;
  /** The most characters one render lexed. */
  maxLexedChars: number;
  /** Renders that only added plain text to the text the answer ended in (nothing lexed or sanitized). */
  plainRenders: number;
  /** Renders whose new text was all held back (half a table row, a link's address...): lexed and healed, nothing parsed, sanitized or changed. */
  unchangedRenders: number;
}

export interface IncrementalMarkdownOptions {
  /** Schedules a render; defaults to `requestAnimationFrame`. */
  schedule?: (render: () => void) => number;
  cancel?: (handle: number) => void;
  /** Called after each render, e.g. to keep the view scrolled. */
  onRender?: () => void;
  /** Most characters one render takes on; the rest waits for the next frame (default 6,000; fewer while renders run slow). */
  maxCharsPerRender?: number;
  /** Least time between two renders, in ms (default 100); the pause grows from it while text comes fast or renders run slow. */
  minInterval?: number;
}

const MAX_CHARS_PER_RENDER = 6000;
/** A backlog is rendered a slice per frame; the slice is sized so a render, with the layout it causes, takes about this long. */
const SLICE_TARGET_MS = 10;
/** The first slice: small, since code not yet optimised runs several times slower (a page's first answer). */
const FIRST_SLICE = 1500;
const SMALLEST_SLICE = 500;
// The pause between updates: 100 ms while text comes at up to 1,000 characters a second (an update adds
// at most a line, which reads as typing); faster, each update already adds a paragraph the eye takes in as
// a block, so the pause stretches in proportion to the rate (up to 500 ms, two updates a second); and it
// is never under 9 times what the last renders took, so rendering keeps to a tenth of a slow phone's main thread.
const MIN_INTERVAL_MS = 100;
const TYPING_CHARS_PER_MS = 1;
const MAX_INTERVAL_MS = 500;
const RENDER_SHARE = 0.1;

/**
 * Shows a markdown answer that arrives in fragments. Fragments are collected
 * and rendered at most once per animation frame, and at most every 100 ms
 * (longer while text comes fast or renders run slow: `#rendered`). Blocks that can no longer
 * change are rendered once and then left alone: each render lexes, parses and
 * sanitizes only the open tail of the answer (the last block, and the one
 * before it while the last block's first line is unfinished, since that line
 * decides where the two split). The cost of a render therefore does not grow
 * with the length of the answer, and the finished DOM equals what rendering
 * the whole answer at once gives.
 */
export class IncrementalMarkdown {
  readonly element: HTMLElement;
  readonly stats: RenderStats;
  #options: IncrementalMarkdownOptions;
  #text = '';
  /** Fragments received since the last render, as they came (taking them must cost next to nothing). */
  #received = '';
  #pendingCarriageReturn = false;
  /** Characters of `#text` that are rendered into blocks that no longer change. */
  #frozenLength = 0;
  /** Frozen blocks holding a `[`, i.e. that could use a reference link defined later, with the nodes they show. */
  #referring: ReferringBlock[] = [];
  /** Those of them that use a reference defined after they were rendered, waiting to be rendered again (a slice per frame). */
  #stale = new Set<ReferringBlock>();
  /** Reference link definitions found in frozen blocks, for lexing the tail. */
  #links: Links = Object.create(null);
  #openNodes: Node[] = [];
  /** The open blocks' text as `#openNodes` show it (healed), while nothing but the renderer changed them. */
  #shownOpenText: string | undefined;
  /** The text node the shown answer ends in, while plain text typed on can go straight into it. */
  #plainEnd: PlainEnd | undefined;
  #renderedLength = 0;
  /** Characters the next slice of a backlog takes on, adjusted to how long the last slices took. */
  #sliceLength = FIRST_SLICE;
  #frame: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the last render ran, and the text's length then: how fast text arrives. */
  #lastRender = -Infinity;
  #lengthAtLastRender = 0;
  /** Not before this time does the next update come (a backlog's slices come at once). */
  #nextRender = -Infinity;
  /** What the last renders took, in ms, the older halved at each render. */
  #renderCost = 0;
  #finished = false;
  /** The answer ended before it was complete: its last block stays healed as while it streamed. */
  #cutOff = false;
  #stopped = false;
  #whenFinished: (() => void)[] = [];

  constructor(element: HTMLElement, options: IncrementalMarkdownOptions = {}) {
    this.element = element;
    this.#options = options;
    // Set here, not as a field: with `useDefineForClassFields: false` a public field's initialiser moves every private field's into the constructor too.
    this.stats = { renders: 0, lexedChars: 0, maxLexedChars: 0, plainRenders: 0, unchangedRenders: 0 };
  }

  /** The markdown received so far. */
  get text(): string {
    return this.#take();
  }

  /** Adds a fragment of the answer; it shows by the next animation frame. */
  append(fragment: string): void {
    if (this.#finished || !fragment) return;
    this.#received += fragment;
    this.#schedule();
  }

  /** Moves the received fragments into the text. */
  #take(): string {
    let received = this.#received;
    if (!received) return this.#text;
    this.#received = '';
    // Newlines are normalised here, as marked would, so offsets into the text stay exact.
    if (this.#pendingCarriageReturn && received.startsWith('\n')) received = received.slice(1);
    this.#pendingCarriageReturn = received.endsWith('\r');
    return (this.#text += normalizeNewlines(received));
  }

  /** Renders what has arrived now, instead of at the next frame. */
  flush(): void {
    this.#cancelFrame();
    this.#render();
  }

  /**
   * The answer is complete: no more text is accepted, and the rest renders
   * now (a large backlog over the next frames). Resolves once all is shown.
   * `cutOff`: it ended unfinished (cut off or stopped), so its last block is
   * shown healed, its unfinished constructs closed, as while it streamed.
   */
  finish({ cutOff = false }: { cutOff?: boolean } = {}): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#finished = true;
    this.#cutOff = cutOff;
    this.#cancelFrame();
    const rendered = new Promise<void>((resolve) => this.#whenFinished.push(resolve));
    this.#render();
    return rendered;
  }

  /**
   * Stops for good, for a view that is gone: nothing more is rendered or
   * scheduled, what is shown stays, and `finish()` resolves now.
   */
  stop(): void {
    this.#stopped = this.#finished = true;
    this.#cancelFrame();
    this.#received = '';
    this.#stale.clear();
    for (const resolve of this.#whenFinished.splice(0)) resolve();
  }

  #schedule(): void {
    if (this.#frame !== undefined || this.#timer !== undefined) return;
    const wait = this.#nextRender - performance.now();
    if (wait > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#schedule();
      }, wait);
      return;
    }
    this.#frame = (this.#options.schedule ?? requestAnimationFrame)(() => {
      this.#frame = undefined;
      this.#render();
    });
  }

  #cancelFrame(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#frame === undefined) return;
    (this.#options.cancel ?? cancelAnimationFrame)(this.#frame);
    this.#frame = undefined;
  }

  #render(): void {
    if (this.#stopped) return;
    const final = this.#finished;
    const whole = final && !this.#cutOff;
    const text = this.#take();
    if (!final && this.#renderedLength === text.length) return;
    const started = performance.now();
    if (!final && this.#appendPlain(text)) return this.#rendered(started, text.length);
    const rest = text.slice(this.#frozenLength);
    // A backlog (a burst of text, or a slow device) is rendered a slice per frame, so no single task grows long.
    const largest = this.#options.maxCharsPerRender ?? MAX_CHARS_PER_RENDER;
    let sliceLength = Math.min(this.#sliceLength, largest);
    let partial = rest.length > sliceLength;
    let tail = partial ? rest.slice(0, sliceLength) : rest;
    let tokens = this.#lex(tail);
    let openFrom = whole && !partial ? tokens.length : openBlockIndex(tokens);
    while (partial && openFrom === 0) {
      // No block ends within the slice: take twice as much, until one does or the rest is taken.
      sliceLength *= 2;
      partial = rest.length > sliceLength;
      tail = partial ? rest.slice(0, sliceLength) : rest;
      tokens = this.#lex(tail);
      openFrom = whole && !partial ? tokens.length : openBlockIndex(tokens);
    }
    // Offsets are only trusted when the tokens cover the tail exactly; otherwise nothing is frozen.
    if (openFrom > 0 && rawText(tokens).length !== tail.length) openFrom = 0;

    let frozen = tokens.slice(0, openFrom);
    const frozenLength = rawText(frozen).length;
    const openText = tail.slice(frozenLength);
    // A definition still being written must not lend its half address to blocks frozen now.
    if (mayDefine(frozen, openText)) frozen = this.#lex(tail.slice(0, frozenLength));
    const definitions = newDefinitions(frozen, this.#links);
    for (const definition of definitions) this.#links[definition.tag] = { href: definition.href, title: definition.title };
    this.#frozenLength += frozenLength;
    // The open blocks are shown with their unfinished constructs closed (not the last render's, which is the answer itself).
    const healedText = whole ? openText : healOpenBlocks(openText, tokens.slice(openFrom));
    if (!final && !partial && !frozen.length && !this.#stale.size && healedText === this.#shownOpenText) {
      // What arrived is all held back (half a table row, a marker, a link's address): the shown blocks stay as they are.
      this.#renderedLength = text.length;
      this.#plainEnd = undefined;
      this.stats.unchangedRenders++;
      return this.#rendered(started, text.length, false);
    }
    const open = whole ? { tokens: tokens.slice(openFrom), healed: false } : openForDisplay(openText, tokens.slice(openFrom), (text) => this.#lex(text), healedText);
    const [frozenNodes, openNodes] = this.#toNodesSplit(frozen, open.tokens);
    // The shown open tail is updated, not replaced: unchanged nodes stay, so the browser restyles and lays out only what changed.
    const shown = morphNodes(this.element, this.#openNodes, [...frozenNodes, ...openNodes], null);
    this.#openNodes = shown.slice(frozenNodes.length);
    this.#shownOpenText = partial || whole ? undefined : healedText;
    // Blocks frozen earlier that use a reference defined only now are rendered again (blocks frozen now were lexed with it).
    if (definitions.length) this.#markReferringTo(definitions);
    if (frozen.length) this.#noteReferring(frozen, shown.slice(0, frozenNodes.length));
    const stale = this.#renderStale(Math.min(this.#sliceLength, largest));
    this.#plainEnd = partial || final || open.healed ? undefined : plainEnd(open.tokens, this.#openNodes, tail);
    this.#rendered(started, text.length);
    if (partial || tail.length >= FIRST_SLICE) {
      // The time includes the layout the view forces after a render (onRender keeps it scrolled).
      const took = Math.max(1, performance.now() - started);
      // Grows at most twofold a step: a fast render of a few blocks says little about a long table.
      this.#sliceLength = Math.max(SMALLEST_SLICE, Math.min(largest, 2 * tail.length, Math.round((tail.length * SLICE_TARGET_MS) / took)));
    }
    if (partial || stale) {
      this.#renderedLength = -1;
      // The rest of a burst follows at the next frame, not after the pause between updates.
      this.#nextRender = -Infinity;
      this.#schedule();
      return;
    }
    this.#renderedLength = text.length;
    if (final) for (const resolve of this.#whenFinished.splice(0)) resolve();
  }

  /**
   * Counts a render, and sets when the next update may come, by the rule at MIN_INTERVAL_MS: from how fast
   * text arrived since the last render, and what renders cost.
   */
  #rendered(started: number, length: number, changed = true): void {
    this.stats.renders++;
    if (changed) this.#options.onRender?.();
    const now = performance.now();
    // The cost includes the layout the view forces after a render (onRender keeps it scrolled).
    this.#renderCost = Math.max(now - started, this.#renderCost / 2);
    const least = this.#options.minInterval ?? MIN_INTERVAL_MS;
    const charsPerMs = (length - this.#lengthAtLastRender) / Math.max(1, started - this.#lastRender);
    const pause = Math.min(MAX_INTERVAL_MS, Math.max(least, (least * charsPerMs) / TYPING_CHARS_PER_MS, ((1 - RENDER_SHARE) / RENDER_SHARE) * this.#renderCost));
    this.#lastRender = started;
    this.#lengthAtLastRender = length;
    this.#nextRender = started + pause;
  }

  /**
   * Shows text that only adds plain words to the paragraph (or list item,
   * quote or heading line) the answer ends in, by adding it to the text node
   * shown last: no lexing, parsing or sanitizing. Taken only when that gives
   * exactly the DOM a full render would: the text arrived since the last
   * render and the word it continues hold only letters, digits, spaces,
   * apostrophes, quotes and hyphens within words, and `,.;:?` after them (no
   * newline, no markdown delimiter, no `&`, nothing an autolink could grow
   * from such as `www.x`).
   */
  #appendPlain(text: string): boolean {
    const end = this.#plainEnd;
    if (!end || end.node.nextSibling || this.#renderedLength < 0) return false;
    const added = text.slice(this.#renderedLength);
    // The word the new text continues is checked with it, from the last space shown.
    const words = text.slice(text.lastIndexOf(' ', this.#renderedLength - 1) + 1).split(' ');
    if (!words.every((word) => PLAIN_WORD.test(word)) || (end.trims && added.endsWith(' '))) return false;
    end.node.appendData(added);
    this.stats.plainRenders++;
    this.#renderedLength = text.length;
    return true;
  }

  #lex(tail: string): Token[] {
    this.stats.lexedChars += tail.length;
    this.stats.maxLexedChars = Math.max(this.stats.maxLexedChars, tail.length);
    const lexer = new Lexer(options);
    Object.assign(lexer.tokens.links, this.#links);
    return lexer.lex(tail);
  }

  /**
   * The nodes of the blocks now frozen and of the open ones, sanitized in one
   * go: each block renders to one element and a line break, so the nodes split
   * after the frozen blocks' pairs. Should the nodes not have that shape, the
   * two are rendered apart.
   */
  #toNodesSplit(frozen: Token[], open: Token[]): [Node[], Node[]] {
    if (!frozen.length) return [[], this.#toNodes(open)];
    const nodes = this.#toNodes([...frozen, ...open]);
    const split = 2 * frozen.filter(isContent).length;
    const paired = nodes.every((node, i) => (i % 2 ? node.nodeType === TEXT_NODE && node.nodeValue === '\n' : node.nodeType === ELEMENT_NODE));
    if (paired && nodes.length === split + 2 * open.filter(isContent).length) return [nodes.slice(0, split), nodes.slice(split)];
    return [this.#toNodes(frozen), this.#toNodes(open)];
  }

  #toNodes(tokens: Token[]): Node[] {
    if (!tokens.some(isContent)) return [];
    return sanitizeToNodes(Parser.parse(tokens, options));
  }

  /**
   * Remembers the frozen blocks that hold a `[`, with their nodes: one of
   * them may use a reference link whose definition comes later. Each block
   * renders to an element and a line break; should the nodes not have that
   * shape, the blocks frozen together are remembered as one.
   */
  #noteReferring(frozen: Token[], nodes: Node[]): void {
    const content = frozen.filter(isContent);
    if (!content.some((token) => token.raw.includes('['))) return;
    if (nodes.length !== 2 * content.length) {
      this.#referring.push({ raw: rawText(frozen), labels: squashLabel(rawText(frozen)), nodes });
      return;
    }
    content.forEach((token, i) => {
      if (token.raw.includes('[')) this.#referring.push({ raw: token.raw, labels: squashLabel(token.raw), nodes: nodes.slice(2 * i, 2 * i + 2) });
    });
  }

  /** Marks the frozen blocks whose text holds the label of one of `definitions` to be rendered again. */
  #markReferringTo(definitions: Tokens.Def[]): void {
    const labels = definitions.map((definition) => squashLabel(definition.tag));
    for (const block of this.#referring) if (labels.some((label) => block.labels.includes(label))) this.#stale.add(block);
  }

  /**
   * Renders marked blocks again, in place, with the references known now,
   * about `budget` characters of them (at least one block); tells whether
   * some are left for the next frame. A block waiting for several new
   * references is rendered again once.
   */
  #renderStale(budget: number): boolean {
    for (const block of this.#stale) {
      if (budget <= 0) return true;
      this.#stale.delete(block);
      budget -= block.raw.length;
      const before = block.nodes.at(-1)?.nextSibling ?? null;
      block.nodes = morphNodes(this.element, block.nodes, this.#toNodes(this.#lex(block.raw)), before);
    }
    return false;
  }

}

interface ReferringBlock {
  raw: string;
  /** The text as `squashLabel` puts it, to find the labels it may use. */
  labels: string;
  nodes: Node[];
}

/**
 * A label, or a text that may hold one, folded as marked compares labels
 * (case folded through upper case, so `ẞ` matches `SS`), and without
 * whitespace and the `>` of quote lines, which a label broken over lines of
 * a quote or list carries in the raw text: finding a label in a text this way
 * may find one that is not there (a needless render), never miss one that is.
 */
function squashLabel(text: string): string {
  return text.toLowerCase().toUpperCase().toLowerCase().replace(/[\s>]+/g, '');
}

/** Index of the first token that may still change as text is appended. */
function openBlockIndex(tokens: Token[]): number {
  const last = lastContentIndex(tokens, tokens.length);
  // Only blank text so far: it may yet be the indentation of a block.
  if (last < 0) return 0;
  // Until the last block's first line is complete, that line may still join the block before it.
  if (tokens[last]!.raw.includes('\n')) return last;
  const before = lastContentIndex(tokens, last);
  if (before < 0) return 0;
  // Unless a blank line separates them: past one, only a list or indented code can take in a new line,
  // and only one that starts with a space or a list marker, not with a letter.
  const previous = tokens[before]!;
  const canContinue = previous.type === 'list' || (previous.type === 'code' && (previous as Tokens.Code).codeBlockStyle === 'indented');
  if ((!canContinue || /^\p{L}/u.test(tokens[last]!.raw)) && BLANK_LINE_AT_END.test(rawText(tokens.slice(before, last)))) return last;
  return before;
}

const BLANK_LINE_AT_END = /\n[ \t]*\n$/;

function rawText(tokens: Token[]): string {
  let text = '';
  for (const token of tokens) text += token.raw;
  return text;
}

/** Whether a block renders to something (blank space and link definitions render to nothing). */
const isContent = (token: Token): boolean => token.type !== 'space' && token.type !== 'def';

function lastContentIndex(tokens: Token[], before: number): number {
  for (let i = before - 1; i >= 0; i--) if (tokens[i]!.type !== 'space') return i;
  return -1;
}


/** Reference definitions in `tokens` (at any depth) not yet in `links`. */
function newDefinitions(tokens: Token[], links: Links): Tokens.Def[] {
  const found: Tokens.Def[] = [];
  const visit = (list: Token[]) => {
    for (const token of list) {
      if (token.type === 'def') {
        const definition = token as Tokens.Def;
        if (!(definition.tag in links) && !found.some((d) => d.tag === definition.tag)) found.push(definition);
      } else if (token.type === 'blockquote') visit((token as Tokens.Blockquote).tokens);
      else if (token.type === 'list') for (const item of (token as Tokens.List).items) visit(item.tokens);
    }
  };
  visit(tokens);
  return found;
}

/** A word that renders as itself whatever plain text follows: no delimiter, entity, escape or autolink start. */
// (Not `!`: it may start an image.)
const PLAIN_WORD = /^[\p{L}\p{N}'"-]*[,.;:?]*$/u;
/** What a line starts with before its text: quote markers, a list marker, indentation. */
const LINE_MARKERS = /^(?:[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t]))*[ \t]*/;

interface PlainEnd {
  node: Text;
  /** Whether the block drops trailing spaces (list items, headings), so text may not end in one. */
  trims: boolean;
}

/**
 * The text node the open blocks end in, when the last one is a paragraph,
 * heading, list item or quote whose inline content ends in plain text, the
 * very end of `tail`, on a line that starts (after its markers) with a letter:
 * such a line keeps its meaning whatever text without a newline is added.
 */
function plainEnd(tokens: Token[], shown: Node[], tail: string): PlainEnd | undefined {
  let block: Token | undefined = tokens[lastContentIndex(tokens, tokens.length)];
  let element = shown.findLast((node) => node instanceof Element) as Element | undefined;
  let trims = false;
  const inner = (tag: string) => (element = element?.lastElementChild?.localName === tag ? element.lastElementChild : undefined);
  if (block?.type === 'blockquote' && element?.localName === 'blockquote') {
    block = (block as Tokens.Blockquote).tokens.at(-1);
    inner('p');
  } else if (block?.type === 'list' && element?.localName === (block.ordered ? 'ol' : 'ul')) {
    block = (block as Tokens.List).items.at(-1)?.tokens.at(-1);
    inner('li');
    if (block?.type === 'paragraph') inner('p');
    trims = true;
  } else if (block?.type === 'heading') {
    if (element?.localName !== `h${(block as Tokens.Heading).depth}`) return;
    trims = true;
  } else if (block?.type === 'paragraph' && element?.localName !== 'p') return;
  if (!block || !['paragraph', 'text', 'heading'].includes(block.type) || !element) return;
  const last = (block as Tokens.Paragraph).tokens?.at(-1);
  const node = element.lastChild;
  const line = tail.slice(tail.lastIndexOf('\n') + 1).replace(LINE_MARKERS, '');
  if (last?.type !== 'text' || !(node instanceof Text) || !tail.endsWith(last.raw) || !/^\p{L}/u.test(line)) return;
  return { node, trims };
}

