// A challenge flood for `npm run bench -- abuse`: FLOOD_ADDRESSES loopback addresses (127.0.x.y), each asking the
// proxy at FLOOD_URL for FLOOD_PER_MINUTE challenges a minute, for FLOOD_SECONDS; prints how many were answered.
import { Agent, request } from 'node:http';

const url = new URL(process.env.FLOOD_URL!);
const addresses = Array.from({ length: Number(process.env.FLOOD_ADDRESSES ?? 2000) }, (_, i) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`);
const perSecond = (addresses.length * Number(process.env.FLOOD_PER_MINUTE ?? 20)) / 60;
const until = Date.now() + Number(process.env.FLOOD_SECONDS ?? 10) * 1000;
// One kept-alive connection per address, as a farm that wants the most challenges for its CPU keeps them;
// FLOOD_NEW_CONNECTIONS=1: a new one for each request (the proxy then pays for accepting it too).
const keepAlive = process.env.FLOOD_NEW_CONNECTIONS !== '1';
const agents = new Map(addresses.map((address) => [address, new Agent({ keepAlive, maxSockets: keepAlive ? 1 : Infinity })]));
let answered = 0;
let refused = 0;
let next = 0;

function ask(localAddress: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path: `${url.pathname}sessions/challenge`, method: 'POST', localAddress, agent: agents.get(localAddress), headers: { origin: process.env.FLOOD_ORIGIN!, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) answered++;
        else refused++;
        resolve();
      });
    });
    req.on('error', () => resolve());
    req.end('{}');
  });
}

const pending = new Set<Promise<void>>();
const started = Date.now();
while (Date.now() < until) {
  // Keep to the rate: as many sent as the time since the start allows.
  const due = Math.floor(((Date.now() - started) / 1000) * perSecond);
  while (next < due && pending.size < 256) {
    const p = ask(addresses[next++ % addresses.length]!);
    pending.add(p);
    void p.then(() => pending.delete(p));
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
}
await Promise.all(pending);
for (const agent of agents.values()) agent.destroy();
console.log(JSON.stringify({ sent: next, answered, refused }));
