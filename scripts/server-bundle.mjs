// The server's bundle, dist/server/bundle.cjs: esbuild's options for it (scripts/build.mjs builds
// it; test/platform/server-bundle.unit.test.ts checks what it holds), and the plugins that change
// what it takes in from the packages, each with the start time it saves.
//
// What `npm start` runs: the server and its dependencies in one file, dist/server/bundle.cjs (the
// build's other files stay one per source, for the merchant command and the benches), which the
// launcher, dist/server/main.js, loads with a V8 code cache (server/launch.ts). Loading the
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
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

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
      if (!source.includes(CLOUDFLARE_CHECK)) throw new Error(`${args.path} no longer has \`${CLOUDFLARE_CHECK}\` (scripts/server-bundle.mjs, pgOnNode)`);
      return {
        contents: source.replace(CLOUDFLARE_CHECK, `${CLOUDFLARE_CHECK} return false; // the bundle runs on Node (scripts/server-bundle.mjs)`),
        loader: 'js',
      };
    });
  },
};

/** `@b/c` from `node_modules/a/node_modules/@b/c`: the name of the package in a folder. */
const nameIn = (folder) => folder.slice(folder.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** `node_modules/a/node_modules/@b/c` from `node_modules/a/node_modules/@b/c/lib/x.js`: the package folder a file is in. */
function packageFolder(file) {
  const at = file.lastIndexOf('node_modules/');
  if (at === -1) return undefined;
  const [scope, name] = file.slice(at + 'node_modules/'.length).split('/');
  return file.slice(0, at) + `node_modules/${scope.startsWith('@') ? `${scope}/${name}` : scope}`;
}

const AGAIN = Symbol('resolved by one-package-copy');

/**
 * One copy of each version of a package. npm nests a package under each package that needs it
 * when another version holds the top folder: express 5's mime-types 3.0.2, with its 150 kB mime-db,
 * lies under express, body-parser and send, and iconv-lite 0.7.3 (500 kB) under body-parser and
 * raw-body, and the bundle held every copy and ran each one's setup at every start. The lockfile
 * says where each copy of a name and version lies; an import that lands in any copy but the first
 * (in the lockfile's order) is sent to the first. The copies are the same files, asking for the
 * same ranges of their own dependencies, which then resolve from the first copy's folder.
 */
function onePackageCopy(lockfile) {
  const root = path.dirname(lockfile);
  const first = new Map(); // name@version → folder
  const sameAs = new Map(); // folder → the first folder of its name@version
  for (const [folder, entry] of Object.entries(JSON.parse(readFileSync(lockfile, 'utf8')).packages)) {
    const name = packageFolder(folder) === folder ? nameIn(folder) : undefined;
    if (!name || entry.link || !entry.version) continue;
    const id = `${name}@${entry.version}`;
    if (first.has(id)) sameAs.set(folder, first.get(id));
    else first.set(id, folder);
  }
  // Only the names that have copies to send elsewhere: resolving every import twice made a build a second longer.
  const names = [...new Set([...sameAs.keys()].map(nameIn))];
  const escaped = names.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return {
    name: 'one-package-copy',
    setup(bundler) {
      if (names.length === 0) return;
      bundler.onResolve({ filter: new RegExp(`^(${escaped.join('|')})(/|$)`) }, async (args) => {
        if (args.pluginData === AGAIN || !args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const resolved = await bundler.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: AGAIN });
        if (resolved.errors.length > 0 || resolved.external) return undefined;
        const file = path.relative(root, resolved.path).split(path.sep).join('/');
        const folder = packageFolder(file);
        const to = folder && sameAs.get(folder);
        return to ? { path: path.join(root, to, file.slice(folder.length)), sideEffects: resolved.sideEffects } : undefined;
      });
    },
  };
}

/**
 * esbuild's options for the server's bundle of `root`, written to `outfile`.
 * @param {string} root
 * @param {string} outfile
 * @returns {import('esbuild').BuildOptions}
 */
export function serverBundle(root, outfile) {
  return {
    entryPoints: [path.join(root, 'server', 'main.ts')],
    outfile,
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
    // 1.62 s (13 alternating runs each, 2026-11-29). With the validator inside it was 5.5 MB, and with
    // one copy of each package version (onePackageCopy) it is 4.7 MB.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    // The server's files find the project from their own place (server/shared/project-root.ts).
    define: { 'import.meta.url': '__tillBundleUrl' },
    plugins: [pgOnNode, onePackageCopy(path.join(root, 'package-lock.json'))],
    banner: { js: "const __tillBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  };
}
