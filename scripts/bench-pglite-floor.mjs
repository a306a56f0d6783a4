// The floor of a start on PGlite, for the cold-start part of `npm run bench`: Node.js, PGlite on
// a data directory, opened as Till opens it (server/db/pglite-start.ts; a new one is first copied
// from the build's template, as Till's first start does), and a bare node:http server that
// answers every request with one statement, Till's list of plans. No framework, no migrations
// check, no job queue, no app: what any Node.js program that embeds this database pays before its
// first 200. Started by `node` directly (no npm).
//
//   PORT=… TILL_DATA_DIR=… node scripts/bench-pglite-floor.mjs
import { access, cp, mkdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPglite } from '../dist/server/db/pglite-start.js';

const template = fileURLToPath(new URL('../dist/pglite-template', import.meta.url));
const dataDir = path.join(process.env.TILL_DATA_DIR, 'pglite');
const fresh = await access(path.join(dataDir, 'PG_VERSION')).then(
  () => false,
  () => true,
);
if (fresh) {
  await mkdir(dataDir, { recursive: true });
  await cp(template, dataDir, { recursive: true });
}
const pglite = await createPglite({ dataDir });
const server = http.createServer((req, res) => {
  pglite.query('SELECT * FROM plans ORDER BY id DESC LIMIT 10').then(
    (r) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: r.rows })),
    (err) => res.writeHead(500).end(String(err)),
  );
});
server.listen(Number(process.env.PORT), '127.0.0.1');
const stop = () => server.close(() => pglite.close().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
