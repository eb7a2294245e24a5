// The proxies bench/proxy.bench.ts measures beside this checkout's: an
// earlier commit's, built here from git, and tokens for the one with visitor
// sessions on, earned over HTTP as a page earns them.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SESSION_HEADER, solveSessionChallenges, type ChallengeAnswer } from '../../src/protocol/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The `kagent-proxy` command of `commit`, built once into node_modules/.cache
 * from the files git holds (with this checkout's node_modules, so the same
 * undici and Node); or why it cannot be (no git, a shallow clone without it).
 */
export function buildProxyAt(commit: string): { command: string } | { missing: string } {
  const resolved = spawnSync('git', ['rev-parse', '--short=12', `${commit}^{commit}`], { cwd: root, encoding: 'utf8' });
  if (resolved.status !== 0) return { missing: `commit ${commit} is not in this clone (${resolved.stderr.trim() || 'git failed'})` };
  const dir = join(root, 'node_modules/.cache/kagent-bench', `proxy-${resolved.stdout.trim()}`);
  const command = join(dir, 'bin/kagent-proxy.js');
  if (existsSync(join(dir, 'built'))) return { command };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('sh', ['-c', `git archive ${resolved.stdout.trim()} bin src package.json tsconfig.json tsconfig.build.json | tar -x -C "$0"`, dir], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (archive.status !== 0) return { missing: `git archive of ${commit} failed` };
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const built = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.build.json')], { cwd: dir, stdio: 'inherit' });
  if (built.status !== 0) return { missing: `building ${commit} (tsc -p tsconfig.build.json) failed` };
  mkdirSync(join(dir, 'built'));
  return { command };
}

/**
 * The proxy's environment for visitor sessions under load: the least work to earn a token, and the per-session and
 * per-address allowances off, as the benches' other limits are.
 */
export const SESSIONS_ENV = { KAGENT_SESSION_SECRET: randomBytes(32).toString('base64'), KAGENT_SESSION_DIFFICULTY: '0.001', KAGENT_RATE_LIMIT_PER_SESSION: 'off', KAGENT_SESSIONS_PER_ADDRESS: 'off' };
/** The proxy's environment with insights on (every question recorded in the memory store) and the report's token. */
export const INSIGHTS_TOKEN = 'bench_admin_0f1e2d3c4b5a69788796a5b4c3d2e1f0';
export const INSIGHTS_ENV = { KAGENT_INSIGHTS: 'on', KAGENT_ADMIN_TOKEN: INSIGHTS_TOKEN };

/**
 * Tokens a sessions-on load takes in turn. A session holds one answer at a time, and wrk cannot give each
 * connection its own token, so each comes back only after this many questions: far more than the 16 in flight.
 */
export const SESSION_TOKENS = 512;

/** The part of a wrk script that puts the next of `tokens` on each question (with the other headers it replaces). */
export function tokensInTurn(tokens: readonly string[], origin: string): string {
  return `
local tokens = { ${tokens.map((t) => JSON.stringify(t)).join(', ')} }
local next = 0
local headers = { ["Content-Type"] = "application/json", ["Origin"] = "${origin}" }
function request()
  next = next % #tokens + 1
  headers["${SESSION_HEADER}"] = tokens[next]
  return wrk.format(nil, nil, headers)
end
`;
}

/** `count` session tokens from the proxy at `base` for a page at `origin`: challenge, solution, token, a few at a time. */
export async function earnTokens(base: string, origin: string, count: number): Promise<string[]> {
  const post = async (path: string, body: unknown): Promise<unknown> => {
    const response = await fetch(base + path, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  const earnOne = async (): Promise<string> => {
    const { challenges } = (await post('/sessions/challenge', {})) as ChallengeAnswer;
    const solutions = await solveSessionChallenges(challenges);
    if (!solutions) throw new Error('a session challenge had no solution');
    return ((await post('/sessions', { challenges, solutions })) as { token: string }).token;
  };
  const tokens: string[] = [];
  while (tokens.length < count) tokens.push(...(await Promise.all(Array.from({ length: Math.min(8, count - tokens.length) }, earnOne))));
  return tokens;
}
