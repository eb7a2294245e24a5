import { expect } from '@open-wc/testing';
import { domPurifySanitizer } from '../../src/widget/answer-engine/markdown/dompurify-sanitizer.js';
import { markdownHtml } from '../../src/widget/answer-engine/markdown/incremental-markdown.js';
import { ALLOWED_ATTR, ALLOWED_TAGS, finishElement } from '../../src/widget/answer-engine/markdown/policy.js';
import { nativeSanitizer, type Sanitize } from '../../src/widget/answer-engine/markdown/sanitize.js';
import { HOSTILE_ANSWER, markdownAnswer } from '../support/scripted-service.js';
import type { SpecExample } from '../support/spec-examples.js';

// The chat's two sanitizers (the browser's own and DOMPurify) apply one policy: the finished DOM of
// every CommonMark and GFM spec example, of the hostile answer and of a long generated answer is the
// same on both paths. (Where the browser has no sanitizer of its own, there is nothing to compare.)

const serialized = (sanitize: Sanitize, html: string) => {
  const holder = document.createElement('div');
  holder.append(...sanitize(html));
  return holder.innerHTML;
};

describe('the browser\'s sanitizer and DOMPurify, under the one policy', () => {
  const native = nativeSanitizer();
  const purify = domPurifySanitizer({ tags: ALLOWED_TAGS, attributes: ALLOWED_ATTR, finishElement }, null);

  before(function () {
    if (!native) this.skip();
  });

  it('give the same DOM for every CommonMark and GFM spec example', async () => {
    const examples: SpecExample[] = await (await fetch('/scripted/spec-examples')).json();
    expect(examples.length).to.be.above(900);
    const differ: string[] = [];
    for (const example of examples) {
      const html = markdownHtml(example.markdown);
      const [byBrowser, byDomPurify] = [serialized(native!, html), serialized(purify, html)];
      if (byBrowser !== byDomPurify) differ.push(`${example.spec} ${example.number} (${example.section}): ${JSON.stringify(byBrowser)} against ${JSON.stringify(byDomPurify)}`);
    }
    expect(differ).to.deep.equal([]);
  });

  it('give the same DOM for the hostile answer and a long generated one', () => {
    for (const text of [HOSTILE_ANSWER.answer, markdownAnswer(20_000, 3)]) {
      const html = markdownHtml(text);
      expect(serialized(native!, html)).to.equal(serialized(purify, html));
    }
  });

  it('both keep only the policy: no script, handler, frame, form, style or SVG, links and images by their rules', () => {
    // Raw HTML fed straight to the sanitizers (the renderer itself escapes it): each drops what the policy drops.
    const hostile = [
      '<p>a<script>window.__x=1</script><img src=x onerror="window.__x=2"><iframe src="https://example.com"></iframe></p>',
      '<a href="javascript:alert(1)" onclick="x()" id="clobber" name="clobber">j</a><a href="ftp://e.com/f">f</a><a href="https://e.com/" target="_self">w</a>',
      '<img src="data:image/png;base64,AAAA" alt="pic"><img src="https://e.com/i.png" alt="ok"><input type="text"><input type="checkbox" checked><form><input type="image"></form>',
      '<svg><a href="javascript:alert(1)">s</a></svg><style>p{}</style><math><mi>x</mi></math><p class="evil" style="color:red" data-x="1" aria-label="y">c</p><code class="language-js">k</code>',
    ].join('');
    for (const sanitize of [native!, purify]) {
      const holder = document.createElement('div');
      holder.append(...sanitize(hostile));
      expect(holder.querySelectorAll('script, iframe, form, style, svg, math, [onerror], [onclick], [id], [name], [style], [data-x], [aria-label], input:not([type="checkbox"])')).to.have.length(0);
      expect([...holder.querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.target, a.rel])).to.deep.equal([
        [null, '_blank', 'noopener noreferrer'],
        [null, '_blank', 'noopener noreferrer'],
        ['https://e.com/', '_blank', 'noopener noreferrer'],
      ]);
      expect([...holder.querySelectorAll('img')].map((img) => [img.getAttribute('src'), img.loading, img.referrerPolicy])).to.deep.equal([['https://e.com/i.png', 'lazy', 'no-referrer']]);
      expect(holder.textContent).to.contain('pic');
      expect(holder.querySelector('input[type="checkbox"]')!.hasAttribute('disabled')).to.equal(true);
      expect(holder.querySelector('p.evil, [class="evil"]')).to.equal(null);
      expect(holder.querySelector('code')!.className).to.equal('language-js');
      expect((window as { __x?: number }).__x).to.equal(undefined);
    }
  });

  it('parses in an inert document: an image is not fetched before it is in the page', async () => {
    const url = `https://example.com/never-${Math.random().toString(36).slice(2)}.png`;
    const nodes = native!(`<p><img src="${url}" alt="x"></p>`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(performance.getEntriesByName(url)).to.have.length(0);
    expect((nodes[0] as Element).ownerDocument).to.equal(document);
  });
});
