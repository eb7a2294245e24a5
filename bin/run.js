// Starts a command from the built package (dist/), or, in a checkout that was
// not built, from its TypeScript source through tsx.
import { existsSync } from 'node:fs';

export async function run(builtPath, sourcePath) {
  const built = new URL(`../${builtPath}`, import.meta.url);
  if (existsSync(built)) return import(built.href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL(`../${sourcePath}`, import.meta.url).href);
}
