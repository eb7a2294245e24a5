/**
 * `kagent-chat/proxy/node`: the proxy served on Node (`serveProxy`), the
 * `fetch` on node:http to call the service with (`createNodeFetch`), and the
 * server's options from the environment as the `kagent-proxy` command reads them.
 */
export { serveProxy, type RunningProxy, type ServeProxyOptions } from './server.js';
export { createNodeFetch, type NodeFetchOptions } from './fetch.js';
export type { ConnectionLimits } from './connections.js';
export { createProxy, serveOptionsFromEnv } from '../core/index.js';
