import { decodeFragment } from '../../../protocol/index.js';

/** Characters of the answer kept as its opening. */
export const OPENING_LENGTH = 300;
/** Most bytes of `endpoint_response` read for the sources; an answer with its sources is a few KiB. */
const MAX_RESPONSE_CHARS = 256 * 1024;
/** Bytes of the answer's start kept for its opening (the answers' first events). */
const START_BYTES = 16 * 1024;
/** Bytes of the answer's end kept for its response and an error line, once the stream outgrows what is kept. */
const END_BYTES = MAX_RESPONSE_CHARS + 4096;

/** What the recorder reads from an answer. */
export interface AnswerReading {
  opening: string;
  sources: string[];
  /** The stream's `[ERROR]` code or text, when it ended with one. */
  error: string | undefined;
}

/** The lines that matter once the opening is read: where the service's whole response starts, and an error. */
const RESPONSE_LINE = 'endpoint_response';
const ERROR_LINE = '[ERROR]';

/**
 * Reads a streamed answer for its record: the answer's opening, the `endpoint_response` (for the sources' names)
 * and an `[ERROR]` line. While the answer streams it only copies the bytes going by into a buffer of its own (the
 * visitor's pieces are neither held nor held back): its start, and its end up to the size of the largest response
 * read. Once the stream is over it decodes them in one go and reads its opening line by line; then, rather than
 * every line of the answer, it looks in the text as a whole for where the response and an error line start.
 */
export class AnswerTap {
  #bytes = new Uint8Array(0);
  #used = 0;
  /** Whether bytes between the start (START_BYTES) and the end were let go. */
  #gap = false;

  push(piece: Uint8Array): void {
    for (let at = 0; at < piece.length; at += END_BYTES) this.#append(piece.subarray(at, at + END_BYTES));
  }

  /** Adds at most END_BYTES: past the start and twice the end, the oldest bytes after the start are let go first. */
  #append(part: Uint8Array): void {
    if (this.#used + part.length > START_BYTES + 2 * END_BYTES) {
      this.#bytes.copyWithin(START_BYTES, this.#used - END_BYTES, this.#used);
      this.#used = START_BYTES + END_BYTES;
      this.#gap = true;
    }
    if (this.#used + part.length > this.#bytes.length) {
      const bigger = new Uint8Array(Math.max(this.#used + part.length, Math.min(2 * this.#bytes.length, START_BYTES + 2 * END_BYTES), 1024));
      bigger.set(this.#bytes.subarray(0, this.#used));
      this.#bytes = bigger;
    }
    this.#bytes.set(part, this.#used);
    this.#used += part.length;
  }

  /** What was read, once the stream is over. */
  reading(): AnswerReading {
    const decoder = new TextDecoder();
    let text: string;
    if (!this.#gap) text = decoder.decode(this.#bytes.subarray(0, this.#used));
    else {
      // Each side cut to whole lines, and the event under way ended where bytes were let go.
      const start = decoder.decode(this.#bytes.subarray(0, START_BYTES));
      const end = decoder.decode(this.#bytes.subarray(START_BYTES, this.#used));
      text = `${start.slice(0, start.lastIndexOf('\n') + 1)}\n${end.slice(end.indexOf('\n') + 1)}`;
    }
    return new AnswerText(text).read();
  }
}

/** The whole text of a streamed answer, read for its record. */
class AnswerText {
  readonly #text: string;
  #event = '';
  #opening = '';
  #response: string[] = [];
  #responseChars = 0;
  #error: string | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  read(): AnswerReading {
    const text = this.#text;
    let start = 0;
    let lineByLine = true;
    for (;;) {
      if (!lineByLine) {
        const marker = markerLine(text, start);
        if (marker === -1) break;
        start = marker;
        lineByLine = true;
      }
      // A last line without its end is left, as a stream reader leaves it.
      const end = text.indexOf('\n', start);
      if (end === -1) break;
      this.#line(text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end));
      start = end + 1;
      // Past the opening, and outside the response, the lines to come are passed over until a marker line.
      if (this.#event !== RESPONSE_LINE && this.#opening.length >= OPENING_LENGTH) lineByLine = false;
    }
    let sources: string[] = [];
    if (this.#response.length > 0) {
      try {
        sources = sourceNames(JSON.parse(decodeFragment(this.#response.join(''))));
      } catch {
        // A response that does not parse names no source; the widget shows none either.
      }
    }
    return { opening: this.#opening.slice(0, OPENING_LENGTH), sources, error: this.#error };
  }

  #line(line: string): void {
    if (line === '') {
      this.#event = '';
      return;
    }
    if (line.startsWith('event:')) {
      this.#event = line.slice(line.charCodeAt(6) === 32 ? 7 : 6);
      return;
    }
    if (!line.startsWith('data:')) return;
    const data = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
    if (data.startsWith(ERROR_LINE)) this.#error = data.slice(7).trim().slice(0, 200) || 'ERROR';
    else if (this.#event === 'answer') {
      if (this.#opening.length < OPENING_LENGTH) this.#opening += decodeFragment(data);
    } else if (this.#event === RESPONSE_LINE && this.#responseChars + data.length <= MAX_RESPONSE_CHARS) {
      this.#response.push(data);
      this.#responseChars += data.length;
    }
  }
}

/**
 * Where the first line from `from` on starts that begins the response (`event: endpoint_response`) or is an error
 * (`data: [ERROR]`), or -1. Found as words in the whole text, then checked to start a line (the answer's own text
 * is percent-encoded, so neither word appears in it as is, but another event's data may hold the first).
 */
function markerLine(text: string, from: number): number {
  let first = -1;
  for (const [word, prefix] of [[RESPONSE_LINE, 'event:'], [ERROR_LINE, 'data:']] as const) {
    for (let at = text.indexOf(word, from); at !== -1 && (first === -1 || at < first); at = text.indexOf(word, at + 1)) {
      const lineStart = text.lastIndexOf('\n', at) + 1;
      const head = text.slice(Math.max(lineStart, from), at);
      if (lineStart < from || (head !== prefix && head !== `${prefix} `)) continue;
      // A response event's line ends after its name: `event: endpoint_responses` would be another event.
      const after = text.charCodeAt(at + word.length);
      if (word === ERROR_LINE || after === 10 || after === 13) {
        first = lineStart;
        break;
      }
    }
  }
  return first;
}

/** The names of an answer's sources, best first, each once: the datasource's name, else its address, else its id. */
export function sourceNames(answer: unknown): string[] {
  // Read in place rather than through readAgentQueryAnswer, which copies every source: this runs on every answer.
  const sources = (answer as { sources?: unknown } | null)?.sources;
  if (!Array.isArray(sources)) return [];
  const names: string[] = [];
  for (const source of sources as Record<string, unknown>[]) {
    if (!source || typeof source !== 'object') continue;
    const name = [source.datasource_name, source.source_url, source.datasource_id].find((field): field is string => typeof field === 'string' && field !== '');
    if (name && !names.includes(name.slice(0, 200))) names.push(name.slice(0, 200));
    if (names.length === 20) break;
  }
  return names;
}
