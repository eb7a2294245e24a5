// The part of @upstash/redis the deployment recipes use, with its signatures as
// the package publishes them, so `npm run typecheck` checks the recipes without
// adding the package to this project (the recipes' users install it themselves).
declare module '@upstash/redis' {
  export interface RedisConfigNodejs {
    url: string;
    token: string;
  }
  export class Redis {
    constructor(config: RedisConfigNodejs);
    /** Reads UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN from process.env. */
    static fromEnv(): Redis;
    eval<TArgs extends unknown[], TData = unknown>(script: string, keys: string[], args: TArgs): Promise<TData>;
  }
}

declare module '@upstash/redis/cloudflare' {
  export { Redis } from '@upstash/redis';
}
