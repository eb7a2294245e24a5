// The script-tag build (dist/kagent-chat.js and the second part beside it),
// served through a gate each browser test controls, over real HTTP:
//
//   GET  /split/<id>/<file>       dist/<file>; the second part (kagent-chat-answers-*.js, or -answers-dompurify-*.js)
//                                 as the gate of <id> says: served, failed (503), or held
//   POST /split-gate/<id>?answers=open|fail|hold   sets the gate (a held file is then sent or failed);
//                                 with &missing=<prefix>, files whose names start with it are 404, as on a site that did not copy them
//   GET  /split-gate/<id>         { requests: [file, ...] } in the order they came
//
// The first part imports the second from its own address, so loading
// /split/<id>/kagent-chat.js sends the second part's request through the gate too.
import { readFile } from 'node:fs/promises';
import type { Context, Next } from 'koa';

type GateState = 'open' | 'fail' | 'hold';
interface Gate {
  state: GateState;
  /** Files whose names start with this are answered 404. */
  missing?: string;
  requests: string[];
  /** Held requests, let go when the state changes. */
  waiting: (() => void)[];
}

const gates = new Map<string, Gate>();
const gateOf = (id: string) => {
  let gate = gates.get(id);
  if (!gate) gates.set(id, (gate = { state: 'open', requests: [], waiting: [] }));
  return gate;
};

const SECOND_PART = /^kagent-chat-answers-[\w-]+\.js$/;

interface Reply {
  status: number;
  type: string;
  body: string | Buffer;
}

async function reply(path: string, method: string, query: URLSearchParams, distFolder: URL): Promise<Reply> {
  const control = /^\/split-gate\/([\w-]+)$/.exec(path);
  if (control) {
    const gate = gateOf(control[1]!);
    if (method === 'POST') {
      gate.state = (query.get('answers') as GateState | null) ?? 'open';
      gate.missing = query.get('missing') ?? undefined;
      if (gate.state !== 'hold') gate.waiting.splice(0).forEach((letGo) => letGo());
    }
    return { status: 200, type: 'application/json', body: JSON.stringify({ state: gate.state, requests: gate.requests }) };
  }
  const file = /^\/split\/([\w-]+)\/([\w.-]+)$/.exec(path);
  if (!file || method !== 'GET') return { status: 404, type: 'text/plain', body: 'Not found' };
  const gate = gateOf(file[1]!);
  const name = file[2]!;
  gate.requests.push(name);
  if (gate.missing && name.startsWith(gate.missing)) return { status: 404, type: 'text/plain', body: 'Not found' };
  if (SECOND_PART.test(name)) {
    while (gate.state === 'hold') await new Promise<void>((resolve) => gate.waiting.push(resolve));
    if (gate.state === 'fail') return { status: 503, type: 'text/plain', body: 'Blocked by the test' };
  }
  const body = await readFile(new URL(name, distFolder)).catch(() => undefined);
  if (body === undefined) return { status: 404, type: 'text/plain', body: `dist/${name} is missing: run \`npx vite build\`` };
  return { status: 200, type: name.endsWith('.js') ? 'text/javascript' : 'application/json', body };
}

export function scriptTagGateMiddleware(distFolder: URL) {
  return async (ctx: Context, next: Next) => {
    if (!ctx.path.startsWith('/split/') && !ctx.path.startsWith('/split-gate/')) return next();
    const { status, type, body } = await reply(ctx.path, ctx.method, new URLSearchParams(ctx.querystring), distFolder);
    // Written here rather than through Koa: web-test-runner marks every reply to a path with an
    // extension cacheable for a year, a failure too, and the browser would never ask again.
    ctx.respond = false;
    ctx.res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    ctx.res.end(body);
  };
}
