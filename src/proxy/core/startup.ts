import type { ProxyOptions } from './options.js';

/** What the operator reads when the proxy starts: which agents, which pages, whether visitor sessions are on. */
export interface ProxySummary {
  /** One line: `agents a1, a2; pages from https://www.example.com; visitor sessions off`. */
  text: string;
  agents: readonly string[];
  datastores: readonly string[];
  allowedOrigins: readonly string[] | '*';
  visitorSessions: 'on' | 'on, with Cloudflare Turnstile' | 'off';
  /** Settings that start but cannot serve a page as the operator likely meant, each naming the fix. */
  warnings: string[];
}

/** The start-up summary of options that passed `checkProxyOptions`. */
export function summarizeProxy(options: ProxyOptions): ProxySummary {
  const allowedOrigins = options.allowedOrigins ?? [];
  const anyOrigin = allowedOrigins === '*' || allowedOrigins.includes('*');
  const visitorSessions = options.sessionSecret === undefined ? 'off' : options.turnstileSecret === undefined ? 'on' : 'on, with Cloudflare Turnstile';
  const pages = anyOrigin ? 'pages from any origin' : allowedOrigins.length ? `pages from ${allowedOrigins.join(', ')}` : 'no page (no origin allowed)';
  const warnings: string[] = [];
  if (!anyOrigin && allowedOrigins.length === 0) {
    // The proxy starts (a server-side caller may need no page), but every page's chat would be refused.
    warnings.push(`no origin is allowed, so every page's chat is refused: set KAGENT_ALLOWED_ORIGINS (the allowedOrigins option) to your site's origin, e.g. KAGENT_ALLOWED_ORIGINS=https://www.example.com`);
  }
  const datastores = options.datastoreIds ?? [];
  return {
    text: `agents ${options.agentIds.join(', ')}${datastores.length ? `; datastores ${datastores.join(', ')}` : ''}; ${pages}; visitor sessions ${visitorSessions}`,
    agents: options.agentIds,
    datastores,
    allowedOrigins: anyOrigin ? '*' : allowedOrigins,
    visitorSessions,
    warnings,
  };
}
