// `npm run build` (and `npm run openapi`): writes openapi.json from the protocol's schemas.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiText } from './document.js';

const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
writeFileSync(target, openApiText());
