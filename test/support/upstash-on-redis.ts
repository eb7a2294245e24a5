// A stand-in for the hosted Upstash REST API (which cannot be reached from here): an HTTP server taking Upstash's
// REST form (POST the command as a JSON array, `Authorization: Bearer <token>`, answered `{ result }` or
// `{ error }`) and running each command on a real redis-server, as Upstash runs it on its Redis.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@redis/client';

export interface UpstashOnRedis {
  url: string;
  /** Commands run, by name (`EVAL`, ...). */
  commands: string[];
  close(): Promise<void>;
}

/** Serves Upstash's REST form for `token` on a free port of 127.0.0.1, its commands run on the Redis at `redisUrl`. */
export async function startUpstashOnRedis(redisUrl: string, token: string): Promise<UpstashOnRedis> {
  // A command while Redis is away fails at once, as the hosted API answers an error, rather than waiting in a queue.
  const client = createClient({ url: redisUrl, disableOfflineQueue: true });
  client.on('error', () => {});
  await client.connect();
  const commands: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const send = (status: number, value: unknown) => response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
      if (request.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'Unauthorized' });
      const command = (JSON.parse(body) as unknown[]).map(String);
      commands.push(command[0]!.toUpperCase());
      client.sendCommand(command).then(
        (result) => send(200, { result }),
        (error: Error) => send(400, { error: error.message }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    commands,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      // At once, whether or not Redis is up: a graceful quit would wait for a Redis that may be gone.
      client.destroy();
    },
  };
}
