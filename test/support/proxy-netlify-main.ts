// Entry the runtime tests bundle and run with `deno run`: Netlify Edge Functions
// run on Deno, with a `Netlify.env` global and the visitor's address in
// `context.ip`. Both are given here as Netlify gives them; the handler is the
// Netlify entry's, unchanged. Prints the port as JSON.
import { createNetlifyHandler } from '../../src/proxy/runtimes/netlify.js';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { hostname: string; port: number; onListen(address: { port: number }): void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Promise<Response>,
  ): unknown;
};

(globalThis as { Netlify?: unknown }).Netlify = { env: { toObject: () => Deno.env.toObject() } };
const edgeFunction = createNetlifyHandler();

Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(JSON.stringify({ listening: port })) }, (request, info) =>
  edgeFunction(request, { ip: info.remoteAddr.hostname }),
);
