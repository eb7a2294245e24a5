// The real proxy with visitor sessions on (createProxy with a session secret), in
// front of the scripted service, on the test server's own origin: the widget meets
// the proxy's challenges, tokens and refusals as a page does.
import { createProxy, type ProxyHandler, type ProxyOptions } from '../../src/proxy/index.js';
import { MemoryRateLimitStore } from '../../src/proxy/stores/memory.js';
import { Sessions } from '../../src/proxy/core/sessions/index.js';
import { FEATURES_ROUTE, FEEDBACK_ROUTE, SESSION_HEADER, SESSION_ROUTES } from '../../src/protocol/index.js';
import { INSIGHTS_TOKEN } from './browser-proxy.js';
import { OTHER_SECRET, SESSION_SECRET } from './proxy-sessions.js';
import { sessionAudience } from '../../src/proxy/core/options.js';
import { SITE_KEYS } from './turnstile-script-stand-in.js';
import { TURNSTILE_PASS, startTurnstileStandIn, type TurnstileOutage, type TurnstileStandIn } from './turnstile-stand-in.js';

type Scenario = (scenario: string, agentId: string, request: Request) => Promise<Response>;

/** Little work per challenge (a few dozen PBKDF2 derivations): the tests are about the protocol, not the cost. */
const DIFFICULTY = 0.05;

/**
 * The proxies' settings, by name (the path's first segment):
 * - `on`: sessions on, no per-session limit; `off`: no secret (the features route says so, the challenge route is a 404);
 *   `fallback`: no secret, behind a host whose catch-all route answers the features and challenge routes with the site's page;
 * - `limited`: 4 questions per session per 5 minutes; `budget`: a daily budget of 1 question (`budgetOff`: with sessions off);
 * - `refusing`: every token a query carries is spoiled on the way in, so the proxy refuses each (SESSION_INVALID);
 * - `mintLimited`: one session per address an hour, and tokens spoiled as `refusing`'s: the renewal is refused (SESSION_MINT_LIMITED);
 * - `slow`: a challenge that takes minutes to solve;
 * - `held`: sessions on, and the service's answer held after its first words until the test releases it
 *   (the `held` scenario of test/support/browser-service.ts): the session's one stream stays open meanwhile;
 * - `turnstile`, `turnstileFail`, `turnstileInteractive`: the human check on, with the test site key that
 *   always passes, always fails, or needs the visitor to tick a box (test/support/turnstile-script-stand-in.ts),
 *   passes verified by the stand-in of Cloudflare's siteverify (test/support/turnstile-stand-in.ts);
 * - `turnstileDown`, `turnstileUnreachable`: the human check on (passing), but that siteverify answers 503, or drops
 *   the connection, for this test's scope until it is lifted (`POST /scripted/sessions-siteverify-up/<scope>`);
 * - `insights`: sessions and insights on (feedback at `POST .../feedback`, the report at `GET .../insights` with `INSIGHTS_TOKEN`).
 */
const PRESETS: Record<string, Partial<ProxyOptions>> = {
  on: {},
  refusing: {},
  off: { sessionSecret: undefined },
  // Sessions off, behind a host whose catch-all route answers any other path with the site's page (a single-page app's fallback).
  fallback: { sessionSecret: undefined },
  limited: { perSessionLimit: { max: 4, windowSeconds: 300 } },
  budget: { dailyBudget: 1 },
  budgetOff: { sessionSecret: undefined, dailyBudget: 1 },
  mintLimited: { sessionsPerAddress: { max: 1, windowSeconds: 3600 } },
  slow: { sessionDifficulty: 5000 },
  held: {},
  turnstile: { turnstileSecret: TURNSTILE_PASS, turnstileSiteKey: SITE_KEYS.pass },
  turnstileFail: { turnstileSecret: TURNSTILE_PASS, turnstileSiteKey: SITE_KEYS.fail },
  turnstileInteractive: { turnstileSecret: TURNSTILE_PASS, turnstileSiteKey: SITE_KEYS.interactive },
  turnstileDown: { turnstileSecret: TURNSTILE_PASS, turnstileSiteKey: SITE_KEYS.pass },
  turnstileUnreachable: { turnstileSecret: TURNSTILE_PASS, turnstileSiteKey: SITE_KEYS.pass },
  insights: { insights: true, adminToken: INSIGHTS_TOKEN },
};

/** The presets whose siteverify is out, from the scope's first request until the test lifts it. */
const OUTAGES: Record<string, TurnstileOutage> = { turnstileDown: 'down', turnstileUnreachable: 'unreachable' };

/** The stand-in of Cloudflare's siteverify, started on first need; a pass names the hostname of the scope's page. */
let siteverify: Promise<TurnstileStandIn> | undefined;

/** Stops the stand-in of Cloudflare's siteverify, if started (a Node test of these routes ends with it; the test server never does). */
export async function stopSiteverify(): Promise<void> {
  const started = siteverify;
  siteverify = undefined;
  await (await started)?.close();
}

/** What one test's proxy saw: each POST's route, the token it carried (a session request: its Turnstile token, if any), and the status it answered; and the status of each GET of the features route. */
interface SessionLog {
  requests: { route: 'challenge' | 'session' | 'query' | 'feedback'; token: string | null; status: number }[];
  features: number[];
}

const proxies = new Map<string, ProxyHandler>();
const logs = new Map<string, SessionLog>();
const logOf = (scope: string) => {
  let log = logs.get(scope);
  if (!log) logs.set(scope, (log = { requests: [], features: [] }));
  return log;
};

function proxyFor(preset: string, scope: string, scenario: Scenario, secret = SESSION_SECRET, verifyUrl?: string): ProxyHandler {
  const key = `${preset}/${scope}`;
  let proxy = proxies.get(key);
  if (!proxy) {
    proxy = createProxy({
      apiKey: 'browser-test-key',
      upstreamUrl: 'http://scripted-service.invalid',
      agentIds: [scope],
      allowedOrigins: '*',
      allowRequestsWithoutOrigin: true,
      basePath: `/scripted/sessions/${preset}/${scope}`,
      perAddressLimit: false,
      perVisitorLimit: false,
      sessionSecret: secret,
      sessionDifficulty: DIFFICULTY,
      sessionsPerAddress: false,
      perSessionLimit: false,
      log: false,
      // The scripted service's plain answer, counted per agent id (GET /scripted/widget-log/<scope>).
      fetch: async (input, init) => (verifyUrl && String(input) === verifyUrl ? fetch(input, init) : scenario(preset === 'held' ? 'held' : 'answer', scope, new Request(input, init))),
      ...PRESETS[preset],
      ...(PRESETS[preset]?.turnstileSecret ? { turnstileVerifyUrl: verifyUrl } : {}),
    });
    proxies.set(key, proxy);
  }
  return proxy;
}

/**
 * `/scripted/sessions/<preset>/<scope>/...`: the proxy of `preset` for one test (`scope` is its agent id);
 * `GET /scripted/sessions-log/<scope>`: what reached it;
 * `POST /scripted/sessions-rotate/<preset>/<scope>`: the operator replaces the secret without keeping the old one (its tokens are refused);
 * `GET /scripted/sessions-token/<scope>?age=<seconds>&origin=<page origin>`: a token signed with the proxies' secret, minted `age` seconds ago (30-minute tokens: an age over 1800 is expired);
 * `POST /scripted/sessions-siteverify-up/<scope>`: the outage of the scope's siteverify (`turnstileDown`, `turnstileUnreachable`) is over.
 */
export async function sessionRoute(path: string, request: Request, scenario: Scenario): Promise<Response | undefined> {
  const log = /^\/scripted\/sessions-log\/([\w-]+)$/.exec(path);
  if (log) return Response.json(logOf(log[1]!));
  const rotate = /^\/scripted\/sessions-rotate\/(\w+)\/([\w-]+)$/.exec(path);
  if (rotate && request.method === 'POST') {
    proxies.delete(`${rotate[1]}/${rotate[2]}`);
    proxyFor(rotate[1]!, rotate[2]!, scenario, OTHER_SECRET, (await siteverify)?.urlFor(rotate[2]!));
    return Response.json({ rotated: true });
  }
  const up = /^\/scripted\/sessions-siteverify-up\/([\w-]+)$/.exec(path);
  if (up && request.method === 'POST') {
    (await siteverify)?.outages.delete(up[1]!);
    return Response.json({ up: true });
  }
  const minted = /^\/scripted\/sessions-token\/([\w-]+)$/.exec(path);
  if (minted) {
    const age = Number(new URL(request.url).searchParams.get('age') ?? 0);
    const sessions = new Sessions({ secrets: [SESSION_SECRET], audience: sessionAudience([minted[1]!]), tokenSeconds: 1800, difficulty: DIFFICULTY, perSessionLimit: false, sessionsPerAddress: false }, new MemoryRateLimitStore());
    const origin = new URL(request.url).searchParams.get('origin') ?? new URL(request.url).origin;
    return Response.json({ token: (await sessions.grant(origin, Date.now() - age * 1000)).token });
  }
  const routed = /^\/scripted\/sessions\/(\w+)\/([\w-]+)(\/.*)$/.exec(path);
  if (!routed || !(routed[1]! in PRESETS)) return undefined;
  const [, preset, scope, rest] = routed as unknown as [string, string, string, string];
  const route = rest === SESSION_ROUTES.challenge ? 'challenge' : rest === SESSION_ROUTES.session ? 'session' : rest === FEEDBACK_ROUTE ? 'feedback' : 'query';
  let token = request.headers.get(SESSION_HEADER);
  if (route === 'session' && request.method === 'POST') token = ((await request.clone().json().catch(() => ({}))) as { turnstileToken?: string }).turnstileToken ?? null;
  let verifyUrl: string | undefined;
  if (PRESETS[preset]!.turnstileSecret) {
    const standIn = await (siteverify ??= startTurnstileStandIn(''));
    // This scope's own address: the browsers side by side share the stand-in, and must not set each other's hostname or outage.
    verifyUrl = standIn.urlFor(scope);
    // The page's hostname, from the page's Origin (which the proxy checks a pass against): a GET has none, and this
    // server's request URL names no page (test/support/koa-adapter.ts).
    const origin = request.headers.get('origin');
    if (origin && URL.canParse(origin)) standIn.hostnames.set(scope, new URL(origin).hostname);
    // Out from the moment this test's proxy is made, until the test lifts it.
    const outage = OUTAGES[preset];
    if (outage && !proxies.has(`${preset}/${scope}`)) standIn.outages.set(scope, outage);
  }
  let forwarded = request;
  if ((preset === 'refusing' || preset === 'mintLimited') && token && request.method === 'POST') {
    const headers = new Headers(request.headers);
    headers.set(SESSION_HEADER, `${token}spoiled`);
    forwarded = new Request(request.url, { method: 'POST', headers, body: await request.text() });
  }
  const features = rest.toLowerCase() === FEATURES_ROUTE && request.method === 'GET';
  const response =
    preset === 'fallback' && (route === 'challenge' || features)
      ? new Response('<!doctype html><title>The site</title><div id="app"></div>', { headers: { 'Content-Type': 'text/html; charset=utf-8' } })
      : await proxyFor(preset, scope, scenario, SESSION_SECRET, verifyUrl)(forwarded);
  if (request.method === 'POST') logOf(scope).requests.push({ route, token, status: response.status });
  if (features) logOf(scope).features.push(response.status);
  return response;
}
