// The lines of a relayed event stream, read once as the bytes go by: for the relay, whether the service's end line
// has passed; for insights' record, where the answer's end (its response event, an error line) starts.

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
/** Characters of a line's start kept: enough to tell the lines below apart (all ASCII). */
const START_CHARS = 14;

/**
 * Reads a stream's lines as they go by, keeping only each line's first characters. It tells the relay whether the
 * service's own end line (`data: [DONE]`, `data: [ERROR]...`) has passed, and insights' stream tap from which byte
 * of the stream on the answer's end must be kept: the start of the first response event after the last answer
 * event, or of the first error line, else of the line under way (nothing before it is needed).
 */
export class StreamLines {
  /** Whether the service's end line has passed. */
  sawEnd = false;
  #line = '';
  #inLine = false;
  /** Bytes read before the line under way, and before the current piece. */
  #lineStart = 0;
  #read = 0;
  /** Where the response event after the last answer event started, and the first error line. */
  #response: number | undefined;
  #error: number | undefined;

  /** Whether the last bytes read left a line open. */
  get midLine(): boolean {
    return this.#inLine;
  }

  /** The stream's byte (counted from its first) from which its end is needed. */
  get keepFrom(): number {
    return Math.min(this.#response ?? Infinity, this.#error ?? Infinity, this.#lineStart);
  }

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (byte === NEWLINE || byte === CARRIAGE_RETURN) {
        if (this.#inLine) this.#lineEnded(this.#line);
        this.#line = '';
        this.#inLine = false;
        this.#lineStart = this.#read + i + 1;
      } else {
        this.#inLine = true;
        if (this.#line.length < START_CHARS) this.#line += String.fromCharCode(byte);
      }
    }
    this.#read += bytes.length;
  }

  #lineEnded(line: string): void {
    if (line.charCodeAt(0) === 100 /* d */) {
      if (line === 'data: [DONE]' || line === 'data:[DONE]') this.sawEnd = true;
      else if (line.startsWith('data: [ERROR]') || line.startsWith('data:[ERROR]')) {
        this.sawEnd = true;
        this.#error ??= this.#lineStart;
      }
    } else if (line.charCodeAt(0) === 101 /* e */) {
      // An answer event after a response makes that response not the last: the response follows the last answer.
      if (line === 'event: answer' || line === 'event:answer') this.#response = undefined;
      else if (line === 'event: endpoin' || line === 'event:endpoint') this.#response ??= this.#lineStart;
    }
  }
}
