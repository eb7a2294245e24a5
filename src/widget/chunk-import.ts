// Used by both parts of the chat (each chunk gets its own copy): a later part imported so that a failed fetch can be
// retried in every browser.

/**
 * Firefox's words for an `import()` whose file did not load. It keeps that failure for the page's life (a plain
 * re-import fails at once, without a request, however the network is now), and names the file.
 */
const KEPT_FAILURE = /^error loading dynamically imported module: (\S+)$/;

/**
 * `load` (one `import()` of a chunk of the chat) as a function that imports it once and, after a failed fetch
 * (offline, blocked), tries again on its next call: a plain re-import, which fetches again in Chromium and WebKit;
 * where the browser kept the failure (Firefox), the file it names under a new address (`?retry=N`). Either way the
 * chunk's module runs once: nothing is imported again once it has loaded. `exported` is a name the chunk exports: a
 * file named that lacks it is one the chunk imports (in a site's bundle), which no new address of the chunk's own
 * can bring, so the failure stands.
 */
export function chunkImport<T>(load: () => Promise<T>, exported: keyof T): () => Promise<T> {
  let loading: Promise<T> | undefined;
  let failed = false;
  let retries = 0;
  /** False once the file the browser named was not the chunk. */
  let anotherAddressHelps = true;
  return () =>
    (loading ??= load()
      .catch(async (error: unknown) => {
        const named = failed && anotherAddressHelps && KEPT_FAILURE.exec((error as Error)?.message)?.[1];
        if (!named) throw error;
        const address = new URL(named);
        address.searchParams.set('retry', `${++retries}`);
        const chunk = (await import(/* @vite-ignore */ /* webpackIgnore: true */ address.href)) as T;
        if (exported in (chunk as object)) return chunk;
        anotherAddressHelps = false;
        throw error;
      })
      .catch((error: unknown) => {
        failed = true;
        loading = undefined;
        throw error;
      }));
}
