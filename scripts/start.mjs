#!/usr/bin/env node
// `npm start`: builds dist/ when a source changed since the last build (scripts/build.mjs, in a
// process of its own, as `npm run build`), then runs the built server (dist/server/main.js) in
// this process. One Node process where a `prestart` step made two (and npm a shell for each): PGlite
// restarts to the first 200 in a median of 960 against 1,016 ms (eight alternating). The container
// runs dist/server/main.js directly.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root, sources, stale } from './build-state.mjs';

if (stale(sources())) {
  const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const { run } = await import('../dist/server/main.js');
run();
