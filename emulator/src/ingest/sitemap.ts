import { gunzipSync } from 'node:zlib';
import { IngestError, reasonOf } from './errors.js';
import { fetchBounded } from './web-fetch.js';
import { localName, readXml } from './xml.js';

/** What one sitemap file lists. */
export interface SitemapEntries {
  /** Page addresses (`<urlset><url><loc>`, or one address per line in a text sitemap). */
  pages: string[];
  /** Further sitemaps (`<sitemapindex><sitemap><loc>`). */
  sitemaps: string[];
}

/** The addresses a sitemap file lists: XML `urlset` or `sitemapindex` (any namespace prefix), or a plain text list. */
export function parseSitemap(source: string): SitemapEntries {
  const entries: SitemapEntries = { pages: [], sitemaps: [] };
  const trimmed = source.replace(/^\uFEFF/, '').trimStart();
  if (!trimmed.startsWith('<')) {
    entries.pages = trimmed.split('\n').map((line) => line.trim()).filter((line) => /^https?:\/\//i.test(line));
    return entries;
  }
  const stack: string[] = [];
  let loc: string | undefined;
  readXml(trimmed, {
    open: (name) => {
      const local = localName(name);
      stack.push(local);
      if (local === 'loc') loc = '';
    },
    text: (text) => {
      if (loc !== undefined) loc += text;
    },
    close: () => {
      const local = stack.pop();
      if (local !== 'loc' || loc === undefined) return;
      const parent = stack[stack.length - 1];
      const address = loc.trim();
      loc = undefined;
      if (!address) return;
      if (parent === 'url') entries.pages.push(address);
      else if (parent === 'sitemap') entries.sitemaps.push(address);
    },
  });
  return entries;
}

/** Limits on following a sitemap and the sitemap index files it leads to. */
export interface SitemapLimits {
  maxBytes: number;
  timeoutMs: number;
  /** Stop once this many page addresses are known. */
  maxAddresses: number;
  signal?: AbortSignal;
}

// A sitemap index may point at further indexes; this many files at most are read.
const MAX_SITEMAP_FILES = 50;

/**
 * The page addresses of a sitemap, following sitemap indexes (breadth first, each file once,
 * gzip-compressed files too). A root sitemap that cannot be read is an `IngestError`; a child
 * that cannot be read is reported to `onSkip` and left out.
 */
export async function readSitemap(root: URL, limits: SitemapLimits, onSkip: (url: string, reason: string) => void): Promise<{ pages: string[]; bytesRead: number }> {
  const queue = [root.href];
  const seen = new Set(queue);
  const pages: string[] = [];
  let files = 0;
  let bytesRead = 0;
  while (queue.length > 0 && files < MAX_SITEMAP_FILES && pages.length < limits.maxAddresses) {
    const address = queue.shift()!;
    files++;
    let entries: SitemapEntries;
    try {
      const resource = await fetchBounded(new URL(address), { ...limits, accept: 'application/xml,text/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5' });
      bytesRead += resource.bytes.byteLength;
      entries = parseSitemap(sitemapText(resource.bytes, limits.maxBytes));
    } catch (error) {
      const reason = error instanceof IngestError ? error.message : `could not read the sitemap ${address}: ${reasonOf(error)}`;
      if (address === root.href) throw new IngestError(`could not read the sitemap: ${reason}`);
      onSkip(address, reason);
      continue;
    }
    pages.push(...entries.pages.slice(0, limits.maxAddresses - pages.length));
    for (const child of entries.sitemaps) {
      if (!seen.has(child)) {
        seen.add(child);
        queue.push(child);
      }
    }
  }
  return { pages, bytesRead };
}

// Sitemaps are often served gzip-compressed as files (sitemap.xml.gz); inflating is capped too.
function sitemapText(bytes: Uint8Array, maxBytes: number): string {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return new TextDecoder().decode(gunzipSync(bytes, { maxOutputLength: maxBytes }));
    } catch (error) {
      throw new IngestError(`the compressed sitemap cannot be read within ${Math.round(maxBytes / 1048576)} MB (${reasonOf(error)})`);
    }
  }
  return new TextDecoder().decode(bytes);
}
