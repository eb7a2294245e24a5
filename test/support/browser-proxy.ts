// The real proxy (createProxy) in front of the scripted service, on the test
// server's own origin, so browser tests meet the proxy's own refusals.
import { createProxy, type ProxyHandler, type ProxyOptions } from '../../src/proxy/index.js';

type Scenario = (scenario: string, agentId: string, request: Request) => Promise<Response>;

/** The real proxy in front of the scripted service (whose address is a stand-in: `fetch` answers), logging nowhere. */
const scriptedProxy = (options: Omit<ProxyOptions, 'apiKey' | 'upstreamUrl'>): ProxyHandler =>
  createProxy({ apiKey: 'browser-test-key', upstreamUrl: 'http://scripted-service.invalid', log: false, ...options });

/** What reached the proxy for one agent: every body it was sent, and the status it answered. */
interface ProxyLog {
  requests: { body: unknown; status: number }[];
}
const logs = new Map<string, ProxyLog>();
const proxies = new Map<string, ProxyHandler>();

/** The log of `agentId` (created on first use). */
export function proxyLogOf(agentId: string): ProxyLog {
  let log = logs.get(agentId);
  if (!log) logs.set(agentId, (log = { requests: [] }));
  return log;
}

/**
 * `POST /scripted/proxy/<scenario>/agents/<agentId>/query`: the proxy with its
 * defaults (id rule, body checks), rate limits off, forwarding to `scenario`
 * of the scripted service through its `fetch` option.
 */
export async function proxiedQuery(scenarioName: string, agentId: string, request: Request, scenario: Scenario): Promise<Response> {
  const key = `${scenarioName}/${agentId}`;
  let proxy = proxies.get(key);
  if (!proxy) {
    proxy = scriptedProxy({
      agentIds: [agentId],
      allowedOrigins: '*',
      allowRequestsWithoutOrigin: true,
      basePath: `/scripted/proxy/${scenarioName}`,
      perAddressLimit: false,
      perVisitorLimit: false,
      fetch: async (input, init) => scenario(scenarioName, agentId, new Request(input, init)),
    });
    proxies.set(key, proxy);
  }
  const body = await request.clone().json().catch(() => undefined);
  const response = await proxy(request);
  proxyLogOf(agentId).requests.push({ body, status: response.status });
  return response;
}

const featureProxies = new Map<string, ProxyHandler>();

/** `GET /scripted/proxy/<scenario>/features`: the real proxy's features route under that base path (its defaults: sessions off). */
export function featuresOfProxy(scenarioName: string, request: Request): Promise<Response> {
  let proxy = featureProxies.get(scenarioName);
  if (!proxy) {
    proxy = scriptedProxy({ agentIds: ['features'], allowedOrigins: '*', basePath: `/scripted/proxy/${scenarioName}` });
    featureProxies.set(scenarioName, proxy);
  }
  return proxy(request);
}

const refusingProxies = new Map<string, ProxyHandler>();

/**
 * `/scripted/refusing/<agentId>/...`: the real proxy, allowing only https://www.example.com (not the test page's
 * origin), in front of the scripted service's plain answer; its log (`/scripted/proxy-log/<agentId>`) counts the POSTs.
 */
export async function refusingProxy(agentId: string, request: Request, scenario: Scenario): Promise<Response> {
  let proxy = refusingProxies.get(agentId);
  if (!proxy) {
    proxy = scriptedProxy({
      agentIds: [agentId],
      allowedOrigins: ['https://www.example.com'],
      basePath: `/scripted/refusing/${agentId}`,
      fetch: async (input, init) => scenario('answer', agentId, new Request(input, init)),
    });
    refusingProxies.set(agentId, proxy);
  }
  const response = await proxy(request);
  if (request.method === 'POST') proxyLogOf(agentId).requests.push({ body: undefined, status: response.status });
  return response;
}

/** The admin token of the insights proxies below: a browser test reads their report with it. */
export const INSIGHTS_TOKEN = 'browser-test-insights-token-5f0c9a2e7b41d836';

const insightsProxies = new Map<string, ProxyHandler>();

/**
 * `/scripted/insights/<agentId>/...`: the real proxy with insights on (`KAGENT_INSIGHTS=on` and an admin token), in front
 * of the scripted service's plain answer: it names each answer's question (`Kagent-Question-Id`), takes feedback at
 * `POST .../feedback`, and reports both at `GET .../insights` with `INSIGHTS_TOKEN`.
 */
export function insightsProxy(agentId: string, request: Request, scenario: Scenario): Promise<Response> {
  let proxy = insightsProxies.get(agentId);
  if (!proxy) {
    proxy = scriptedProxy({
      agentIds: [agentId],
      allowedOrigins: '*',
      allowRequestsWithoutOrigin: true,
      basePath: `/scripted/insights/${agentId}`,
      perAddressLimit: false,
      perVisitorLimit: false,
      insights: true,
      adminToken: INSIGHTS_TOKEN,
      fetch: async (input, init) => scenario('answer', agentId, new Request(input, init)),
    });
    insightsProxies.set(agentId, proxy);
  }
  return proxy(request);
}
