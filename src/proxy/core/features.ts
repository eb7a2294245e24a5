import { FEATURES_MAX_AGE_SECONDS, ORIGIN_NOT_ALLOWED, originNotAllowedMessage, type ProxyFeatures } from '../../protocol/index.js';
import { corsHeaders, type OriginDecision } from './origin.js';
import { errorAnswer, jsonAnswer, type ProxyAnswer } from './responses.js';
import type { ResolvedOptions } from './options.js';

/**
 * `GET /features` (src/protocol/features.ts): what this proxy serves, in every mode, for a browser to keep a day.
 * A page whose origin is refused gets a refusal it can read (its origin allowed on this answer only), naming that
 * origin and the setting, so the chat tells the developer what to fix where it would otherwise see a CORS failure.
 */
export function featuresAnswer(method: string, pageOrigin: string | null, origin: OriginDecision, options: ResolvedOptions): ProxyAnswer {
  const upper = method.toUpperCase();
  if (upper !== 'GET') {
    const cors = origin.allowed ? corsHeaders(origin.allowOrigin) : {};
    // A simple GET needs no preflight; one that comes anyway (a page that added a header) is told GET only.
    if (upper === 'OPTIONS' && origin.allowed) return { status: 204, headers: { ...cors, 'Access-Control-Allow-Methods': 'GET', 'Access-Control-Max-Age': '600', Allow: 'GET, OPTIONS' }, body: null };
    return errorAnswer(405, 'Only GET is allowed here.', { ...cors, Allow: 'GET, OPTIONS' });
  }
  // A browser sends no Origin with a same-origin GET (a proxy mounted on the site's own origin), nor does a server:
  // what the proxy serves is no secret, so they are answered; a page whose Origin is refused is told so.
  if (!origin.allowed && pageOrigin) {
    options.log('info', `refused: ${origin.reason}`, { route: 'features', status: 403, origin: pageOrigin?.slice(0, 200) });
    // Readable by the refused page, and never kept: once the operator allows it, the page's next load sees it.
    const named = /^[\x21-\x7e]{1,200}$/.test(pageOrigin) ? pageOrigin : null;
    const readable: Record<string, string> = named ? { 'Access-Control-Allow-Origin': named, Vary: 'Origin' } : { Vary: 'Origin' };
    return errorAnswer(403, originNotAllowedMessage(named), readable, ORIGIN_NOT_ALLOWED);
  }
  const features: ProxyFeatures = { sessions: options.sessions !== undefined, feedback: false };
  return jsonAnswer(200, features, { ...corsHeaders(origin.allowed ? origin.allowOrigin : undefined), 'Cache-Control': `max-age=${FEATURES_MAX_AGE_SECONDS}` });
}
