// Serves a Web-standard handler from web-test-runner's Koa server, so browser
// tests talk to a real HTTP endpoint on the same origin.
import { Readable } from 'node:stream';
import type { Context, Next } from 'koa';

export type FetchHandler = (request: Request) => Response | Promise<Response>;

export function koaMiddleware(prefix: string, handler: FetchHandler) {
  return async (ctx: Context, next: Next) => {
    if (!ctx.path.startsWith(prefix)) return next();
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(ctx.req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const method = ctx.method.toUpperCase();
    const request = new Request(new URL(ctx.url, 'http://127.0.0.1'), {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
    });
    const response = await handler(request);
    ctx.status = response.status;
    response.headers.forEach((value, name) => ctx.set(name, value));
    // Koa would otherwise buffer or compress; the client must see events as they are written.
    ctx.compress = false;
    ctx.body = response.body ? Readable.fromWeb(response.body as never) : '';
  };
}
