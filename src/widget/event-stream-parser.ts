import type { StreamMessage } from '../protocol/index.js';

/**
 * Splits an event stream, as text arrives, into messages, following the HTML
 * standard's event-stream interpretation for what the service sends: lines
 * end in CR, LF or CRLF (also across pieces), `data` lines join with a line
 * feed, `event` names the message, a blank line dispatches it (none without
 * a `data` line), and one space after the colon is dropped. Comments and
 * other fields (`id`, `retry`) are passed over: they only matter to a client
 * that reconnects, and the chat never asks twice. The text must come through
 * a `TextDecoder`, which drops a byte order mark.
 *
 * (A parser of its own: fetch-event-source and eventsource-parser each cost
 * the chat's second part about 1 KB gzipped, this one a quarter of that.)
 */
export function eventStreamParser(onMessage: (message: StreamMessage) => void): (text: string) => void {
  let partial = '';
  let event = '';
  let data: string | undefined;
  return (text) => {
    if (!/[\r\n]/.test(text)) {
      partial += text;
      return;
    }
    let lines = partial + text;
    // A CR ending the piece may be the first half of a CRLF: it waits for the next piece.
    const heldCr = lines.endsWith('\r');
    const split = (heldCr ? lines.slice(0, -1) : lines).split(/\r\n?|\n/);
    partial = split.pop()! + (heldCr ? '\r' : '');
    for (const line of split) {
      if (!line) {
        if (data !== undefined) onMessage({ event, data: data.slice(0, -1) });
        event = '';
        data = undefined;
        continue;
      }
      const colon = line.indexOf(':');
      if (colon === 0) continue;
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
      if (field === 'data') data = `${data ?? ''}${value}\n`;
      else if (field === 'event') event = value;
    }
  };
}
