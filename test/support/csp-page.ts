// A page served the way a strict site serves it: a Content-Security-Policy
// header with no 'unsafe-inline' anywhere and Trusted Types enforced. Its
// scripts are files from the same origin; the first one counts every
// securitypolicyviolation event the page fires.

/** The policy docs/widget.md tells a site to send (the proxy is on the page's own origin here). */
export const STRICT_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'img-src https:',
  "require-trusted-types-for 'script'",
  'trusted-types lit-html kagent-chat',
].join('; ');

const PROBE = `
window.violations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.violations.push(event.violatedDirective + ' ' + (event.blockedURI || '') + ' ' + (event.sample || ''));
});
`;

/** Makes the page a browser without a sanitizer of its own, as Safari is today: the chat then sanitizes with DOMPurify. */
export const HIDE_NATIVE_SANITIZER = 'delete Element.prototype.setHTML; delete globalThis.Sanitizer;';

/**
 * `GET /scripted/csp/page?agent=<id>`: an inline chat and a bubble, both asking `/scripted/widget/answer`.
 * `&sanitizer=dompurify`: the page hides the browser's own sanitizer first.
 */
export function cspPage(url: URL): Response | undefined {
  if (url.pathname === '/scripted/csp/probe.js') return new Response(PROBE, { headers: { 'Content-Type': 'text/javascript' } });
  if (url.pathname === '/scripted/csp/hide-native-sanitizer.js') return new Response(HIDE_NATIVE_SANITIZER, { headers: { 'Content-Type': 'text/javascript' } });
  if (url.pathname !== '/scripted/csp/page') return undefined;
  const agent = /^[\w-]{1,80}$/.test(url.searchParams.get('agent') ?? '') ? url.searchParams.get('agent')! : 'csp';
  // `&sessions=<preset>`: both chats ask the proxy with visitor sessions (test/support/browser-sessions.ts); `&workers=none`: the policy forbids Workers.
  const sessions = /^\w+$/.test(url.searchParams.get('sessions') ?? '') ? url.searchParams.get('sessions') : undefined;
  const endpoint = sessions ? `/scripted/sessions/${sessions}/${agent}` : '/scripted/widget/answer';
  const policy = url.searchParams.get('workers') === 'none' ? `${STRICT_CSP}; worker-src 'none'` : STRICT_CSP;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>A strict page</title>
<link rel="icon" href="https://example.com/favicon.ico">
<script src="/scripted/csp/probe.js"></script>
${url.searchParams.get('sanitizer') === 'dompurify' ? '<script src="/scripted/csp/hide-native-sanitizer.js"></script>\n' : ''}<script type="module" src="/dist/kagent-chat.js"></script>
</head>
<body>
<kagent-chat id="inline" agent-id="${agent}" endpoint="${endpoint}" welcome="Hello from a **strict** page." suggestions="How do I reset my password?"></kagent-chat>
<kagent-chat id="bubble" mode="bubble" agent-id="${agent}-bubble" endpoint="${endpoint}"></kagent-chat>
</body>
</html>`;
  return new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': policy } });
}
