// Script the runtime tests bundle and run in `edge-runtime`, the runtime Vercel
// uses for Edge Functions locally. Vercel's edge network sets X-Real-IP on every
// request (overwriting a visitor's own); that is done here before the Vercel
// entry's handler, unchanged, sees the request.
import { createVercelHandler } from '../../src/proxy/runtimes/vercel.js';

interface FetchEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
declare function addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;

const handler = createVercelHandler();
addEventListener('fetch', (event) => {
  const headers = new Headers(event.request.headers);
  headers.set('x-real-ip', '127.0.0.1');
  event.respondWith(handler(new Request(event.request, { headers })));
});
