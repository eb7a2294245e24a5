// Two plain pages for the back/forward cache test: a chat that asks the
// scripted service, and a page to navigate away to. Neither sends
// `Cache-Control: no-store` nor does anything else that keeps a page out of
// the back/forward cache, so whether the chat's page can be cached is up to
// the chat.

/** `GET /scripted/bfcache/page?agent=<id>&scenario=<name>&mode=<inline|bubble>`: one chat, from the widget's source. */
export function bfcachePage(url: URL): Response | undefined {
  if (url.pathname === '/scripted/bfcache/away') {
    return new Response('<!doctype html><html lang="en"><title>Elsewhere</title><p>Another page.</p></html>', { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
  }
  if (url.pathname !== '/scripted/bfcache/page') return undefined;
  const word = (name: string, fallback: string) => (/^[\w-]{1,80}$/.test(url.searchParams.get(name) ?? '') ? url.searchParams.get(name)! : fallback);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>A page with a chat</title>
<script>
  // What the test reads back: each pagehide and pageshow, and each settled question.
  window.lifecycle = [];
  addEventListener('pagehide', (event) => lifecycle.push('pagehide' + (event.persisted ? ' persisted' : '')));
  addEventListener('pageshow', (event) => lifecycle.push('pageshow' + (event.persisted ? ' persisted' : '')));
  addEventListener('kagent-error', (event) => lifecycle.push('kagent-error ' + event.detail.kind));
  addEventListener('kagent-answer', () => lifecycle.push('kagent-answer'));
</script>
<script type="module">import '/src/widget/index.ts';</script>
</head>
<body>
<kagent-chat mode="${word('mode', 'inline')}" agent-id="${word('agent', 'bfcache')}" endpoint="/scripted/widget/${word('scenario', 'slow')}"></kagent-chat>
</body>
</html>`;
  return new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
}
