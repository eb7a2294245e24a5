import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { htmlToText, parseSitemap } from '../../emulator/src/ingest/index.js';

describe('htmlToText', () => {
  it('keeps the visible words, one block per line, entities decoded', () => {
    const { text, title } = htmlToText(
      '<html><head><title> Fish &amp; Chips </title><style>p{color:red}</style></head>' +
        '<body><h1>Menu</h1><p>Cod,   haddock\nand&nbsp;plaice.</p><div>Open <b>daily</b></div><script>var secret = 1;</script></body></html>',
    );
    assert.equal(title, 'Fish & Chips');
    assert.equal(text, 'Menu\n\nCod, haddock and plaice.\n\nOpen daily', 'no-break spaces become spaces');
  });

  it('writes lists as items and table rows on one line each', () => {
    const { text } = htmlToText('<ul><li>One</li><li>Two <i>too</i></li></ul><table><tr><th>Plan</th><th>Price</th></tr><tr><td><p>Pro</p></td><td>20</td></tr></table>');
    assert.equal(text, '- One\n- Two too\n\nPlan | Price\nPro | 20');
  });

  it('keeps the line breaks of preformatted text', () => {
    assert.equal(htmlToText('<p>Run:</p><pre>npm install\n  npm test</pre>').text, 'Run:\n\nnpm install\n  npm test');
  });

  it('leaves out hidden parts, navigation, forms controls and the titles of drawings', () => {
    const { text, title } = htmlToText(
      '<nav>Home | About</nav><div hidden>secret</div><div aria-hidden="true">icon</div><svg><title>Logo</title></svg>' +
        '<noscript>Enable JS</noscript><template><p>later</p></template><button>Click</button><p>Body text</p>',
    );
    assert.equal(text, 'Body text');
    assert.equal(title, '');
  });

  it('takes the first heading as title when there is no <title>', () => {
    assert.equal(htmlToText('<h2>Second</h2><h1>First <em>one</em></h1><h1>Later</h1>').title, 'First one');
  });

  it('collects absolute http(s) links once each, resolved against <base>, without fragments or nofollow', () => {
    const { links } = htmlToText(
      '<base href="https://example.com/docs/"><a href="guide">Guide</a><a href="guide#install">Again</a><a href="/about?">About</a>' +
        '<a href="mailto:a@b.c">Mail</a><a href="javascript:void(0)">JS</a><a href="https://other.example/x" rel="external nofollow">No</a><a href="ftp://example.com/f">FTP</a>',
      'https://ignored.example/',
    );
    assert.deepEqual(links, ['https://example.com/docs/guide', 'https://example.com/about']);
  });

  it('reads the robots meta directives', () => {
    assert.deepEqual(
      (({ noIndex, noFollow }) => ({ noIndex, noFollow }))(htmlToText('<meta name="ROBOTS" content="noindex, nofollow"><p>x</p>')),
      { noIndex: true, noFollow: true },
    );
    assert.equal(htmlToText('<meta name="robots" content="none">').noFollow, true);
    assert.equal(htmlToText('<p>x</p>').noIndex, false);
  });

  it('survives broken markup without losing the text', () => {
    assert.equal(htmlToText('<p>Unclosed <b>bold <i>italic</p><div>next</span></div><p>end').text, 'Unclosed bold italic\n\nnext\n\nend');
  });
});

describe('parseSitemap', () => {
  it('reads page addresses from a urlset and child sitemaps from an index, any prefix', () => {
    assert.deepEqual(parseSitemap('<?xml version="1.0"?><urlset><url><loc> https://a.example/1 </loc><lastmod>2024</lastmod></url><url><loc>https://a.example/2?x=1&amp;y=2</loc></url></urlset>'), {
      pages: ['https://a.example/1', 'https://a.example/2?x=1&y=2'],
      sitemaps: [],
    });
    assert.deepEqual(parseSitemap('<s:sitemapindex xmlns:s="x"><s:sitemap><s:loc>https://a.example/s1.xml</s:loc></s:sitemap></s:sitemapindex>'), {
      pages: [],
      sitemaps: ['https://a.example/s1.xml'],
    });
  });

  it('reads a text sitemap, one address per line, ignoring other lines', () => {
    assert.deepEqual(parseSitemap('https://a.example/1\n# comment\n\nhttps://a.example/2\n'), { pages: ['https://a.example/1', 'https://a.example/2'], sitemaps: [] });
  });

  it('ignores <loc> outside <url> and <sitemap>, such as image entries', () => {
    assert.deepEqual(parseSitemap('<urlset><url><loc>https://a.example/p</loc><image:image><image:loc>https://a.example/i.png</image:loc></image:image></url></urlset>').pages, ['https://a.example/p']);
  });
});
