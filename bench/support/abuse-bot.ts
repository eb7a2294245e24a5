// One process of the bot farm of bench/abuse.bench.ts: asks the proxy as many
// questions as it lets through from its share of the 127.0.0.x addresses, a new
// visitorId each time; with sessions on, it earns them by solving the challenges
// natively (node:crypto's PBKDF2, on libuv's threads, so its requests keep
// going while it solves). Prints what it did as one JSON line.
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { Agent, request } from 'node:http';
import { SESSION_ERROR_CODES, SESSION_HEADER, solveSessionChallenges, type ChallengeAnswer } from '../../src/protocol/index.js';

const target = new URL(process.env.ABUSE_PROXY_URL!);
const addresses = process.env.ABUSE_ADDRESSES!.split(',');
// The run's length from this bot's own start, so every bot asks for exactly as long.
const endAt = Date.now() + Number(process.env.ABUSE_SECONDS) * 1000;
const sessions = process.env.ABUSE_SESSIONS === 'on';
const path = process.env.ABUSE_PATH!;
const origin = process.env.ABUSE_ORIGIN!;
const concurrency = Number(process.env.ABUSE_CONCURRENCY ?? 8);

// A connection per request: while a bot solves (blocking its process), a kept-alive one would be closed under it.
const agent = new Agent({ keepAlive: false });
const counts = { asked: 0, answered: 0, refused: {} as Record<string, number>, sessions: 0, iterations: 0 };
const state = addresses.map((address) => ({ address, token: undefined as string | undefined, blockedUntil: 0, busy: false }));

function post(localAddress: string, route: string, body: unknown, token?: string): Promise<{ status: number; json: { error?: { code?: string } } & Record<string, unknown>; retryAfter: number }> {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { origin, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
  if (token) headers[SESSION_HEADER] = token;
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: route, method: 'POST', localAddress, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let json = {};
        try {
          json = JSON.parse(text) as object;
        } catch {
          // Not JSON: counted by its status.
        }
        resolve({ status: res.statusCode ?? 0, json, retryAfter: Number(res.headers['retry-after'] ?? 1) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function refused(code: string): void {
  counts.refused[code] = (counts.refused[code] ?? 0) + 1;
}

const pbkdf2Async = promisify(pbkdf2);

/** One native derivation, its iterations counted (the bench turns them into CPU seconds at this machine's measured speed). */
async function timedPbkdf2(password: Uint8Array, salt: Uint8Array, iterations: number, length: number): Promise<Uint8Array> {
  const key = await pbkdf2Async(password, salt, iterations, length, 'sha256');
  counts.iterations += iterations;
  return key;
}

/** Earns a session from `address`: challenge, native solve, mint. */
async function earn(slot: (typeof state)[number]): Promise<void> {
  const challenge = await post(slot.address, new URL('sessions/challenge', target).pathname, {});
  if (challenge.status !== 200) {
    refused(challenge.json.error?.code ?? String(challenge.status));
    slot.blockedUntil = Date.now() + challenge.retryAfter * 1000;
    return;
  }
  // Every part in turn, each derivation counted: the farm pays for the whole.
  const { challenges } = challenge.json as unknown as ChallengeAnswer;
  const solutions = await solveSessionChallenges(challenges, { deriveKey: timedPbkdf2 });
  const minted = await post(slot.address, new URL('sessions', target).pathname, { challenges, solutions });
  if (minted.status !== 201) {
    refused(minted.json.error?.code ?? String(minted.status));
    slot.blockedUntil = Date.now() + minted.retryAfter * 1000;
    return;
  }
  counts.sessions++;
  slot.token = minted.json.token as string;
}

/** The next address free to ask from, starting at `start`. */
function pick(start: number): (typeof state)[number] | undefined {
  const now = Date.now();
  for (let i = 0; i < state.length; i++) {
    const slot = state[(start + i) % state.length]!;
    if (!slot.busy && slot.blockedUntil <= now) return slot;
  }
  return undefined;
}

let turn = 0;

async function loop(): Promise<void> {
  while (Date.now() < endAt) {
    const slot = pick(turn++);
    if (!slot) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    slot.busy = true;
    try {
      if (sessions && !slot.token) await earn(slot);
      if (sessions && !slot.token) continue;
      // Asks from this address until something refuses: a session is used to its last question.
      while (Date.now() < endAt) {
        counts.asked++;
        const answer = await post(slot.address, path, { query: 'What does it cost?', visitorId: `bot-${Math.random().toString(36).slice(2)}` }, slot.token);
        if (answer.status === 200) {
          counts.answered++;
          continue;
        }
        const code = answer.json.error?.code ?? String(answer.status);
        refused(code);
        // A spent session: earn another. A limited address: come back when it says.
        if (code === SESSION_ERROR_CODES.limited || code === SESSION_ERROR_CODES.expired) slot.token = undefined;
        else slot.blockedUntil = Date.now() + answer.retryAfter * 1000;
        break;
      }
    } catch {
      refused('network');
    } finally {
      slot.busy = false;
    }
  }
}

const cpuAtStart = process.cpuUsage();
const startedAt = Date.now();
await Promise.all(Array.from({ length: concurrency }, loop));
const cpu = process.cpuUsage(cpuAtStart);
agent.destroy();
console.log(JSON.stringify({ ...counts, cpuSeconds: (cpu.user + cpu.system) / 1e6, activeSeconds: (Date.now() - startedAt) / 1000 }));
