import { createParser } from 'eventsource-parser';
import { AgentStreamDecoder, type AgentStreamEvent, type StreamMessage } from './stream.js';

/**
 * Reads an event-stream body (bytes as they arrive from the network) as
 * typed agent events. Multi-byte characters split across chunks are joined
 * before parsing. It ends after `done` or `error`; a body that closes before
 * `[DONE]` ends with an `INCOMPLETE_STREAM` error. Web-standard streams only,
 * so it runs in browsers, Node, Deno, Bun and Workers alike.
 */
export async function* readAgentStream(body: ReadableStream<Uint8Array>): AsyncGenerator<AgentStreamEvent, void, undefined> {
  const decoder = new AgentStreamDecoder();
  const pending: StreamMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const text = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        // A last `data: [ERROR]...` may close the connection without its line end or blank line.
        parser.feed(`${text.decode()}\n\n`);
      } else {
        parser.feed(text.decode(value, { stream: true }));
      }
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
