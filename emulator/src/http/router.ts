/** A route: its method, its path pattern (`/agents/:id/query`) and what answers it. */
export interface Route<H> {
  method: string;
  pattern: string;
  handler: H;
}

export type Match<H> = { kind: 'found'; handler: H; params: Record<string, string> } | { kind: 'method'; allow: string[] } | { kind: 'none' };

/**
 * Matches a request path against the routes, with and without the `/v1`
 * prefix. Path segments are decoded, so `%2E` in an id is a dot.
 */
export function matchRoute<H>(routes: readonly Route<H>[], method: string, pathname: string): Match<H> {
  let segments: string[];
  try {
    segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return { kind: 'none' };
  }
  if (segments[0] === 'v1') segments = segments.slice(1);
  const allow = new Set<string>();
  for (const route of routes) {
    const params = matchPattern(route.pattern, segments);
    if (!params) continue;
    if (route.method === method) return { kind: 'found', handler: route.handler, params };
    allow.add(route.method);
  }
  return allow.size > 0 ? { kind: 'method', allow: [...allow] } : { kind: 'none' };
}

function matchPattern(pattern: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter(Boolean);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i]!;
    if (part.startsWith(':')) params[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}
