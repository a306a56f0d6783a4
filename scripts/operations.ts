#!/usr/bin/env -S npx tsx
// Lists which contract operations this server implements (the others answer 501).
//
//   npm run operations            a table per interface
//   npm run operations -- --json  {"implemented": [...], "notImplemented": [...], "total": N}
import { implementedOperations } from '../server/api/registry.js';
import { loadContracts } from '../server/openapi/contracts.js';
import { RouteTable } from '../server/http/routes.js';
import { parseCommandLine } from './cli.js';

const help = `Usage: npm run operations -- [--json]

Lists the operations of both contracts (openapi/) and whether this server implements each; the
others answer 501 not_implemented.

  --json      one JSON object instead of the tables: {"implemented": [...], "notImplemented": [...], "total": N}
  --help, -h  this text`;

const values = parseCommandLine('operations', help, { json: { type: 'boolean' } });

const routes = new RouteTable(loadContracts());
const implemented = new Set(implementedOperations());
const all = [...routes.operations].sort((a, b) => a.api.localeCompare(b.api) || a.template.localeCompare(b.template) || a.method.localeCompare(b.method));
if (values.json) {
  console.log(
    JSON.stringify(
      {
        implemented: all.filter((r) => implemented.has(r.operationId)).map((r) => r.operationId),
        notImplemented: all.filter((r) => !implemented.has(r.operationId)).map((r) => r.operationId),
        total: all.length,
      },
      null,
      2,
    ),
  );
} else {
  for (const api of ['checkout', 'commerce'] as const) {
    const ops = all.filter((r) => r.api === api);
    console.log(`\n${api}: ${ops.filter((r) => implemented.has(r.operationId)).length} of ${ops.length} implemented`);
    for (const r of ops) console.log(`  ${implemented.has(r.operationId) ? '✓' : '·'} ${r.method.padEnd(6)} ${r.template}  (${r.operationId})`);
  }
  console.log(`\n${implemented.size} of ${all.length} operations implemented.`);
}
