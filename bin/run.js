// Starts a command from its TypeScript source when the tsx loader is there
// (a checkout of this repository, so a stale dist/ never runs), else from the
// built package (dist/), as installed from npm.
import { existsSync } from 'node:fs';

export async function run(builtPath, sourcePath) {
  const source = new URL(`../${sourcePath}`, import.meta.url);
  if (existsSync(source)) {
    const tsx = await import('tsx/esm/api').catch(() => undefined);
    if (tsx) {
      tsx.register();
      return import(source.href);
    }
  }
  const built = new URL(`../${builtPath}`, import.meta.url);
  if (!existsSync(built)) {
    console.error(`${builtPath} is missing: run \`npm run build\` first.`);
    process.exit(1);
  }
  return import(built.href);
}
