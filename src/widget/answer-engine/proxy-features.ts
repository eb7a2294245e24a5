// Part of the answer engine (the chat's second part): what the proxy at an endpoint serves beyond questions (visitor
// sessions, answer feedback), learned with one simple GET per endpoint that the browser keeps a day
// (src/protocol/features.ts), so a page in front of kagent-proxy sees no failed request and no red console line.
import { FEATURES_ROUTE, NO_FEATURES, ORIGIN_NOT_ALLOWED, readErrorBody, readProxyFeatures, type ProxyFeatures } from '../../protocol/index.js';
import type { ChatFailure } from '../element/failure-kinds.js';

/** What the page learned of an endpoint: what it serves, and, where it refuses this page's origin, the failure every question meets. */
export interface EndpointFeatures {
  features: ProxyFeatures;
  refused?: ChatFailure;
  /** Not the endpoint's word but a passing failure (out of reach, a server error): asked again next time. */
  passing?: true;
}

const learned = new Map<string, Promise<EndpointFeatures>>();

/**
 * What the proxy at `endpoint` serves, asked once per endpoint on the page (and by the browser at most once a day):
 * all off where it does not answer as kagent-proxy does (a 404, a page, no answer), or where the page turned the
 * question off (`off`: the element's `proxy-features="off"`). Never rejects.
 */
export function learnFeatures(endpoint: string, off = false): Promise<EndpointFeatures> {
  const base = endpoint.replace(/\/+$/, '');
  if (off) return Promise.resolve({ features: NO_FEATURES });
  let known = learned.get(base);
  if (!known) learned.set(base, (known = ask(base)));
  return known;
}

/** `proxyFeatures(endpoint)`: for engine code that needs only what is on (the answer feedback buttons, say). */
export async function proxyFeatures(endpoint: string, off = false): Promise<ProxyFeatures> {
  return (await learnFeatures(endpoint, off)).features;
}

async function ask(base: string): Promise<EndpointFeatures> {
  let answer: Response;
  try {
    // A simple request (no custom header), so no preflight: the browser sends it as it is and may answer from its cache.
    answer = await fetch(base + FEATURES_ROUTE);
  } catch {
    // Out of reach: all off for now, and the next question asks again.
    learned.delete(base);
    return { features: NO_FEATURES, passing: true };
  }
  // Not JSON (a page: a host's catch-all route, such as a single-page app's fallback to its index.html): all off.
  const body: unknown = await answer.json().catch(() => undefined);
  if (answer.ok) return { features: readProxyFeatures(body) };
  const { code, message } = readErrorBody(body);
  if (answer.status === 403 && code === ORIGIN_NOT_ALLOWED) {
    // For the site's developer, once per endpoint: the proxy's words name this page's origin and the setting to change.
    console.warn(`kagent-chat: ${base}: ${message}`);
    return { features: NO_FEATURES, refused: { kind: 'unauthorized', status: 403, code } };
  }
  // A service that is not kagent-proxy answers 404 (taken as said); a server error may pass (asked again next time).
  if (answer.status < 500) return { features: NO_FEATURES };
  learned.delete(base);
  return { features: NO_FEATURES, passing: true };
}
