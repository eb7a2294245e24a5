// Finds the Chromium the browser tests run in, or explains how to get one.
import { existsSync } from 'node:fs';

const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The browser's path: `CHROME_PATH` when set, else the first one installed. Exits with advice when none is found. */
export function findChrome() {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (existsSync(fromEnv)) return fromEnv;
    fail(`CHROME_PATH is set to ${fromEnv}, but no file is there.`);
  }
  const found = candidates.find((path) => existsSync(path));
  if (found) return found;
  fail('No Chromium was found for the browser tests.');
}

function fail(reason) {
  console.error(
    `\n${reason}\n` +
      'Install Debian\'s Chromium:  apt-get update && apt-get install -y --no-install-recommends chromium\n' +
      'or point CHROME_PATH at a Chrome or Chromium binary:  CHROME_PATH=/path/to/chrome npm test\n',
  );
  process.exit(1);
}
