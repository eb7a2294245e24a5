import { decodeFragment } from '../../../protocol/index.js';

/** Characters of the answer kept as its opening. */
export const OPENING_LENGTH = 300;
/** Most bytes of `endpoint_response` kept to read the sources from; an answer with its sources is a few KiB. */
const MAX_RESPONSE_CHARS = 256 * 1024;

/** What the recorder reads from an answer. */
export interface AnswerReading {
  opening: string;
  sources: string[];
  /** The stream's `[ERROR]` code or text, when it ended with one. */
  error: string | undefined;
}

/**
 * Reads a streamed answer as its pieces go by to the visitor (it holds none back): the answer's opening, the
 * `endpoint_response` (for the sources' names) and an `[ERROR]` line. Lines split across pieces are joined.
 */
export class AnswerTap {
  readonly #decoder = new TextDecoder();
  #partial = '';
  #event = '';
  #opening = '';
  #response: string[] = [];
  #responseChars = 0;
  #error: string | undefined;

  push(bytes: Uint8Array): void {
    const text = this.#partial + this.#decoder.decode(bytes, { stream: true });
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      this.#line(text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end));
      start = end + 1;
    }
    this.#partial = text.slice(start);
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
    if (data.startsWith('[ERROR]')) this.#error = data.slice(7).trim().slice(0, 200) || 'ERROR';
    else if (this.#event === 'answer') {
      if (this.#opening.length < OPENING_LENGTH) this.#opening += decodeFragment(data);
    } else if (this.#event === 'endpoint_response' && this.#responseChars + data.length <= MAX_RESPONSE_CHARS) {
      this.#response.push(data);
      this.#responseChars += data.length;
    }
  }

  /** What was read, once the stream is over. */
  reading(): AnswerReading {
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
