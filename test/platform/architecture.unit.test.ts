// Rules of the code's shape that imports alone cannot show (the layer map itself is checked by
// dependency-cruiser: `npm run lint:layers`). Each rule scans the server's sources as text.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sources(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** `file:line: text` of every line of `files` that matches `pattern`. */
function matches(files: string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

const server = sources('server');
/** Statements on tables: Kysely's query builders and raw `sql` templates. */
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\(|\bsql(<[^>]*>)?`/;

describe('the shape of the server', () => {
  it('queries tables only in repositories (which scope every statement to its tenant), the migrations and their runner, and the scoping helpers', () => {
    const allowed = (file: string) =>
      file.endsWith('.repository.ts') || file.startsWith('server/db/migrations/') || file === 'server/db/migrate.ts' || file === 'server/db/scope.ts';
    const odata = (file: string) => file.startsWith('server/odata/');
    expect(
      matches(
        server.filter((f) => !allowed(f) && !odata(f)),
        QUERY,
      ),
    ).toEqual([]);
    // The OData engine compiles a caller's $filter into `sql` conditions (bound parameters, declared
    // columns) for a query a repository scoped; it never starts a statement on a table itself.
    expect(matches(server.filter(odata), /\.(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\(/)).toEqual([]);
  });

  it('writes ledger_entries only in domain/ledger (the ledger is the only writer of money)', () => {
    const outside = server.filter((f) => !f.startsWith('server/domain/ledger/') && !f.startsWith('server/db/'));
    expect(matches(outside, /['"`]ledger_entries['"`]/)).toEqual([]);
  });

  it("keeps generated/ (the contract's wire types) out of the domain core", () => {
    const core = server.filter((f) => /^server\/(domain|shared|db|rails)\//.test(f));
    expect(matches(core, /generated\/(checkout|commerce)/)).toEqual([]);
  });

  it('would see a violation: the scan finds a query outside a repository in a sample', () => {
    // The rule above must be able to fail: the same pattern on lines it must catch.
    for (const line of ["await db.selectFrom('payments').selectAll()", 'trx.updateTable("invoices")', 'sql`SELECT 1`', 'sql<string>`now()`'])
      expect(QUERY.test(line)).toBe(true);
    for (const line of ['const sql = query.sql;', 'selectFromList(items)']) expect(QUERY.test(line)).toBe(false);
  });
});
