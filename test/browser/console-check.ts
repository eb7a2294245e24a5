// Every browser test that loads the chat fails on a console warning or error from it, and on a request of the chat's
// that failed (a 404, a refused origin, a dropped connection): Chromium and Safari print each of those as a red console
// line of their own, which a site owner reads as "this widget is broken". Imported by widget-helpers.ts, so its hooks
// are the root suite's of every file that uses those helpers, in every browser the file runs in. Not a test file itself.
//
// A complaint is allowed only where it is explained: by a question's failure the chat told the page of (`kagent-error`:
// its one console line, `kagent-chat: <kind> (<status>): ...`, and a request that failed with that status), or by the
// test, which provokes it on purpose and says so (`expectComplaints`).

/** What the chat said or met during the current test, one line each. */
const heard: string[] = [];
/** What the current test expects the chat to say (each line it hears is checked against these). */
let expected: RegExp[] = [];

/** A question's failure, as a chat told the page (`kagent-error`): the lines it explains. */
function explainedBy({ kind, status }: { kind: string; status?: number }): RegExp[] {
  return [
    new RegExp(`^console\\.warn: kagent-chat: ${kind}${status ? ` \\(${status}\\)` : ''}: `),
    status ? new RegExp(`^[A-Z]+ \\S+: ${status}$`) : /^[A-Z]+ \S+: failed \(/,
  ];
}

/** The chat's own code (unbuilt sources, or the built files), on the stack of a call. */
const FROM_THE_CHAT = /\/src\/widget\/|\/kagent-chat(?:-[\w-]+)?\.js/;
const fromTheChat = () => FROM_THE_CHAT.test(new Error().stack ?? '');

/**
 * The current test provokes the chat's complaints on purpose: each line matching one of `patterns` is expected
 * (a console line is `console.warn: kagent-chat: ...`, a failed request `GET /path: 404` or `POST /path: failed (...)`).
 * With no pattern, any complaint is.
 */
export function expectComplaints(...patterns: RegExp[]): void {
  expected.push(...(patterns.length ? patterns : [/./]));
}

function install(): void {
  addEventListener('kagent-error', (event) => expected.push(...explainedBy((event as CustomEvent<{ kind: string; status?: number }>).detail)));
  for (const level of ['warn', 'error'] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      const text = args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(' ');
      if (text.startsWith('kagent-chat') || fromTheChat()) heard.push(`console.${level}: ${text}`);
      original(...args);
    };
  }
  const originalFetch = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const ours = fromTheChat();
    // (Read, not rebuilt as a Request: that would take the body of one passed in.)
    const asked = input instanceof Request ? input : undefined;
    const what = `${init?.method ?? asked?.method ?? 'GET'} ${new URL(asked?.url ?? String(input), location.href).pathname}`;
    try {
      const response = await originalFetch(input, init);
      if (ours && !response.ok) heard.push(`${what}: ${response.status}`);
      return response;
    } catch (error) {
      // Stopped by the chat itself (Stop, the element removed): nothing the browser prints.
      const stopped = (init?.signal ?? asked?.signal)?.aborted || (error as Error).name === 'AbortError';
      if (ours && !stopped) heard.push(`${what}: failed (${error})`);
      throw error;
    }
  };
}

install();

beforeEach(() => {
  heard.length = 0;
  expected = [];
});

afterEach(function () {
  const unexpected = heard.filter((line) => !expected.some((pattern) => pattern.test(line)));
  heard.length = 0;
  if (unexpected.length) throw new Error(`the chat complained during "${this.currentTest?.fullTitle()}" (a working page must stay quiet; a test that provokes this calls expectComplaints):\n  ${unexpected.join('\n  ')}`);
});
