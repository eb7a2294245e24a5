import type { AddressInfo } from 'node:net';
import { serve } from 'srvx';
import { startAdminSocket } from './admin.js';
import { createEmulator, type DemoInfo, type Emulator } from './emulator.js';
import { errorResponse } from './http/responses.js';
import type { EmulatorOptions } from './options.js';

export interface StartOptions extends EmulatorOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningEmulator {
  /** The base address, e.g. `http://127.0.0.1:8787`. */
  url: string;
  demo: DemoInfo;
  /** The emulator itself: keys, `idle()`, the handler. */
  emulator: Emulator;
  close(): Promise<void>;
}

/**
 * Serves an emulator over HTTP on Node with srvx (answers stream as they are
 * written). With `dataDir`, the `kagent-emulator key` commands reach it
 * through a socket in that folder.
 */
export async function startEmulator(options: StartOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const emulator = createEmulator(options);
  const server = serve({
    fetch: (request) => emulator.fetch(request),
    // Only reached if srvx itself fails around the handler, which never throws.
    error: () => errorResponse(500, 'The emulator failed to answer this request.'),
    port: options.port ?? 0,
    hostname: host,
    silent: true,
    gracefulShutdown: false,
  });
  try {
    await server.ready();
  } catch (error) {
    await emulator.close();
    throw error;
  }
  const { port } = server.node!.server!.address() as AddressInfo;
  if (!isLoopback(host)) {
    const warn = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
    warn(listeningBeyondLoopbackWarning(host));
  }
  const admin = options.dataDir ? await startAdminSocket(options.dataDir, emulator, options.log) : undefined;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${port}`,
    demo: emulator.demo,
    emulator,
    async close() {
      await admin?.close();
      await server.close(true);
      await emulator.close();
    },
  };
}

/** Whether `host` only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare.endsWith('.localhost') || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare) || /^::ffff:127(?:\.\d{1,3}){3}$/.test(bare);
}

/** Said at start when the emulator can be reached from other machines. */
export function listeningBeyondLoopbackWarning(host: string): string {
  return (
    `Warning: the emulator listens on ${host}, so other machines can reach it. It is a test double: ` +
    'any caller with a key reaches its data, uploads are parsed, and web datasources make it fetch addresses. ' +
    'Listen on 127.0.0.1 (the default) unless you mean it.'
  );
}
