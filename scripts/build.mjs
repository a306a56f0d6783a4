#!/usr/bin/env node
// Compiles the server to JavaScript in dist/ (dist/server/…, one .js per .ts, ES modules for
// Node 20), so `npm start` runs plain Node with no TypeScript loader. esbuild transpiles only:
// types are checked by `npm run typecheck`. The server is also bundled in one file,
// dist/server/bundle.cjs, which dist/server/main.js (server/launch.ts) loads: what `npm start` runs
// (below). `npm start` (scripts/start.mjs) builds first when a source changed since the last
// build; it takes about a second and a half. `--if-stale` skips it when dist/ is newer than every
// source file (scripts/build-state.mjs).
// Then it writes dist/pglite-template/ (server/db/pglite-template.ts): a PGlite database migrated
// by the compiled migrations, which a first start on a new data directory copies instead of creating
// one and migrating it (a few seconds).
//
//   node scripts/build.mjs [--if-stale]
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serverBundle } from './server-bundle.mjs';
import { out, root, sources, stale } from './build-state.mjs';

const files = sources();
if (process.argv.includes('--if-stale') && !stale(files)) process.exit(0);
const started = performance.now();
// Loaded only when there is something to build.
const { build } = await import('esbuild');
await rm(path.join(out, 'server'), { recursive: true, force: true });
// The template goes first: one left by an interrupted build would not match the new migrations.
await rm(path.join(out, 'pglite-template.json'), { force: true });
await rm(path.join(out, 'pglite-template.tar'), { force: true }); // an earlier build's dump
const main = path.join(root, 'server', 'main.ts');
const launch = path.join(root, 'server', 'launch.ts');
await build({
  entryPoints: files.filter((file) => file !== main && file !== launch), // both are built below
  outdir: path.join(out, 'server'),
  outbase: path.join(root, 'server'),
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
// What `npm start` runs: the server and its dependencies in one file, dist/server/bundle.cjs
// (scripts/server-bundle.mjs says what it holds and why), then the launcher that loads it.
await build(serverBundle(root, path.join(out, 'server', 'bundle.cjs')));
// The launcher, written last: its time is the build's (scripts/build-state.mjs).
await build({
  entryPoints: [launch],
  outfile: path.join(out, 'server', 'main.js'),
  bundle: true,
  packages: 'external',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
// The API reference's renderer (server/pages/docs.ts), from a development dependency: kept in
// dist/ so that an install without development dependencies (the container image) serves /docs.
await mkdir(path.join(out, 'docs'), { recursive: true });
await copyFile(path.join(root, 'node_modules/@redocly/cli/lib/chunks/redoc.standalone.js'), path.join(out, 'docs', 'redoc.js')).catch(() =>
  console.error('note: @redocly/cli is not installed; /docs will not render (the JSON documents are still served)'),
);
const compiled = performance.now();
const { writePgliteTemplate } = await import(pathToFileURL(path.join(out, 'server/db/pglite-template.js')).href);
const { makeJobQueues } = await import(pathToFileURL(path.join(out, 'server/jobs/index.js')).href);
await writePgliteTemplate(path.join(out, 'pglite-template'), makeJobQueues); // its queues made too
console.error(
  `built dist/server (${files.length} files) in ${Math.round(compiled - started)} ms, dist/pglite-template/ in ${Math.round(performance.now() - compiled)} ms`,
);
