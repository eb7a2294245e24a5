#!/usr/bin/env node
import { run } from './run.js';
await run('dist/emulator/cli.js', 'src/emulator/cli.ts');
