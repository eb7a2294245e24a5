// The npm entry leaves the split to the site's bundler: built by a site with Vite, a page that
// imports 'kagent-chat' gets the markdown engine (marked) as a chunk of its own that it imports
// dynamically, not in the code every page view loads; DOMPurify, which only a browser without a
// sanitizer of its own needs, is a chunk the engine imports dynamically; so is the visitor-session
// keeper, which starts the solver, a Worker chunk of its own, by its address.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('../../', import.meta.url));

test("a site's Vite build of `import 'kagent-chat'` puts marked in a chunk its page imports only dynamically, DOMPurify in one that chunk imports only dynamically, and the session solver in a worker chunk", async () => {
  // The package as npm installs it (package.json's exports and sideEffects, the tsc output),
  // beside this checkout's dependencies, in a site of its own outside this checkout.
  const site = mkdtempSync(join(tmpdir(), 'kagent-site-'));
  try {
    const installed = join(site, 'node_modules', 'kagent-chat');
    mkdirSync(installed, { recursive: true });
    const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { name: string; type: string; exports: Record<string, unknown>; sideEffects: string[] };
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: manifest.name, type: manifest.type, exports: { '.': manifest.exports['.'] }, sideEffects: manifest.sideEffects }));
    writeFileSync(join(site, 'tsconfig.kagent.json'), JSON.stringify({
      extends: `${root}tsconfig.build.json`,
      compilerOptions: { outDir: join(installed, 'dist'), rootDir: `${root}src`, declaration: false, declarationMap: false, sourceMap: false, inlineSources: false },
      include: [],
      // The session solver's Worker too: nothing imports it (the engine names its address), and the package ships every module.
      files: [`${root}src/widget/index.ts`, `${root}src/widget/answer-engine/sessions/solver.worker.ts`],
    }));
    execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', join(site, 'tsconfig.kagent.json')], { stdio: 'pipe' });
    // Everything else the site would have installed (the workspace's own link to this package is the copy above).
    for (const name of readdirSync(`${root}node_modules`).filter((name) => !name.startsWith('.') && name !== manifest.name)) symlinkSync(`${root}node_modules/${name}`, join(site, 'node_modules', name));
    writeFileSync(join(site, 'page.js'), "import 'kagent-chat';\n");
    writeFileSync(join(site, 'index.html'), '<!doctype html><script type="module" src="./page.js"></script><kagent-chat></kagent-chat>');

    await build({ root: site, configFile: false, logLevel: 'silent', build: { outDir: join(site, 'out'), modulePreload: false } });

    const files = readdirSync(join(site, 'out', 'assets')).map((name) => ({ name, code: readFileSync(join(site, 'out', 'assets', name), 'utf8') }));
    const html = readFileSync(join(site, 'out', 'index.html'), 'utf8');
    const page = files.find((file) => html.includes(file.name))!;
    assert.ok(page, 'the page loads one script');
    const engine = files.filter((file) => file.code.includes('Infinite loop on byte'));
    assert.equal(engine.length, 1, 'marked is in one chunk');
    assert.notEqual(engine[0]!.name, page.name, 'not in the page script');
    // The page script reaches it only through import(), and defines the element itself.
    const dynamicallyImports = (file: { code: string }, name: string) => file.code.includes(`import(\`./${name}\`)`) || file.code.includes(`import("./${name}")`);
    const staticallyImports = (file: { code: string }, name: string) => new RegExp(`from\\s*["'\`]\\./${name}`).test(file.code);
    assert.ok(dynamicallyImports(page, engine[0]!.name), 'imported dynamically');
    assert.ok(!staticallyImports(page, engine[0]!.name), 'never statically');
    // DOMPurify: a chunk of its own, which the engine imports only where the browser has no sanitizer of its own.
    const purifier = files.filter((file) => file.code.includes('DOMPurify'));
    assert.equal(purifier.length, 1, 'DOMPurify is in one chunk');
    assert.ok(![page.name, engine[0]!.name].includes(purifier[0]!.name), 'neither in the page script nor in the engine');
    assert.ok(dynamicallyImports(engine[0]!, purifier[0]!.name), 'the engine imports it dynamically');
    assert.ok(!staticallyImports(engine[0]!, purifier[0]!.name) && !staticallyImports(page, purifier[0]!.name), 'nothing imports it statically');
    assert.ok(page.code.includes('kagent-chat'), 'the page script defines <kagent-chat>');
    // The visitor-session solver: a Worker chunk of its own, whose address only the engine names.
    const solver = files.filter((file) => /^solver\.worker-[\w-]+\.js$/.test(file.name));
    assert.equal(solver.length, 1, `the solver is one worker chunk: ${files.map((file) => file.name).join(', ')}`);
    // It is started by the session keeper, a chunk the engine imports only once a proxy shows it has sessions on.
    const keeper = files.filter((file) => file.code.includes(solver[0]!.name));
    assert.equal(keeper.length, 1, 'one chunk starts the solver');
    assert.ok(![page.name, engine[0]!.name].includes(keeper[0]!.name), 'the keeper is neither the page script nor the engine');
    assert.ok(dynamicallyImports(engine[0]!, keeper[0]!.name), 'the engine imports the keeper dynamically');
    assert.ok(!staticallyImports(engine[0]!, keeper[0]!.name) && !staticallyImports(page, keeper[0]!.name), 'nothing imports the keeper statically');
    assert.ok(!solver[0]!.code.includes('Infinite loop on byte'), 'it holds no markdown engine');
  } finally {
    rmSync(site, { recursive: true, force: true });
  }
});
