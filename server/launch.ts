// The built server's entry: the build compiles this file to dist/server/main.js, what `npm start`,
// the container and the benches run. It loads the server's bundle (server/main.ts and its
// dependencies, dist/server/bundle.cjs) with a V8 code cache: the functions a start compiled,
// saved once and read back by every later start, so that V8 neither parses nor compiles them
// again. A PGlite restart to the first 200, sixteen alternating pairs (2026-11-29): a median of
// 838 ms against 1,054 ms before, faster in 15; the bundle's compile from 131–169 ms to 42 ms.
// Node 22's `module.enableCompileCache` does this for ES modules, Node 20 has nothing of the kind:
// so the bundle is CommonJS, compiled here as Node compiles a CommonJS module.
//
// The cache is `bundle-<size>-<time>-<V8 version>.v8cache` beside the bundle, or in
// TILL_CODE_CACHE_DIR. A start without one (the first after a build, a new Node) writes it once,
// ten seconds after it began or as it exits if that is sooner; V8 itself refuses a cache made from
// another source, V8 or flag set, and a refused one is written again. Where the folder cannot be
// written (the container's dist/ belongs to root), every start compiles the bundle as before.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { budgetWasmTiering } from './db/wasm-tiering.js';

/** What the bundle exports: server/main.ts's `run`. */
interface Bundle {
  run(): void;
}

const BUNDLE = fileURLToPath(new URL('./bundle.cjs', import.meta.url));
const WRITE_AFTER_MS = 10_000;

/** The cache's file for this bundle and this V8, and the start of the names of its others. */
function cacheFile(): { file: string; prefix: string } {
  const dir = process.env.TILL_CODE_CACHE_DIR || path.dirname(BUNDLE);
  const { size, mtimeMs } = statSync(BUNDLE);
  const prefix = `bundle-${size}-${Math.trunc(mtimeMs)}-`;
  return { file: path.join(dir, `${prefix}${process.versions.v8}.v8cache`), prefix };
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes the script's code cache (in full, then renamed into place), and removes the caches of other builds. Never throws. */
function writeCache(script: vm.Script, { file, prefix }: { file: string; prefix: string }): void {
  try {
    const dir = path.dirname(file);
    // One level, and synchronous (this also runs at exit): Node's recursive mkdir loops forever
    // where a parent exists but refuses children (/proc); server/shared/make-directory.ts is the async form.
    if (!existsSync(dir)) mkdirSync(dir);
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, file);
    for (const name of readdirSync(dir))
      if (name.startsWith('bundle-') && name.endsWith('.v8cache') && !name.startsWith(prefix)) rmSync(path.join(dir, name), { force: true });
  } catch {
    // A folder that cannot be written: later starts compile the bundle, as this one did.
  }
}

/** Compiles and runs the bundle as a CommonJS module, with the code cache when V8 accepts it. */
function loadBundle(): Bundle {
  budgetWasmTiering(); // before compiling: V8 accepts a cache only under the flags it was made with
  const cache = cacheFile();
  const cachedData = readCache(cache.file);
  // The wrapper on a line of its own, and lineOffset, keep the bundle's lines and columns for its source map.
  const source = `(function (exports, require, module, __filename, __dirname) {\n${readFileSync(BUNDLE, 'utf8')}\n})`;
  const script = new vm.Script(source, { filename: BUNDLE, lineOffset: -1, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    let written = false;
    const write = () => {
      if (!written) writeCache(script, cache);
      written = true;
    };
    setTimeout(write, WRITE_AFTER_MS).unref();
    process.once('exit', write);
  }
  const bundle = { exports: {} as Bundle };
  (script.runInThisContext() as (...args: unknown[]) => void)(bundle.exports, createRequire(BUNDLE), bundle, BUNDLE, path.dirname(BUNDLE));
  return bundle.exports;
}

/** Starts Till from the build (server/main.ts's `run`). */
export function run(): void {
  loadBundle().run();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) run();
