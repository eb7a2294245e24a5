// Ingestion: the readable text of uploaded files and web pages, and its split into searchable fragments.
export { IngestError } from './errors.js';
export { documentText, PAGE_SEPARATOR, type ExtractedDocument, type ExtractedPage } from './document.js';
export { extractDocument, extractFragments, splitDocument, DEFAULT_EXTRACT_LIMITS, type ExtractLimits } from './extract-document.js';
export { DEFAULT_TEXT_LIMITS, type TextLimits } from './text-limits.js';
export type { SplitDocument } from './tasks.js';
export { extractInThisThread, type UploadedFile } from './extract.js';
export { splitIntoFragments, DEFAULT_FRAGMENT_SIZE, DEFAULT_FRAGMENT_OVERLAP, type TextFragment, type FragmentOptions } from './fragments.js';
export { DEFAULT_WEB_LIMITS, type WebLimits } from './web-fetch.js';
export { fetchWebPage, type WebPage } from './web-page.js';
export { crawlWebSite, type CrawlStart } from './web-site.js';
export { htmlToText, type HtmlText } from './html-text.js';
export { parseSitemap, type SitemapEntries } from './sitemap.js';
