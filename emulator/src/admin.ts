import { existsSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import type { CreateKeyOptions, Emulator } from './emulator.js';

// The `kagent-emulator key` commands talk to a running emulator through a
// Unix socket in its data folder: whoever may read that folder may manage its
// keys, and a revocation takes effect at once. One JSON line each way.

export type AdminRequest = { op: 'createKey'; options: CreateKeyOptions } | { op: 'revokeKey'; idOrKey: string } | { op: 'listKeys' };
export type AdminReply = { ok: true; result: unknown } | { ok: false; error: string };

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'admin.sock');
}

export async function startAdminSocket(dataDir: string, emulator: Emulator, log: ((message: string) => void) | undefined): Promise<{ close(): Promise<void> } | undefined> {
  const path = adminSocketPath(dataDir);
  // Left by a killed emulator; the data folder's lock says none other runs.
  if (existsSync(path)) rmSync(path, { force: true });
  const server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end === -1) {
        if (buffer.length > 64 * 1024) socket.destroy();
        return;
      }
      const line = buffer.slice(0, end);
      answer(emulator, line).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
    });
    socket.on('error', () => socket.destroy());
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
  } catch (error) {
    // A path too long for a socket, say: the key commands then need the emulator stopped.
    log?.(`key commands of a running emulator are unavailable: ${(error as Error).message}`);
    return undefined;
  }
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}

async function answer(emulator: Emulator, line: string): Promise<AdminReply> {
  try {
    const request = JSON.parse(line) as AdminRequest;
    switch (request.op) {
      case 'createKey':
        return { ok: true, result: await emulator.createKey(request.options) };
      case 'revokeKey':
        return { ok: true, result: await emulator.revokeKey(request.idOrKey) };
      case 'listKeys':
        return { ok: true, result: emulator.listKeys() };
      default:
        return { ok: false, error: 'unknown operation' };
    }
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Sends one request to the emulator running on `dataDir`; `undefined` when none listens. */
export function askRunningEmulator(dataDir: string, request: AdminRequest): Promise<AdminReply | undefined> {
  const path = adminSocketPath(dataDir);
  if (!existsSync(path)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => (buffer += chunk));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(buffer) as AdminReply);
      } catch {
        reject(new Error('The running emulator sent an unreadable reply.'));
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') resolve(undefined);
      else reject(error);
    });
  });
}
