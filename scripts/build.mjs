#!/usr/bin/env node
// Compiles the server to JavaScript in dist/ (dist/server/…, one .js per .ts, ES modules for
// Node 20), so `npm start` runs plain Node with no TypeScript loader. esbuild transpiles only:
// types are checked by `npm run typecheck`; main.js alone is the server bundled in one file
// (below). `npm start` (scripts/start.mjs) runs it first when a source changed since the last
// build; it takes about a second and a half. `--if-stale` skips it when dist/ is newer than every
// source file (scripts/build-state.mjs).
// Then it writes dist/pglite-template/ (server/db/pglite-template.ts): a PGlite database migrated
// by the compiled migrations, which a first start on a new data directory copies instead of creating
// one and migrating it (a few seconds).
//
//   node scripts/build.mjs [--if-stale]
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { out, root, sources, stale } from './build-state.mjs';

const files = await sources();
if (process.argv.includes('--if-stale') && !(await stale(files))) process.exit(0);
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
// What `npm start` runs: the server and its dependencies in one file, dist/server/bundle.cjs (the
// other files stay one per source, for the merchant command and the benches), which the launcher,
// dist/server/main.js, loads with a V8 code cache (server/launch.ts). Loading the
// server's ~470 modules and its dependencies' one by one took half a second of every start
// (measured on PGlite: a restart to the first 200 in 3.6 s against 4.1 s). Left out, loaded from
// node_modules as before: packages that read files beside their own code or run a binary
// (PGlite's WebAssembly, esbuild, PDFKit's fonts, Swagger UI's assets), those loaded only when
// configured (OpenTelemetry's SDK, nodemailer, pg-native). express-openapi-validator is inside: left
// out, it loaded a second Express and Ajv from node_modules, 367 of the 413 modules a start loaded
// from there (a restart in 1,735 ms inside against 1,817 ms out with its Express shared, eight
// alternating); the server's mends of its modules (server/http/route-matcher-cache.ts,
// validator-spec-schema.ts) import those modules, so they mend the bundle's own. OpenTelemetry's
// API is inside too: every start uses it, and from node_modules it was 44 files (15-20 ms). The
// SDK (server/tracing.ts) registers its tracer provider and context manager in the API's
// process-wide registry, which the bundle's copy reads: both are the one version in node_modules.
// The bundle is CommonJS because the launcher compiles it as a script (V8 caches a script's code;
// Node 20 offers no such cache for an ES module), and a script's `import()` would need an
// experimental loader: the packages left out are loaded with require(), as Node's own loader
// would give them to import() (their CommonJS builds, or require() of an ES module since Node 20.19).
const OPENTELEMETRY_SDK = [
  '@opentelemetry/sdk-*',
  '@opentelemetry/exporter-*',
  '@opentelemetry/instrumentation*',
  '@opentelemetry/resources',
  '@opentelemetry/core',
];
// pg asks at load whether it runs in Cloudflare's Workers: on Node 20, which has no `navigator`, by
// making a `Response`, and that loads Node's fetch, 24 ms of every start that nothing else in a
// start or a first request needs (Node 24 answers from `navigator`). The bundle runs on Node, so
// its copy of pg is told no. Should pg's check change, the build fails here rather than lose this.
const CLOUDFLARE_CHECK = 'function isCloudflareRuntime() {';
const pgOnNode = {
  name: 'pg-on-node',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(CLOUDFLARE_CHECK)) throw new Error(`${args.path} no longer has \`${CLOUDFLARE_CHECK}\` (scripts/build.mjs, pgOnNode)`);
      return { contents: source.replace(CLOUDFLARE_CHECK, `${CLOUDFLARE_CHECK} return false; // the bundle runs on Node (scripts/build.mjs)`), loader: 'js' };
    });
  },
};
await build({
  entryPoints: [main],
  outfile: path.join(out, 'server', 'bundle.cjs'),
  bundle: true,
  external: ['@electric-sql/pglite', '@electric-sql/pglite/*', 'esbuild', 'pdfkit', 'swagger-ui-dist', ...OPENTELEMETRY_SDK, 'nodemailer', 'pg-native'],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  supported: { 'dynamic-import': false },
  sourcemap: 'linked',
  sourcesContent: false,
  // Without its whitespace and with shorter syntax (names are kept: stacks and profiles still read,
  // and the source map maps them), the bundle is 4.8 MB instead of 6.7, and every start reads,
  // decodes and compiles less of it: a PGlite restart to the first 200 in a median of 1.47 s against
  // 1.62 s (13 alternating runs each, 2026-11-29). With the validator inside it is 5.5 MB.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // The server's files find the project from their own place (server/shared/project-root.ts).
  define: { 'import.meta.url': '__tillBundleUrl' },
  plugins: [pgOnNode],
  banner: { js: "const __tillBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
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
