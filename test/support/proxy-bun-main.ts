// Entry the runtime tests bundle and run with `bun`: serves the proxy's Bun
// handler on a free port of 127.0.0.1 and prints the port as JSON.
import { createBunHandler } from '../../src/proxy/runtimes/bun.js';

declare const Bun: {
  serve(options: { hostname: string; port: number; fetch: ReturnType<typeof createBunHandler> }): { port: number };
};

const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createBunHandler() });
console.log(JSON.stringify({ listening: server.port }));
