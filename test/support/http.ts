// Serves a Web-standard handler over real HTTP on 127.0.0.1, on a free port.
import { createServer, type AddressInfo } from 'node:net';
import { serve } from 'srvx';

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

export async function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<TestServer> {
  const server = serve({
    fetch,
    port: 0,
    hostname: '127.0.0.1',
    silent: true,
    gracefulShutdown: false,
    error: (error) => new Response(`test server failed: ${String(error)}`, { status: 500 }),
  });
  await server.ready();
  const { port } = server.node!.server!.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close(true) };
}

/** A port free on 127.0.0.1 a moment ago, for a server that must be told its port (it can be taken before that server binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
