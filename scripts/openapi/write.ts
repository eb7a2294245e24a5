// `npm run build` (and `npm run openapi`): writes openapi.json from the protocol's schemas.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiText } from './document.js';

const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
const text = openApiText();
// Only when it changed: a build inside the tests (npm pack) then never truncates the file other tests are reading.
let current = '';
try {
  current = readFileSync(target, 'utf8');
} catch {
  // not written yet
}
if (current !== text) writeFileSync(target, text);
