// The script-tag build bundles other projects' code (Lit, marked, DOMPurify, fetch-event-source),
// whose licences ask that their notices go with every copy. The minifier drops every comment, the
// libraries' notices too, so the build writes them all into one file beside the chunks and each
// chunk that carries a library's code names that file in its first line (a few bytes, not the texts).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';

/** The file beside the built chunks that holds the bundled libraries' licences. */
export const LICENSES_FILE = 'kagent-chat.licenses.txt';

/** The first line of every built chunk that carries a library's code: kept by the minifier (`/*!`). */
export const LICENSES_BANNER = `/*! Licenses: ${LICENSES_FILE} */`;

/** Whether a chunk, by the modules in it, carries code of a library. */
export const carriesLibraries = (moduleIds: readonly string[]) => moduleIds.some((id) => id.includes('/node_modules/'));

/** The package folder a module of `node_modules` belongs to (a scoped package's too). */
function packageFolder(id: string): string {
  const at = id.lastIndexOf('/node_modules/') + '/node_modules/'.length;
  const parts = id.slice(at).split('/');
  return id.slice(0, at) + parts.slice(0, parts[0]!.startsWith('@') ? 2 : 1).join('/');
}

/** Emits `kagent-chat.licenses.txt`: each bundled package's name, version, licence and licence files, in full. */
export const thirdPartyLicenses = (): Plugin => ({
  name: 'kagent-third-party-licenses',
  apply: 'build',
  generateBundle(_, bundle) {
    const folders = new Set<string>();
    for (const chunk of Object.values(bundle)) if (chunk.type === 'chunk') for (const id of chunk.moduleIds) if (id.includes('/node_modules/')) folders.add(packageFolder(id));
    if (folders.size === 0) return;
    const entries = [...folders]
      .map((folder) => {
        const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string; version: string; license?: string; homepage?: string };
        const texts = readdirSync(folder)
          .filter((name) => /^licen[cs]e/i.test(name))
          .sort()
          .map((name) => readFileSync(join(folder, name), 'utf8').trim());
        if (texts.length === 0) this.error(`${pkg.name} is bundled but has no licence file in ${dirname(folder)}: its notice cannot go with the build`);
        return { name: pkg.name, text: `${pkg.name} ${pkg.version} (${(pkg.license ?? 'see below').replace(/^\((.*)\)$/, '$1')})${pkg.homepage ? `\n${pkg.homepage}` : ''}\n\n${texts.join('\n\n')}` };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
    const source = [`The files dist/kagent-chat*.js of kagent-chat bundle code of the libraries below. Their licences follow, as each asks.`, ...entries.map((entry) => entry.text)].join(`\n\n${'-'.repeat(72)}\n\n`);
    this.emitFile({ type: 'asset', fileName: LICENSES_FILE, source: `${source}\n` });
  },
});
