// fetch-event-source's parser, not its fetch: that one is browser-only and re-sends the request on errors.
import { getLines, getMessages, type EventSourceMessage } from '@microsoft/fetch-event-source/lib/esm/parse.js';
import { AgentStreamDecoder, type AgentStreamEvent } from './stream.js';

/** Two line ends: what closes an event the server did not close itself. */
const END = new Uint8Array([10, 10]);
const ignore = () => {};

/**
 * Reads an event-stream body (bytes as they arrive from the network) as
 * typed agent events: the one reader of the answer stream, for the chat, the
 * client and the tests. Lines are cut with fetch-event-source's parser, so
 * multi-byte characters split across chunks come out whole. It ends after
 * `done` or `error` (and stops the download); a body that closes before
 * `[DONE]` ends with an `INCOMPLETE_STREAM` error, and a body that fails
 * (the connection broke, the reader aborted) throws. Web-standard streams
 * only, so it runs in browsers, Node, Deno, Bun and Workers alike.
 */
export async function* readAgentStream(body: ReadableStream<Uint8Array>): AsyncGenerator<AgentStreamEvent, void, undefined> {
  const decoder = new AgentStreamDecoder();
  const pending: EventSourceMessage[] = [];
  const feed = getLines(getMessages(ignore, ignore, (message) => pending.push(message)));
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // A last `data: [ERROR]...` may close the connection without its line end or blank line.
      feed(done ? END : value);
      for (const message of pending.splice(0)) {
        const event = decoder.push(message);
        if (event) yield event;
        if (decoder.finished) return;
      }
      if (done) {
        const incomplete = decoder.end();
        if (incomplete) yield incomplete;
        return;
      }
    }
  } finally {
    // Stops the download when the caller stops early or the stream finished before EOF.
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
