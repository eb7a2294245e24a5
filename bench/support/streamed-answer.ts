// A streamed answer as the service sends one, for the proxy benches: about 8,000 characters of markdown in 300
// answer events, then the whole answer with five sources in one endpoint_response event, then [DONE]: about 34 KB on
// the wire, sent in batches of events as a model's tokens arrive.
import { DONE_EVENT, answerEvent, endpointResponseEvent } from '../../src/protocol/index.js';

const WORDS = 'the proxy keeps your key on the server and passes each answer to the visitor as it streams, with its sources — résumé of a page'.split(' ');

/** The answer's text: paragraphs and a list, a few characters outside ASCII, cut into `fragments` pieces. */
function answerText(fragments: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < fragments; i++) {
    const words = Array.from({ length: 5 }, (_, w) => WORDS[(i * 7 + w * 3) % WORDS.length]).join(' ');
    pieces.push(i % 40 === 39 ? `${words}.\n\n` : i % 25 === 12 ? `\n- **${words}**` : `${words}, `);
  }
  return pieces;
}

const SOURCES = Array.from({ length: 5 }, (_, i) => ({
  chunk_id: `chunk_${i}_0f1e2d3c4b5a6978`,
  datasource_id: `ds_${i}_9a8b7c6d5e4f`,
  datasource_name: `Guide, part ${i + 1}: running the proxy`,
  datasource_type: 'web_page',
  source_url: `https://docs.example.com/guide/part-${i + 1}#running-the-proxy`,
  mime_type: 'text/html',
  score: 0.9 - i * 0.03,
}));

/** The events of one answer, in order, each as it goes on the wire. */
export function streamedAnswerEvents(fragments = 300): string[] {
  const pieces = answerText(fragments);
  const response = JSON.stringify({ messageId: 'msg_bench', answer: pieces.join(''), sources: SOURCES, conversationId: 'c', visitorId: 'v', metadata: {} });
  return [...pieces.map(answerEvent), endpointResponseEvent(response), DONE_EVENT];
}

/** The same answer in the writes a service makes, `eventsPerWrite` events each. */
export function streamedAnswerWrites(eventsPerWrite = 10): string[] {
  const events = streamedAnswerEvents();
  const writes: string[] = [];
  for (let at = 0; at < events.length; at += eventsPerWrite) writes.push(events.slice(at, at + eventsPerWrite).join(''));
  return writes;
}
