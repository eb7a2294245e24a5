import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { json } from '../http/responses.js';

let document: Promise<Record<string, unknown>> | undefined;

/**
 * `GET /openapi.json`: the interface as OpenAPI 3.1, the document kagent-chat
 * ships (`kagent-chat/openapi.json`), with this emulator as its server. Like
 * the stored files it needs no key, and any page may read it (API explorers).
 */
export async function getOpenApiDocument(url: URL): Promise<Response> {
  document ??= readFile(createRequire(import.meta.url).resolve('kagent-chat/openapi.json'), 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>);
  let loaded: Record<string, unknown>;
  try {
    loaded = await document;
  } catch (error) {
    document = undefined;
    throw error;
  }
  const servers = [
    { url: url.origin, description: 'This emulator, unversioned paths.' },
    { url: `${url.origin}/v1`, description: 'This emulator, the same paths under /v1.' },
  ];
  return json({ ...loaded, servers }, 200, { 'Access-Control-Allow-Origin': '*' });
}
