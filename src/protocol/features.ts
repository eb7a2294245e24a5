// What a kagent-proxy serves beyond the service's routes: the proxy's own contract with its pages, not the
// service's. A page learns it with one simple request (GET, no custom header: no preflight) that a browser
// keeps for a day, so a proxy without visitor sessions costs a page no failed request and no red console line.

/** Where a page asks what the proxy serves, under the proxy's base path: `GET`, answered in every mode. */
export const FEATURES_ROUTE = '/features';

/** What a proxy serves beyond the service's own routes, as its features route says. */
export interface ProxyFeatures {
  /** Visitor sessions are on: every query needs a session token (`SESSION_ROUTES`, `SESSION_HEADER`). */
  sessions: boolean;
  /** Answer feedback is taken at `{endpoint}/feedback`. */
  feedback: boolean;
}

/** All off: what a page takes of an endpoint that does not answer the features route as kagent-proxy does. */
export const NO_FEATURES: ProxyFeatures = { sessions: false, feedback: false };

/** How long a browser may keep the features route's answer, in seconds: a day (a query refused for want of a session corrects a stale one). */
export const FEATURES_MAX_AGE_SECONDS = 86_400;

/**
 * 403 on the features route: the page's origin is not one the proxy allows. Unlike the other routes' refusals,
 * this one the page can read (it carries `Access-Control-Allow-Origin` for the page), so the chat can tell the
 * developer what to set instead of failing as a network error would.
 */
export const ORIGIN_NOT_ALLOWED = 'ORIGIN_NOT_ALLOWED';

/** The refusal's message for the developer: the page's origin and the setting that allows it. */
export function originNotAllowedMessage(origin: string | null): string {
  return origin
    ? `this proxy does not allow pages from ${origin}: add ${origin} to its KAGENT_ALLOWED_ORIGINS (the allowedOrigins option), then restart it`
    : `this proxy does not allow pages from this origin: add it to its KAGENT_ALLOWED_ORIGINS (the allowedOrigins option), then restart it`;
}

/** The features route's answer as a page reads it: each feature `true` only where the answer says so; anything else, all off. */
export function readProxyFeatures(body: unknown): ProxyFeatures {
  const said = (body && typeof body === 'object' ? body : {}) as Partial<Record<keyof ProxyFeatures, unknown>>;
  return { sessions: said.sessions === true, feedback: said.feedback === true };
}
