#!/usr/bin/env node
// Builds the till-conformance package into conformance/dist (`npm pack` runs it first), in a
// second or two: esbuild bundles the CLI with what it takes from this repository (the SDK's
// sources, the OpenAPI reader) into one ES module, and the contracts are copied beside it from
// generated/, the source of truth, byte for byte. Packages stay imports: each must be declared in
// conformance/package.json "dependencies" at the version the root package-lock.json pins, or the
// build fails.
//
//   dist/bin/till-conformance.js     the bin (validator.ts reads the contracts from ../generated/)
//   dist/generated/*.openapi.json    the contracts the answers are validated against
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(pkgDir, '..');
const dist = path.join(pkgDir, 'dist');
const bin = path.join(dist, 'bin', 'till-conformance.js');
const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));

/** The contracts the package carries, in generated/ of the repository and dist/generated/ of the package. */
export const CONTRACTS = ['checkout.openapi.json', 'commerce.openapi.json'];

rmSync(dist, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(pkgDir, 'index.ts')],
  outfile: bin,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node\n// till-conformance: built from the Till repository (conformance/, sdk/src/), do not edit.' },
  metafile: true,
  logLevel: 'warning',
});
chmodSync(bin, 0o755);

mkdirSync(path.join(dist, 'generated'), { recursive: true });
for (const file of CONTRACTS) copyFileSync(path.join(root, 'generated', file), path.join(dist, 'generated', file));

// Every package the bundle imports is a dependency, at the version the repository runs it with.
const problems = [];
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const imported = new Set(
  Object.values(result.metafile.outputs)
    .flatMap((o) => o.imports)
    .filter((i) => i.external && !i.path.startsWith('node:'))
    .map((i) => packageName(i.path)),
);
for (const name of imported) if (!manifest.dependencies?.[name]) problems.push(`${name} is imported but not in conformance/package.json "dependencies"`);
for (const [name, version] of Object.entries(manifest.dependencies ?? {})) {
  const pinned = lock.packages[`node_modules/${name}`]?.version;
  if (!imported.has(name)) problems.push(`${name} is a dependency but the bundle does not import it`);
  if (version !== pinned) problems.push(`${name}: "${version}" in conformance/package.json, but package-lock.json pins ${pinned}`);
}
if (problems.length > 0) {
  console.error(`till-conformance: the package is not self-contained:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
