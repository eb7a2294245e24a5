#!/usr/bin/env node
import { run } from './run.js';
await run('dist/proxy/cli.js', 'src/proxy/cli.ts');
