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
