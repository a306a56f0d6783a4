// What the server's bundle holds (scripts/server-bundle.mjs, the options `npm run build` bundles
// it with): one copy of each version of a package, however many copies npm nested, and a pg that
// does not look for Cloudflare's runtime.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { serverBundle } from '../../scripts/server-bundle.mjs';

const root = path.resolve(import.meta.dirname, '../..');
let inputs: Metafile['inputs'];
let code: string;

beforeAll(async () => {
  const result = await build({ ...serverBundle(root, path.join(root, 'out', 'server-bundle-check.cjs')), write: false, metafile: true, logLevel: 'silent' });
  inputs = result.metafile.inputs;
  code = result.outputFiles.find((file) => file.path.endsWith('.cjs'))!.text;
}, 60_000);

/** `node_modules/a/node_modules/b` from `node_modules/a/node_modules/b/lib/x.js`. */
function packageFolder(file: string): string {
  const at = file.lastIndexOf('node_modules/');
  const [scope, name] = file.slice(at + 'node_modules/'.length).split('/');
  return file.slice(0, at) + `node_modules/${scope!.startsWith('@') ? `${scope}/${name}` : scope}`;
}

describe('the server’s bundle', () => {
  it('holds one copy of each version of a package (express 5’s mime-types and mime-db lie under three packages)', () => {
    const folders = new Map<string, Set<string>>(); // name@version → the folders its files came from
    for (const file of Object.keys(inputs).filter((f) => f.includes('node_modules/'))) {
      const folder = packageFolder(file);
      const { name, version } = JSON.parse(readFileSync(path.join(root, folder, 'package.json'), 'utf8')) as { name: string; version: string };
      const id = `${name}@${version}`;
      folders.set(id, (folders.get(id) ?? new Set()).add(folder));
    }
    expect([...folders.keys()].some((id) => id.startsWith('mime-db@'))).toBe(true);
    const copies = [...folders].filter(([, where]) => where.size > 1).map(([id, where]) => `${id}: ${[...where].join(', ')}`);
    expect(copies).toEqual([]);
  });

  it('has pg answer that it is not in Cloudflare’s Workers without making a Response', () => {
    expect(Object.keys(inputs)).toContain('node_modules/pg/lib/stream.js');
    // Minified: the check's first statement answers false, and nothing of it is left after that.
    expect(/function isCloudflareRuntime\(\)\{[^}]*\}/.exec(code)?.[0]).toBe('function isCloudflareRuntime(){return!1}');
  });
});
