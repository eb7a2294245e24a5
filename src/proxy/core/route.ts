import { FEATURES_ROUTE } from '../../protocol/index.js';
import { memoized } from './memo.js';
import type { ResolvedOptions, RouteKind } from './options.js';

/** A request the proxy may forward: which query, on which id, in which path form. */
export interface Route {
  kind: RouteKind;
  id: string;
  /** The visitor used the `/v1/...` form; the service is asked in the same form. */
  versioned: boolean;
}

/** A visitor-session request (with sessions on): a new challenge, or a solved one turned into a session. */
export interface SessionRoute {
  kind: 'session';
  id: 'challenge' | 'session';
  versioned: false;
}

/** `GET /features`: what the proxy serves (src/protocol/features.ts), answered in every mode, by any method (features.ts tells them apart). */
export interface FeaturesRoute {
  kind: 'features';
}

export type RouteMatch = { ok: true; route: Route | SessionRoute | FeaturesRoute; preflight: boolean } | { ok: false; status: 404 | 405 };

type RouteOptions = Pick<ResolvedOptions, 'basePath' | 'agentIds' | 'datastoreIds' | 'sessions'>;

/**
 * Matches a request path against the allowed routes after normalising it:
 * dot segments resolved (by URL parsing), empty segments (double slashes)
 * dropped, each segment percent-decoded once, route words matched in any case.
 * A segment that decodes to a slash, a backslash, a dot segment or a control
 * character can only be a trick and matches nothing. Ids match exactly.
 */
export function matchRoute(method: string, pathname: string, options: RouteOptions): RouteMatch {
  // The same few paths come again and again: their route is worked out once (per set of options).
  let routeFor = known.get(options);
  if (!routeFor) known.set(options, (routeFor = memoized((path) => routeOf(path, options), { maxKeys: 1000, maxKeyLength: 256 })));
  const route = routeFor(pathname);
  if (!route) return { ok: false, status: 404 };
  const upper = method.toUpperCase();
  if (route === FEATURES) return { ok: true, route, preflight: upper === 'OPTIONS' };
  if (upper === 'POST') return { ok: true, route, preflight: false };
  if (upper === 'OPTIONS') return { ok: true, route, preflight: true };
  return { ok: false, status: 405 };
}

const known = new WeakMap<object, (pathname: string) => Route | SessionRoute | FeaturesRoute | undefined>();

function routeOf(pathname: string, options: RouteOptions): Route | SessionRoute | FeaturesRoute | undefined {
  const segments = decodeSegments(pathname);
  if (!segments) return undefined;
  const { basePath } = options;
  for (let i = 0; i < basePath.length; i++) if (segments[i]?.toLowerCase() !== basePath[i]) return undefined;
  const rest = segments.slice(basePath.length);
  const words = rest.map((s) => s.toLowerCase());

  if (words.length === 1 && '/' + words[0] === FEATURES_ROUTE) return FEATURES;
  if (options.sessions && words[0] === 'sessions') {
    if (words.length === 1) return SESSION_ROUTE;
    if (words.length === 2 && words[1] === 'challenge') return CHALLENGE_ROUTE;
    return undefined;
  }
  let route: Route | undefined;
  const versioned = words[0] === 'v1';
  const parts = versioned ? rest.slice(1) : rest;
  const partWords = versioned ? words.slice(1) : words;
  if (parts.length === 3 && partWords[2] === 'query') {
    const id = parts[1]!;
    if (partWords[0] === 'agents' && options.agentIds.has(id)) route = { kind: 'agent', id, versioned };
    else if (partWords[0] === 'datastores' && !versioned && options.datastoreIds.has(id)) route = { kind: 'datastore', id, versioned };
  }
  return route;
}

const FEATURES: FeaturesRoute = { kind: 'features' };
const SESSION_ROUTE: SessionRoute = { kind: 'session', id: 'session', versioned: false };
const CHALLENGE_ROUTE: SessionRoute = { kind: 'session', id: 'challenge', versioned: false };

/** The service's path for a route, under the upstream address's own path. */
export function upstreamPath(basePathname: string, route: Route): string {
  const base = basePathname.replace(/\/+$/, '');
  const collection = route.kind === 'agent' ? 'agents' : 'datastores';
  return `${base}${route.versioned ? '/v1' : ''}/${collection}/${encodeURIComponent(route.id)}/query`;
}

function decodeSegments(pathname: string): string[] | undefined {
  const segments: string[] = [];
  for (const raw of pathname.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '.' || segment === '..' || /[\/\\\x00-\x1f\x7f]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}
