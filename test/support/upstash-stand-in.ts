// A stand-in for @upstash/redis in the Cloudflare recipe's run: the hosted
// Upstash API cannot be reached from here, so this client speaks Upstash's REST
// form (POST the command as a JSON array, `Authorization: Bearer <token>`,
// answer `{ result }`) to the local server the test runs in its place.
export class Redis {
  readonly #url: string;
  readonly #token: string;

  constructor(config: { url: string; token: string }) {
    this.#url = config.url;
    this.#token = config.token;
  }

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    const response = await fetch(this.#url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.#token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(['EVAL', script, keys.length, ...keys, ...args]),
    });
    const body = (await response.json()) as { result?: unknown; error?: string };
    if (!response.ok || body.error) throw new Error(body.error ?? `Upstash stand-in answered ${response.status}`);
    return body.result;
  }
}
