import { expect } from '@open-wc/testing';
import { domPurifySanitizer } from '../../src/widget/answer-engine/markdown/dompurify-sanitizer.js';
import { markdownHtml } from '../../src/widget/answer-engine/markdown/incremental-markdown.js';
import { ALLOWED_ATTR, ALLOWED_TAGS, finishElement } from '../../src/widget/answer-engine/markdown/policy.js';
import type { Sanitize } from '../../src/widget/answer-engine/markdown/sanitize.js';
import { HOSTILE_ANSWER, markdownAnswer } from '../support/scripted-service.js';
import type { SpecExample } from '../support/spec-examples.js';

// The build trims DOMPurify (scripts/trim-libraries.ts: its default allow-lists, the options the
// chat never turns on or names, the methods it never calls). Where the browser has no sanitizer of its own
// (Safari), the chunk the build made is what stands between an answer and the page: here it must
// give exactly the DOM DOMPurify as released gives (the unbuilt module, served untouched), on the
// mutation-XSS, clobbering and address tricks DOMPurify guards against as well as on markdown.

/** Raw HTML fed straight to the sanitizer (the renderer itself escapes raw HTML in answers). */
const HOSTILE_HTML = [
  // Namespace confusion (mutation XSS): markup that parses differently once serialized and parsed again.
  '<svg></p><style><a id="</style><img src=1 onerror=window.__x=1>">',
  '<svg><p><style><a id="</style><img src=1 onerror=window.__x=1>">',
  '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;img src=1 onerror=window.__x=1&gt;">',
  '<math><mtext><table><mglyph><style><math href="javascript:window.__x=1">CLICKME</math></style>',
  '<form><math><mtext></form><form><mglyph><style></math><img src onerror=window.__x=1>',
  '<math><annotation-xml encoding="text/html"><style><img src=x onerror=window.__x=1></style></annotation-xml></math>',
  '<svg><foreignobject><p><style><img src=x onerror=window.__x=1></style></p></foreignobject></svg>',
  '<noscript><p title="</noscript><img src=x onerror=window.__x=1>">',
  '<noembed><img title="</noembed><img src=x onerror=window.__x=1>"></noembed>',
  '<xmp><img src=x onerror=window.__x=1></xmp>',
  '<table><td><style><img src=x onerror=window.__x=1></style></td></table>',
  '<select><template><style><img src=x onerror=window.__x=1></style></template></select>',
  '<template><script>window.__x=1</script><img src=x onerror=window.__x=1></template>',
  '<p title="--><img src=x onerror=window.__x=1>">breakout</p>',
  '<p title="</style><img src=x onerror=window.__x=1>">breakout</p>',
  // Comments, processing instructions, CDATA.
  '<!--<img src=x onerror=window.__x=1>--><p>after</p>',
  '<?xml-stylesheet href="https://e.com/x.xsl"?><p>pi</p>',
  '<![CDATA[<img src=x onerror=window.__x=1>]]><p>cdata</p>',
  // Addresses.
  '<a href="jav&#x09;ascript:window.__x=1">tab</a><a href=" &#14;  javascript:window.__x=1">ctl</a><a href="JaVaScRiPt:window.__x=1">case</a>',
  '<a href="data:text/html,<script>window.__x=1</script>">d</a><img src="data:image/svg+xml,<svg onload=window.__x=1>" alt="svg">',
  '<a href="vbscript:msgbox(1)">v</a><a href="https://e.com/?q=&quot;x&quot;" title="t">ok</a><img src="//e.com/p.png" alt="proto">',
  // Clobbering and handlers.
  '<img src=x name=cookie><a id=location href=https://e.com>c</a><form id=f><input name=attributes><input name=nodeName></form>',
  '<input type=checkbox checked onfocus=window.__x=1 autofocus><input type=text value=x><button formaction="javascript:window.__x=1">b</button>',
  '<details open ontoggle=window.__x=1>d</details><video><source onerror=window.__x=1></video><body onload=window.__x=1>',
  '<div is="x-evil" class="language-js"><code class="language-ts onerror">k</code><p style="background:url(javascript:x)">s</p></div>',
  // Custom elements and `is` (the chat sets no CUSTOM_ELEMENT_HANDLING: both must drop them, keeping their text but not a script's).
  '<x-card title="t" onclick="window.__x=1">custom <b>element</b><script>window.__x=1</script></x-card><p is="x-card">is</p>',
  '<svg><x-el>in svg</x-el></svg><math><mi><x-el>in math</x-el></mi></math><annotation-xml><x-el>a</x-el></annotation-xml><font-face>f</font-face>',
  // Template expressions (the chat leaves SAFE_FOR_TEMPLATES off: both must keep them as text).
  '<p>{{constructor.constructor(\'window.__x=1\')()}} <%= x %> ${x}</p>',
  // Whole documents and leading white space.
  '<!doctype html><html><head><title>t</title></head><body><p>b</p></body></html>',
  '\n  <p>lead</p>',
];

const serialized = (sanitize: Sanitize, html: string) => {
  const holder = document.createElement('div');
  holder.append(...sanitize(html));
  return holder.innerHTML;
};

const text = async (file: string) => {
  const response = await fetch(`/dist/${file}`);
  if (!response.ok) throw new Error(`dist/${file} is missing: run \`npm run build\``);
  return response.text();
};
const imported = (file: string) => import(/* @vite-ignore */ `${location.origin}/dist/${file}`) as Promise<Record<string, unknown>>;

/** The build's two copies of DOMPurify's sanitizer, found as the first part imports them. */
const BUILT: [string, () => Promise<typeof domPurifySanitizer>][] = [
  [
    // What a browser without a sanitizer of its own fetches: the second part with DOMPurify inside.
    'the second part with DOMPurify inside',
    async () => {
      const file = /import\(["'`]\.\/(kagent-chat-answers-dompurify-[\w-]+\.js)["'`]\)/.exec(await text('kagent-chat.js'))![1]!;
      return (await imported(file)).domPurifySanitizer as typeof domPurifySanitizer;
    },
  ],
  [
    // What the second part fetches where the first part took the browser's sanitizer for one it could use.
    "DOMPurify's own chunk",
    async () => {
      const second = /import\(["'`]\.\/(kagent-chat-answers-(?!dompurify-)[\w-]+\.js)["'`]\)/.exec(await text('kagent-chat.js'))![1]!;
      const chunk = /import\(["'`]\.\/(kagent-chat-sanitizer-[\w-]+\.js)["'`]\)/.exec(await text(second))![1]!;
      const exports = Object.values(await imported(chunk));
      expect(exports, 'the chunk exports its sanitizer alone').to.have.length(1);
      return exports[0] as typeof domPurifySanitizer;
    },
  ],
];

for (const [copy, builtSanitizer] of BUILT) describe(`DOMPurify as the build trims it, in ${copy}`, () => {
  const policy = { tags: ALLOWED_TAGS, attributes: ALLOWED_ATTR, finishElement };
  const released = domPurifySanitizer(policy, null);
  let built: Sanitize;

  before(async () => {
    built = (await builtSanitizer())(policy, null);
  });

  afterEach(() => delete (window as { __x?: number }).__x);

  it('gives the DOM DOMPurify as released gives for hostile HTML, and keeps nothing that runs', () => {
    const differ = HOSTILE_HTML.filter((html) => serialized(built, html) !== serialized(released, html));
    expect(differ).to.deep.equal([]);
    const holder = document.createElement('div');
    document.body.append(holder);
    try {
      for (const html of HOSTILE_HTML) holder.append(...built(html));
      const handlers = [...holder.querySelectorAll('*')].flatMap((element) => [...element.attributes].filter((attribute) => /^on|^style$|^is$|^id$|^name$/i.test(attribute.name)).map((attribute) => `${element.localName} ${attribute.name}`));
      expect(handlers).to.deep.equal([]);
      expect(holder.querySelectorAll('script, style, svg, math, template, form, iframe, noscript, noembed, xmp, video, details, button, input:not([type="checkbox"])')).to.have.length(0);
      expect([...holder.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'))).to.deep.equal(['https://e.com/?q="x"', 'https://e.com']);
      expect([...holder.querySelectorAll('img')].map((img) => img.getAttribute('src'))).to.deep.equal([]);
      // Nothing ran while it was sanitized or put in the page (no image is kept to fail later: checked above).
      expect((window as { __x?: number }).__x).to.equal(undefined);
    } finally {
      holder.remove();
    }
  });

  it('gives the DOM DOMPurify as released gives for every CommonMark and GFM spec example, the hostile answer and a long answer', async () => {
    const examples: SpecExample[] = await (await fetch('/scripted/spec-examples')).json();
    expect(examples.length).to.be.above(900);
    const differ: string[] = [];
    for (const markdown of [...examples.map((example) => example.markdown), HOSTILE_ANSWER.answer, markdownAnswer(20_000, 3)]) {
      const html = markdownHtml(markdown);
      if (serialized(built, html) !== serialized(released, html)) differ.push(markdown.slice(0, 80));
    }
    expect(differ).to.deep.equal([]);
  });
});
