// A stand-in for Cloudflare Turnstile's browser script (api.js?render=explicit), served by the
// test server as GET /scripted/turnstile/api.js: the real one (challenges.cloudflare.com) cannot
// be loaded here. It defines the part of `window.turnstile` the chat uses, render() and remove(),
// and behaves as Cloudflare documents its test site keys: 1x00000000000000000000AA and ...BB
// always pass, 2x00000000000000000000AB and ...BB always fail, 3x00000000000000000000FF needs the
// visitor to interact (a box to tick). Unlike Cloudflare's dummy token, each token it gives is
// numbered, so a test can tell a fresh one from one used before.

/** The test site keys, as Cloudflare documents them. */
export const SITE_KEYS = { pass: '1x00000000000000000000AA', fail: '2x00000000000000000000AB', interactive: '3x00000000000000000000FF' } as const;

/** What the stand-in says it is, on the box it draws and on `window.turnstileStandIn`. */
export const STAND_IN_LABEL = 'I am a person (Turnstile stand-in)';

const SCRIPT = `
(() => {
  // A stand-in for Cloudflare Turnstile's script, for the tests: not Cloudflare's code.
  const log = { renders: [], removed: [], tokens: 0, standIn: true };
  const widgets = new Map();
  let next = 0;
  window.turnstileStandIn = log;
  window.turnstile = {
    render(container, params) {
      const id = 'stand-in-' + ++next;
      log.renders.push({ sitekey: params.sitekey, appearance: params.appearance, retry: params.retry, inDocument: container.isConnected && container.getRootNode() === document });
      widgets.set(id, container);
      const key = String(params.sitekey);
      const pass = () => params.callback && params.callback('XXXX.DUMMY.TOKEN.XXXX.' + ++log.tokens);
      // Asynchronously, as Cloudflare's widget answers from its frame.
      setTimeout(() => {
        if (!widgets.has(id)) return;
        if (/^1x0{20}(AA|BB)$/.test(key)) return pass();
        if (/^2x0{20}(AB|BB)$/.test(key)) return params['error-callback'] && params['error-callback']('600010');
        if (/^3x0{20}FF$/.test(key)) {
          params['before-interactive-callback'] && params['before-interactive-callback']();
          const box = document.createElement('button');
          box.type = 'button';
          box.textContent = ${JSON.stringify(STAND_IN_LABEL)};
          box.style.cssText = 'width:300px;height:65px';
          box.addEventListener('click', () => {
            box.remove();
            params['after-interactive-callback'] && params['after-interactive-callback']();
            pass();
          });
          return container.append(box);
        }
        params['error-callback'] && params['error-callback']('110100');
      });
      return id;
    },
    remove(id) {
      const container = widgets.get(id);
      if (!container) return;
      widgets.delete(id);
      log.removed.push(id);
      container.replaceChildren();
    },
  };
})();
`;

/** Where the chat's sources, as the test runner serves them, load it from instead of Cloudflare's address (web-test-runner.config.js). */
export const STAND_IN_SCRIPT = '/scripted/turnstile/api.js?render=explicit';

/** `GET /scripted/turnstile/api.js`: the stand-in. */
export function turnstileScript(url: URL): Response | undefined {
  if (url.pathname !== '/scripted/turnstile/api.js') return undefined;
  return new Response(SCRIPT, { headers: { 'Content-Type': 'text/javascript' } });
}
