import { createHash } from 'node:crypto';
import { IngestError, reasonOf } from './errors.js';
import { readSitemap } from './sitemap.js';
import { DEFAULT_WEB_LIMITS, pageAddress, parseWebAddress, type WebLimits } from './web-fetch.js';
import { readWebPage, type ReadPage, type WebPage } from './web-page.js';

/** Where a site crawl starts. */
export interface CrawlStart {
  /** The site's address: the first page read, and the host whose pages count as the site. */
  sourceUrl: string;
  /** A sitemap (or sitemap index) listing the pages to read instead of following links. */
  sitemap?: string;
  /** Told about every address left out and why (error status, timeout, not a page, another host, ...). */
  onSkip?: (url: string, reason: string) => void;
}

// Addresses that are files, not pages; fetching them would only be refused by content type.
const NOT_A_PAGE = /\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|map|json|xml|rss|atom|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|pkg|deb|rpm|apk|iso|mp[34]|m4a|wav|ogg|webm|avi|mov|mkv|woff2?|ttf|otf|eot|docx?|xlsx?|pptx?|csv)$/i;

interface Visit {
  url: URL;
  depth: number;
}

type Outcome = { visit: Visit; page: ReadPage } | { visit: Visit; error: string };

/**
 * Reads a web site page by page. With `sitemap`, the pages it lists (sitemap indexes followed);
 * otherwise the start page and the pages its links lead to, breadth first, on the same host only.
 * Each address is read once and pages with the same text are returned once. Bounded by
 * `maxPages`, `maxDepth`, `maxBytes` per page, `timeoutMs` per page, and `maxTotalBytes` and
 * `maxTotalMs` for the whole crawl. A start page (or sitemap) that cannot be read is an
 * `IngestError`; any other page that cannot be read is skipped and reported to `onSkip`.
 */
export async function* crawlWebSite(start: CrawlStart, limits: Partial<WebLimits> = {}): AsyncGenerator<WebPage> {
  const settings = { ...DEFAULT_WEB_LIMITS, ...limits };
  const { maxPages, maxDepth, maxTotalBytes, maxTotalMs } = settings;
  const concurrency = Math.max(1, settings.concurrency);
  const maxRequests = maxPages * 2;
  let lastSkipReason: string | undefined;
  const onSkip = (url: string, reason: string) => {
    lastSkipReason = reason;
    start.onSkip?.(url, reason);
  };
  const startUrl = new URL(pageAddress(parseWebAddress(start.sourceUrl)));
  const sitemapUrl = start.sitemap ? parseWebAddress(start.sitemap) : undefined;

  // One signal ends everything in flight: the caller's, the crawl's time limit, or leaving the loop early.
  const stop = new AbortController();
  const deadline = AbortSignal.timeout(maxTotalMs);
  const signal = AbortSignal.any([stop.signal, deadline, ...(limits.signal ? [limits.signal] : [])]);
  const pageLimits = { ...settings, signal };

  const siteHosts = new Set([startUrl.host, ...(sitemapUrl ? [sitemapUrl.host] : [])]);
  const onSite = (url: URL) => siteHosts.has(url.host);
  // A redirect is followed only to a page of the site that is not read already; another host is never visited.
  const checkRedirect = (url: URL) => {
    if (!onSite(url)) return `redirects to another host (${url.host})`;
    const address = pageAddress(url);
    if (queued.has(address)) return `redirects to ${address}, read already`;
    queued.add(address);
    return undefined;
  };
  // The start address may move the whole site (http to https, example.com to www.example.com): its redirects are followed anywhere.
  const checkStartRedirect = (url: URL) => {
    queued.add(pageAddress(url));
    return undefined;
  };
  const queued = new Set<string>();
  const queue: Visit[] = [];
  const enqueue = (address: string, depth: number) => {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return onSkip(address, 'not a web address');
    }
    url = new URL(pageAddress(url));
    if (queued.has(url.href)) return;
    queued.add(url.href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return onSkip(url.href, `not an http(s) address`);
    if (!onSite(url)) return onSkip(url.href, `on another host than ${startUrl.host}`);
    if (NOT_A_PAGE.test(url.pathname)) return onSkip(url.href, 'a file, not a page');
    queue.push({ url, depth });
  };

  let bytesRead = 0;
  let requests = 0;
  let returned = 0;
  try {
    if (sitemapUrl) {
      const sitemap = await readSitemap(sitemapUrl, { ...pageLimits, maxAddresses: maxRequests }, onSkip);
      bytesRead += sitemap.bytesRead;
      for (const address of sitemap.pages) enqueue(address, 0);
      if (queue.length === 0) throw new IngestError(`the sitemap ${sitemapUrl.href} lists no pages on ${[...siteHosts].join(' or ')}`);
    } else {
      enqueue(startUrl.href, 0);
    }

    const readTexts = new Set<string>();
    const running = new Map<number, Promise<{ key: number; outcome: Outcome }>>();
    let nextKey = 0;
    const launch = (visit: Visit) => {
      const key = nextKey++;
      requests++;
      const isStart = !sitemapUrl && visit.url.href === startUrl.href;
      const task = readWebPage(visit.url, pageLimits, isStart ? checkStartRedirect : checkRedirect).then(
        (page): Outcome => ({ visit, page }),
        (error): Outcome => ({ visit, error: error instanceof IngestError ? error.message : reasonOf(error) }),
      );
      running.set(key, task.then((outcome) => ({ key, outcome })));
    };

    const fill = () => {
      while (running.size < concurrency && queue.length > 0 && requests < maxRequests && bytesRead < maxTotalBytes && !signal.aborted) {
        launch(queue.shift()!);
      }
    };

    while (returned < maxPages && !signal.aborted) {
      fill();
      if (running.size === 0) break;
      const { key, outcome } = await Promise.race(running.values());
      running.delete(key);
      const { visit } = outcome;

      if ('error' in outcome) {
        // Without its first page (or any sitemap page) there is no site to read.
        if (visit.url.href === startUrl.href && !sitemapUrl) throw new IngestError(outcome.error);
        onSkip(visit.url.href, outcome.error);
        continue;
      }
      const { page } = outcome;
      bytesRead += page.bytesRead;
      const finalUrl = new URL(page.url);
      if (!sitemapUrl && visit.url.href === startUrl.href) siteHosts.add(finalUrl.host);
      if (!onSite(finalUrl)) {
        onSkip(visit.url.href, `redirects to another host (${finalUrl.host})`);
        continue;
      }
      if (!page.noFollow && visit.depth < maxDepth && !sitemapUrl) {
        for (const link of page.links) enqueue(link, visit.depth + 1);
      }
      if (page.noIndex) {
        onSkip(page.url, 'the page asks not to be indexed');
        continue;
      }
      if (!page.text) {
        onSkip(page.url, 'no readable text');
        continue;
      }
      const fingerprint = createHash('sha256').update(page.text).digest('base64');
      if (readTexts.has(fingerprint)) {
        onSkip(page.url, 'the same text as a page read already');
        continue;
      }
      readTexts.add(fingerprint);
      returned++;
      // The next pages load while the caller handles this one.
      if (returned < maxPages) fill();
      yield { url: page.url, title: page.title, text: page.text, ...(page.truncated ? { truncated: true } : {}) };
    }
    if (returned === 0 && !limits.signal?.aborted) {
      if (deadline.aborted) throw new IngestError(`no page of ${startUrl.host} could be read within ${Math.round(maxTotalMs / 1000)} s`);
      throw new IngestError(`no page of ${startUrl.host} could be read${lastSkipReason ? ` (last reason: ${lastSkipReason})` : ''}`);
    }
  } finally {
    stop.abort();
  }
}
