// The part of Deno's globals the Deno recipe uses, with the signatures Deno
// publishes, and its `npm:` specifier mapped to this package's entry, so that
// `npm run typecheck` checks the recipe as docs/proxy.md shows it.
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(options: { hostname?: string; port?: number }, handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>): unknown;
};

declare module 'npm:kagent-chat/proxy/deno' {
  export * from 'kagent-chat/proxy/deno';
}
