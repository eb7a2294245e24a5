import { decodeFragment } from '../../../protocol/index.js';
import { concatBytes } from '../bytes.js';

/** Characters of the answer kept as its opening. */
export const OPENING_LENGTH = 300;
/** Most characters of `endpoint_response` read for the sources; an answer with its sources is a few KiB. */
const MAX_RESPONSE_CHARS = 256 * 1024;
/** Bytes of the answer's start read for its opening, at most (an answer that opens with something else has none). */
const OPENING_BYTES = 16 * 1024;
/** Most characters of a line read for the opening: an answer event's first 300 characters are in its first 2,700. */
const OPENING_LINE_CHARS = 4096;
/** Bytes of the answer's end kept for its response and an error line, at most. */
const END_BYTES = MAX_RESPONSE_CHARS + 4096;

/** What the recorder reads from an answer. */
export interface AnswerReading {
  opening: string;
  sources: string[];
  /** The stream's `[ERROR]` code or text, when it ended with one. */
  error: string | undefined;
}

const utf8 = new TextDecoder();
const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

/**
 * Reads a streamed answer for its record, without holding anything back from the visitor and without reading the
 * answer twice. Its opening is read from the answer events as they go by, until it has 300 characters. Of the rest
 * it keeps only what the relay's line reader (`StreamLines`) says the end needs, from the start of the response
 * event after the last answer event or of an error line (bounded to 260 KiB), and reads that once the stream is over.
 */
export class AnswerTap {
  // The opening, read as the answer starts.
  #opening = '';
  #openingDone = false;
  #openingBytes = 0;
  /** Whether the lines being read are an answer event's, and the start of a line that a piece cut. */
  #inAnswer = false;
  #partLine: Uint8Array | undefined;
  // The end: the pieces from the stream's byte `#keptFrom` on, the bytes before the first piece's start let go.
  #pieces: Uint8Array[] = [];
  #keptFrom = 0;
  #read = 0;
  /** Whether bytes the end needs were let go (past `END_BYTES`). */
  #cut = false;

  /** A piece of the answer; `keepFrom`, the stream's byte (counted from its first) from which its end is needed. */
  push(piece: Uint8Array, keepFrom: number): void {
    if (piece.length === 0) return;
    if (!this.#openingDone) this.#readOpening(piece);
    this.#pieces.push(piece);
    this.#read += piece.length;
    // Pieces wholly before what the end needs are let go, and the oldest past END_BYTES.
    const from = Math.max(keepFrom, this.#read - END_BYTES);
    const pieces = this.#pieces;
    while (pieces.length > 0 && this.#keptFrom + pieces[0]!.length <= from) this.#keptFrom += pieces.shift()!.length;
    this.#cut = from > keepFrom;
    if (!this.#cut && keepFrom > this.#keptFrom) {
      // The first piece is kept only from where the end starts: nothing before it is read.
      pieces[0] = pieces[0]!.subarray(keepFrom - this.#keptFrom);
      this.#keptFrom = keepFrom;
    }
  }

  /** Reads the piece's lines for the opening, until it is full (or the answer's start is past). */
  #readOpening(piece: Uint8Array): void {
    let bytes = piece;
    if (this.#partLine) {
      bytes = concatBytes([this.#partLine, piece]);
      this.#partLine = undefined;
    }
    // Decoded in one call (TextDecoder's cost is mostly per call), its lines found with indexOf (a fast search in V8).
    const text = utf8.decode(bytes);
    const parts: string[] = [];
    let length = this.#opening.length;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1 && length < OPENING_LENGTH; start = end + 1, end = text.indexOf('\n', start)) {
      const lineEnd = end > start && text.charCodeAt(end - 1) === CARRIAGE_RETURN ? end - 1 : end;
      if (start === lineEnd) this.#inAnswer = false;
      else if (text.startsWith('event:', start)) this.#inAnswer = text.slice(start + (text.charCodeAt(start + 6) === 32 ? 7 : 6), lineEnd) === 'answer';
      else if (this.#inAnswer && text.startsWith('data:', start)) {
        const from = start + (text.charCodeAt(start + 5) === 32 ? 6 : 5);
        if (text.startsWith(ERROR_LINE, from)) continue;
        const fragment = decodeFragment(text.slice(from, Math.min(lineEnd, from + OPENING_LINE_CHARS)));
        parts.push(fragment);
        length += fragment.length;
      }
    }
    // Made one string rather than added to: a held stream's heartbeats would each keep a piece of string.
    if (parts.length > 0) this.#opening = [this.#opening, ...parts].join('');
    this.#openingBytes += piece.length;
    if (length >= OPENING_LENGTH || this.#openingBytes >= OPENING_BYTES) this.#openingDone = true;
    else if (start < text.length) {
      // A line cut by the piece waits for the next, its first bytes only.
      const lineStart = bytes.lastIndexOf(NEWLINE) + 1;
      this.#partLine = bytes.slice(lineStart, lineStart + OPENING_LINE_CHARS);
    }
  }

  /** What was read, once the stream is over. */
  reading(): AnswerReading {
    const opening = this.#opening.slice(0, OPENING_LENGTH);
    const text = utf8.decode(concatBytes(this.#pieces));
    // Its first line is read only if it starts there (once cut, the kept bytes start inside a line).
    const read = readEnd(text, this.#cut ? text.indexOf('\n') + 1 : 0);
    return { opening, sources: read.response.length ? responseSources(read.response) : [], error: read.error };
  }
}

const ERROR_LINE = '[ERROR]';
const RESPONSE_EVENT = 'endpoint_response';
/** `"sources":`, URI-encoded. */
const SOURCES_KEY = '%22sources%22%3A';

/** The response's data (its events after the last answer event) and the last error line, read from the lines of `text` from `start` on. */
function readEnd(text: string, start: number): { response: string[]; error: string | undefined } {
  let response: string[] = [];
  let responseChars = 0;
  let error: string | undefined;
  let event = '';
  // A last line without its end is left, as a stream reader leaves it. (indexOf finds a character far faster than
  // any backwards search in strings or bytes.)
  for (let end = text.indexOf('\n', start); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
    const line = text.charCodeAt(end - 1) === CARRIAGE_RETURN && end > start ? text.slice(start, end - 1) : text.slice(start, end);
    if (line === '') event = '';
    else if (line.startsWith('event:')) {
      event = line.slice(line.charCodeAt(6) === 32 ? 7 : 6);
      // The response follows the last answer event.
      if (event === 'answer') {
        response = [];
        responseChars = 0;
      }
    } else if (line.startsWith('data:')) {
      const data = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
      if (data.startsWith(ERROR_LINE)) error = data.slice(7).trim().slice(0, 200) || 'ERROR';
      else if (event === RESPONSE_EVENT && responseChars + data.length <= MAX_RESPONSE_CHARS) {
        response.push(data);
        responseChars += data.length;
      }
    }
  }
  return { response, error };
}

/**
 * The names of the sources in the response's data (its JSON, URI-encoded). Only its end is decoded when it can be:
 * from its `"sources":` key on, read as an object of the keys from there (a key nested deeper leaves braces
 * unmatched, which does not parse); else the whole response.
 */
function responseSources(response: string[]): string[] {
  const encoded = response.join('');
  // Searched in the last 4 KiB first, where the service puts them (after the answer's text); V8 searches strings
  // backwards far slower than forwards.
  const near = encoded.indexOf(SOURCES_KEY, Math.max(0, encoded.length - 4096));
  const key = near !== -1 ? near : encoded.lastIndexOf(SOURCES_KEY);
  if (key > 0 && encoded.slice(key - 3, key) !== '%5C') {
    try {
      return sourceNames(JSON.parse(`{${decodeFragment(encoded.slice(key))}`));
    } catch {
      // Read whole below.
    }
  }
  try {
    return sourceNames(JSON.parse(decodeFragment(encoded)));
  } catch {
    // A response that does not parse names no source; the widget shows none either.
    return [];
  }
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
