import { normaliseNewlines } from './decode-text.js';
import { IngestError } from './errors.js';
import { htmlToText } from './html-text.js';
import { DEFAULT_WEB_LIMITS, fetchBounded, parseWebAddress, type FetchedResource, type FetchLimits, type WebLimits } from './web-fetch.js';

/** The readable text of one web page. */
export interface WebPage {
  /** The page's address after redirects. */
  url: string;
  /** Its `<title>` (else first `<h1>`, else the address). */
  title: string;
  text: string;
  /** The page was longer than `maxBytes`: only its start was read. */
  truncated?: boolean;
}

/** A fetched page with what a crawler needs beyond its text. */
export interface ReadPage extends WebPage {
  links: string[];
  noIndex: boolean;
  noFollow: boolean;
  bytesRead: number;
}

const PAGE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain']);
const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8';

/**
 * Fetches one web page (http or https, text/html or text/plain) and returns its readable text.
 * Throws `IngestError` for a bad address, a network failure, a timeout, an error status,
 * another content type or a page without readable text.
 */
export async function fetchWebPage(url: string, limits: Partial<WebLimits> = {}): Promise<WebPage> {
  const page = await readWebPage(parseWebAddress(url), limits);
  if (!page.text) throw new IngestError(`${page.url} has no readable text (scripts on the page are not run)`);
  const { url: address, title, text, truncated } = page;
  return { url: address, title, text, ...(truncated ? { truncated } : {}) };
}

/** Fetches and reads one page, links included; the text may be empty. */
export async function readWebPage(url: URL, limits: Partial<WebLimits>, checkRedirect?: FetchLimits['checkRedirect']): Promise<ReadPage> {
  const { maxBytes, timeoutMs } = { ...DEFAULT_WEB_LIMITS, ...limits };
  const resource = await fetchBounded(url, {
    maxBytes,
    timeoutMs,
    signal: limits.signal,
    accept: ACCEPT,
    checkRedirect,
    allowPrivateAddresses: limits.allowPrivateAddresses,
    resolve: limits.resolve,
  });
  const mediaType = resource.mediaType || sniffMediaType(resource.bytes);
  if (!PAGE_TYPES.has(mediaType)) {
    throw new IngestError(`${resource.url} is not a web page (its content type is ${mediaType || 'unknown'})`);
  }
  const source = decodeBody(resource, mediaType);
  const base = { url: resource.url, bytesRead: resource.bytes.byteLength, ...(resource.truncated ? { truncated: true } : {}) };
  if (mediaType === 'text/plain') {
    return { ...base, title: plainTitle(resource.url), text: normaliseNewlines(source).trim(), links: [], noIndex: false, noFollow: false };
  }
  const html = htmlToText(source, resource.url);
  return { ...base, title: html.title || plainTitle(resource.url), text: html.text, links: html.links, noIndex: html.noIndex, noFollow: html.noFollow };
}

// A server that sends no content type: markup is HTML, anything else readable is plain text.
function sniffMediaType(bytes: Uint8Array): string {
  const start = new TextDecoder().decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head') || start.startsWith('<body')) return 'text/html';
  if (bytes.subarray(0, 512).includes(0)) return 'application/octet-stream';
  return 'text/plain';
}

function decodeBody(resource: FetchedResource, mediaType: string): string {
  let label = resource.charset;
  if (!label && mediaType !== 'text/plain') {
    // An HTML page may declare its encoding in a <meta> near the top instead of the header.
    const head = new TextDecoder('latin1').decode(resource.bytes.subarray(0, 2048));
    label = head.match(/<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1];
  }
  try {
    return new TextDecoder(label ?? 'utf-8').decode(resource.bytes);
  } catch {
    return new TextDecoder('utf-8').decode(resource.bytes);
  }
}

function plainTitle(address: string): string {
  const url = new URL(address);
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(last) || url.host;
  } catch {
    return last;
  }
}
