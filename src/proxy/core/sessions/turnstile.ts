// Cloudflare Turnstile's server-side check of a visitor's token, failing closed:
// no answer, a wrong answer or a token for another site all refuse.

export type TurnstileVerdict = { ok: true } | { ok: false; unavailable: boolean; reason: string };

export interface TurnstileCheck {
  secret: string;
  verifyUrl: string;
  token: string;
  /** The visitor's address, when known: Cloudflare weighs it in. */
  remoteIp: string | undefined;
  /** Hostnames the token may have been solved on: those of the allowed origins. */
  hostnames: ReadonlySet<string>;
  fetch: typeof fetch;
  timeoutMs: number;
}

/** Asks Cloudflare (or `verifyUrl`) whether `token` is a fresh pass solved on one of `hostnames`. */
export async function verifyTurnstile(check: TurnstileCheck): Promise<TurnstileVerdict> {
  const form = new URLSearchParams({ secret: check.secret, response: check.token });
  if (check.remoteIp) form.set('remoteip', check.remoteIp);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), check.timeoutMs);
  let outcome: { success?: unknown; hostname?: unknown; 'error-codes'?: unknown };
  try {
    const response = await check.fetch(check.verifyUrl, { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual', signal: controller.signal });
    if (!response.ok) return { ok: false, unavailable: true, reason: `the verification endpoint answered ${response.status}` };
    outcome = (await response.json()) as typeof outcome;
  } catch (error) {
    return { ok: false, unavailable: true, reason: controller.signal.aborted ? `no answer within ${check.timeoutMs} ms` : `cannot reach the verification endpoint (${(error as Error).message})` };
  } finally {
    clearTimeout(timer);
  }
  if (!outcome || typeof outcome !== 'object') return { ok: false, unavailable: true, reason: 'the verification endpoint answered something else than JSON' };
  if (outcome.success !== true) {
    const codes = Array.isArray(outcome['error-codes']) ? outcome['error-codes'].filter((c) => typeof c === 'string').join(', ') : '';
    return { ok: false, unavailable: false, reason: `refused${codes ? `: ${codes}` : ''}` };
  }
  if (typeof outcome.hostname !== 'string' || !check.hostnames.has(outcome.hostname.toLowerCase())) {
    return { ok: false, unavailable: false, reason: `solved on ${typeof outcome.hostname === 'string' ? outcome.hostname.slice(0, 100) : 'an unknown host'}, not an allowed origin` };
  }
  return { ok: true };
}
