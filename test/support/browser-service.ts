// Routes that browser tests reach on web-test-runner's own origin, over real HTTP.
import { koaMiddleware } from './koa-adapter.js';
import { SAMPLE_ANSWER, byteChunks, sampleStreamChunks, streamResponse } from './scripted-service.js';

export function browserServiceMiddleware() {
  return koaMiddleware('/scripted/', async (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/scripted/stream/agents/a1/query') return streamResponse(sampleStreamChunks().flatMap((c) => byteChunks(c, 3)));
    if (path === '/scripted/json/agents/a1/query') return Response.json(SAMPLE_ANSWER);
    if (path === '/scripted/slow/agents/a1/query') {
      const chunks = Array.from({ length: 200 }, (_, i) => `event: answer\ndata: part${i}%20\n\n`);
      return streamResponse(chunks, { delayMs: 20 });
    }
    return Response.json({ error: { code: 'NOT_FOUND', message: `No scripted route ${path}` } }, { status: 404 });
  });
}
