// Entry the runtime tests bundle and run with `deno run`: serves the proxy's
// Deno handler on a free port of 127.0.0.1 and prints the port as JSON.
import { createDenoHandler } from '../../src/proxy/runtimes/deno.js';

declare const Deno: {
  serve(options: { hostname: string; port: number; onListen(address: { port: number }): void }, handler: ReturnType<typeof createDenoHandler>): unknown;
};

Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(JSON.stringify({ listening: port })) }, createDenoHandler());
