// A small stand-in that plays the service's part for cases the emulator
// can't produce: exact byte streams cut at awkward places, delays, failures.
// Served over real HTTP (srvx in Node tests, web-test-runner's server in
// browser tests). Each scenario is named in the path: /scripted/<name>/...
import { DONE_EVENT, EVENT_STREAM_HEADERS, answerEvent, endpointResponseEvent, errorLine, toolCallEvent } from '../../src/protocol/index.js';

export const SAMPLE_ANSWER = {
  messageId: 'msg_1',
  answer: 'Hello, world!\n\n- 100% ✓ 🎉',
  conversationId: 'conv_1',
  visitorId: 'visitor_1',
  sources: [{ datasource_id: 'ds_1', datasource_name: 'Guide.pdf', source_url: 'https://example.com/guide.pdf', page_number: 3, score: 0.91 }],
  metadata: {},
};

/** The sample answer as the service streams it, split into network chunks at awkward places. */
export function sampleStreamChunks(): string[] {
  const wire =
    answerEvent('Hello, ') +
    answerEvent('') +
    answerEvent('world!\n\n- 100% ') +
    toolCallEvent({ type: 'function', name: 'search', arguments: { q: 'x' } }) +
    answerEvent('✓ 🎉') +
    endpointResponseEvent(JSON.stringify(SAMPLE_ANSWER)) +
    DONE_EVENT;
  // Cut every 7 characters: splits lines, events and (below, as bytes) characters.
  const chunks: string[] = [];
  for (let i = 0; i < wire.length; i += 7) chunks.push(wire.slice(i, i + 7));
  return chunks;
}

/** A streamed body written chunk by chunk, with a pause between chunks. */
export function streamResponse(chunks: (string | Uint8Array)[], { delayMs = 1, status = 200, headers = EVENT_STREAM_HEADERS } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
      controller.close();
    },
  });
  return new Response(body, { status, headers });
}

/** Splits text into byte chunks of `size`, cutting through multi-byte characters. */
export function byteChunks(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
  return chunks;
}

export { errorLine };
