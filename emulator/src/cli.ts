// `kagent-emulator`: serves the emulator, or manages its keys (`key create|revoke|list`).
import { existsSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { askRunningEmulator, type AdminRequest } from './admin.js';
import { createEmulator } from './emulator.js';
import { keepHeapInProportion } from './heap.js';
import { DataDirInUseError } from './store/persistence.js';
import type { Plan } from './store/records.js';
import { startEmulator, type StartOptions } from './server.js';

const HELP = `kagent-emulator: a local stand-in of the Knowledge-Agent Service.

Usage:
  kagent-emulator [options]              serve the emulator
  kagent-emulator key create [options]   create an API key (shown once)
  kagent-emulator key revoke <id|key>    revoke a key at once
  kagent-emulator key list               list keys (never their values)

Serve options:
  --port <n>                 port (default 8787; 0 for a free one)
  --host <address>           address to listen on (default 127.0.0.1)
  --data-dir <folder>        keep everything there across restarts (default: memory only)
  --seed <folder>            ingest the folder's files into the demo datastore at start
  --json                     print the address, key and ids as one JSON line
  --llm-url <url>            OpenAI-compatible server that writes the answers
  --llm-model <name>         model name sent to it (default: the agent's modelName)
  --usage-limit <n>          agent queries an organization may make (default: no limit)
  --usage-limit-in-stream    report the usage limit inside a 200 stream, as later services do
  --rate-limit-free <n>      requests per minute per key on the free plan (default 60)
  --rate-limit-pro <n>       requests per minute per key on the pro plan (default 300)
  --plan <free|pro|enterprise>  plan of the demo organization (default pro)
  --demo-key <key>           use this API key for the demo organization
  --pace <ms>                pause between the pieces of a streamed answer (default 25)
  --max-upload-mb <n>        largest upload in MB (default 50)
  --read-timeout <s>         longest a file may take to read (default 60)
  --reader-memory-mb <n>     memory a file's reader may use (default 1024)
  --max-text-chars <n>       most characters of text one file may yield (default 10000000)
  --max-pages <n>            most pages or slides one file may have (default 5000)
  --max-fragments <n>        most fragments one file or page may split into (default 20000)
  --allow-private-addresses  let web datasources read loopback, private, link-local and metadata addresses
  --allow-address <a[/n]>    let them read this address or subnet only (repeatable), e.g. 10.1.2.0/24

Key options (need --data-dir; reach a running emulator on that folder, or the folder itself):
  --label <text>             label of a new key
  --org <id>                 organization of a new key (default: the demo organization)
  --new-org                  create a new organization for the key
  --plan <free|pro|enterprise>  plan of that new organization (default free)
  --json                     print the result as JSON
`;

const PLANS: readonly Plan[] = ['free', 'pro', 'enterprise'];

class UsageError extends Error {}

function whole(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got ${value}`);
  return Number(value);
}

function addressOrSubnet(value: string): string {
  const [address = '', prefix] = value.split('/');
  const family = isIP(address);
  const maxPrefix = family === 4 ? 32 : 128;
  if (family === 0 || (prefix !== undefined && (!/^\d+$/.test(prefix) || Number(prefix) > maxPrefix))) {
    throw new UsageError(`--allow-address must be an address or subnet (10.1.2.0/24), got ${value}`);
  }
  return value;
}

function plan(value: string | undefined): Plan | undefined {
  if (value === undefined) return undefined;
  if (!PLANS.includes(value as Plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}, got ${value}`);
  return value as Plan;
}

async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      'llm-url': { type: 'string' },
      'llm-model': { type: 'string' },
      'usage-limit': { type: 'string' },
      'usage-limit-in-stream': { type: 'boolean' },
      'rate-limit-free': { type: 'string' },
      'rate-limit-pro': { type: 'string' },
      plan: { type: 'string' },
      'demo-key': { type: 'string' },
      pace: { type: 'string' },
      'max-upload-mb': { type: 'string' },
      'read-timeout': { type: 'string' },
      'reader-memory-mb': { type: 'string' },
      'max-text-chars': { type: 'string' },
      'max-pages': { type: 'string' },
      'max-fragments': { type: 'string' },
      'allow-private-addresses': { type: 'boolean' },
      'allow-address': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (values['llm-url']) {
    try {
      new URL(values['llm-url']);
    } catch {
      throw new UsageError(`--llm-url must be an address, got ${values['llm-url']}`);
    }
  }
  const rateLimits: Partial<Record<Plan, number>> = {};
  const free = whole('rate-limit-free', values['rate-limit-free']);
  const pro = whole('rate-limit-pro', values['rate-limit-pro']);
  if (free !== undefined) rateLimits.free = free;
  if (pro !== undefined) rateLimits.pro = pro;
  const options: StartOptions = {
    port: whole('port', values.port) ?? 8787,
    host: values.host ?? '127.0.0.1',
    rateLimits,
    log: (message) => process.stderr.write(`${message}\n`),
  };
  if (values['data-dir']) options.dataDir = values['data-dir'];
  if (values.seed) {
    if (!existsSync(values.seed) || !statSync(values.seed).isDirectory()) throw new UsageError(`--seed must be a folder, got ${values.seed}`);
    options.seed = values.seed;
  }
  if (values['llm-url']) options.llmUrl = values['llm-url'];
  if (values['llm-model']) options.llmModel = values['llm-model'];
  const usageLimit = whole('usage-limit', values['usage-limit']);
  if (usageLimit !== undefined) options.usageLimit = usageLimit;
  if (values['usage-limit-in-stream']) options.usageLimitInStream = true;
  const demoPlan = plan(values.plan);
  if (demoPlan) options.demoPlan = demoPlan;
  if (values['demo-key']) options.demoApiKey = values['demo-key'];
  const pace = whole('pace', values.pace);
  if (pace !== undefined) options.pace = pace;
  const maxUploadMb = whole('max-upload-mb', values['max-upload-mb']);
  if (maxUploadMb !== undefined) options.maxUploadBytes = maxUploadMb * 1024 * 1024;
  const ingestLimits: NonNullable<StartOptions['ingestLimits']> = {};
  const readTimeout = whole('read-timeout', values['read-timeout']);
  if (readTimeout !== undefined) ingestLimits.timeoutMs = readTimeout * 1000;
  const readerMemory = whole('reader-memory-mb', values['reader-memory-mb']);
  if (readerMemory !== undefined) ingestLimits.maxMemoryMb = readerMemory;
  const maxTextChars = whole('max-text-chars', values['max-text-chars']);
  if (maxTextChars !== undefined) ingestLimits.maxTextChars = maxTextChars;
  const maxPages = whole('max-pages', values['max-pages']);
  if (maxPages !== undefined) ingestLimits.maxPages = maxPages;
  const maxFragments = whole('max-fragments', values['max-fragments']);
  if (maxFragments !== undefined) ingestLimits.maxFragments = maxFragments;
  if (Object.keys(ingestLimits).length > 0) options.ingestLimits = ingestLimits;
  if (values['allow-private-addresses']) options.allowPrivateAddresses = true;
  else if (values['allow-address']) options.allowPrivateAddresses = values['allow-address'].map(addressOrSubnet);

  keepHeapInProportion();
  const running = await startEmulator(options);
  const { demo } = running;
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ url: running.url, apiKey: demo.apiKey, organizationId: demo.organizationId, agentId: demo.agentId, datastoreId: demo.datastoreId })}\n`,
    );
  } else {
    process.stdout.write(
      [
        'Knowledge-Agent Service emulator',
        `  URL:           ${running.url}`,
        `  API key:       ${demo.apiKey}`,
        `  Organization:  ${demo.organizationId}`,
        `  Agent:         ${demo.agentId}`,
        `  Datastore:     ${demo.datastoreId}`,
        `  Data:          ${options.dataDir ?? 'memory only'}`,
        options.llmUrl ? `  Answers by:    ${options.llmUrl}` : '  Answers by:    extracts of the sources (no --llm-url)',
        '',
      ].join('\n'),
    );
  }
  if (options.seed) {
    running.emulator.idle().then(() => process.stderr.write(`Seeded the demo datastore from ${options.seed}.\n`));
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    running.close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function keyCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      label: { type: 'string' },
      org: { type: 'string' },
      'new-org': { type: 'boolean' },
      plan: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const dataDir = values['data-dir'];
  if (!dataDir) throw new UsageError('key commands need --data-dir: keys live in the data folder');
  let request: AdminRequest;
  if (action === 'create') {
    if (values.org && values['new-org']) throw new UsageError('give --org or --new-org, not both');
    const keyPlan = plan(values.plan);
    request = {
      op: 'createKey',
      options: {
        ...(values.label !== undefined ? { label: values.label } : {}),
        ...(values.org ? { organizationId: values.org } : {}),
        ...(values['new-org'] ? { newOrganization: keyPlan ? { plan: keyPlan } : {} } : {}),
      },
    };
  } else if (action === 'revoke') {
    if (positionals.length !== 1) throw new UsageError('key revoke needs one key id or key');
    request = { op: 'revokeKey', idOrKey: positionals[0]! };
  } else if (action === 'list') {
    request = { op: 'listKeys' };
  } else {
    throw new UsageError(`unknown key command ${action ?? '(none)'}; use create, revoke or list`);
  }
  const result = await runAdmin(dataDir, request);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  if (request.op === 'createKey') {
    const key = result as { id: string; key: string; organizationId: string };
    process.stdout.write(`API key (shown only this once): ${key.key}\n  id:            ${key.id}\n  organization:  ${key.organizationId}\n`);
  } else if (request.op === 'revokeKey') {
    const key = result as { id: string; lastCharacters: string };
    process.stdout.write(`Revoked key ${key.id} (…${key.lastCharacters}).\n`);
  } else {
    for (const key of result as { id: string; label: string; organizationId: string; lastCharacters: string; revokedAt: string | null }[]) {
      process.stdout.write(`${key.id}  …${key.lastCharacters}  ${key.organizationId}  ${key.revokedAt ? `revoked ${key.revokedAt}` : 'active'}  ${key.label}\n`);
    }
  }
}

/** Through the running emulator when one serves the folder, else on the folder itself. */
async function runAdmin(dataDir: string, request: AdminRequest): Promise<unknown> {
  const reply = await askRunningEmulator(dataDir, request);
  if (reply) {
    if (!reply.ok) throw new UsageError(reply.error);
    return reply.result;
  }
  const emulator = createEmulator({ dataDir });
  try {
    if (request.op === 'createKey') return await emulator.createKey(request.options);
    if (request.op === 'revokeKey') return await emulator.revokeKey(request.idOrKey);
    return emulator.listKeys();
  } catch (error) {
    throw new UsageError((error as Error).message);
  } finally {
    await emulator.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  try {
    if (argv[0] === 'key') await keyCommand(argv.slice(1));
    else await serveCommand(argv);
  } catch (error) {
    if (error instanceof UsageError || error instanceof DataDirInUseError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`kagent-emulator: ${(error as Error).message}\nRun kagent-emulator --help for the options.\n`);
      process.exit(2);
    }
    throw error;
  }
}

await main(process.argv.slice(2));
