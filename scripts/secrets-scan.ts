#!/usr/bin/env -S npx tsx
// The secrets scan, run by CI after the whole test run (.ci/run): the dump of the PostgreSQL
// database every test and conformance run wrote to (with the copies of it each test file had,
// `<name>_*`, which CI keeps for this scan), and every log they wrote, must hold no card
// number (a Luhn-valid run of 13 to 19 digits), no security-code field or column, and no whole
// secret key. Findings are printed masked, with where they are; the exit code is 1 if any.
//
//   npx tsx scripts/secrets-scan.ts [--database postgres://…/db] [--logs out/logs] [--report out/secrets-scan.json]
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { type Finding, findSecrets } from './secrets/patterns.js';

interface Located extends Finding {
  where: string;
}

interface Tally {
  findings: Located[];
  lines: number;
  bytes: number;
}

/** A column that would hold card data by its name alone. */
const CARD_COLUMN = /^(?:cvc|cvv|cvc2|cvv2|security_code|card_number|pan|card_cvc)$/i;

function scanLine(tally: Tally, line: string, where: string): void {
  tally.lines++;
  tally.bytes += line.length + 1;
  for (const f of findSecrets(line)) tally.findings.push({ ...f, where });
}

/** Streams `pg_dump --data-only` and scans each row; a COPY header names the table and is checked for card columns. */
async function scanDatabase(url: string, tally: Tally): Promise<void> {
  const dump = spawn('pg_dump', ['--data-only', '--no-owner', '--dbname', url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  dump.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number>((resolve, reject) => {
    dump.on('error', reject);
    dump.on('close', (code) => resolve(code ?? 1));
  });
  let table = '(preamble)';
  let row = 0;
  for await (const line of createInterface({ input: dump.stdout, crlfDelay: Infinity })) {
    const copy = /^COPY (\S+) \(([^)]*)\) FROM stdin;$/.exec(line);
    if (copy) {
      table = copy[1]!;
      row = 0;
      for (const column of copy[2]!.split(',').map((c) => c.trim().replace(/"/g, ''))) {
        if (CARD_COLUMN.test(column)) tally.findings.push({ kind: 'cvc', index: 0, masked: column, where: `${table} (column ${column})` });
      }
      continue;
    }
    scanLine(tally, line, `database ${table} row ${++row}`);
  }
  const code = await exited;
  if (code !== 0) throw new Error(`pg_dump failed (${code}): ${stderr.replace(/postgres(ql)?:\/\/\S+/g, '<url>')}`);
}

/** The database of `url` and its family: every database on that server named `<name>_…` (the test files' copies). */
async function family(url: string): Promise<string[]> {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datallowconn AND (datname = $1 OR datname LIKE $2) ORDER BY datname',
      [name, `${name}\\_%`],
    );
    return rows.map((r) => {
      const copy = new URL(url);
      copy.pathname = `/${r.datname}`;
      return copy.toString();
    });
  } finally {
    await client.end();
  }
}

async function logFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

async function scanLogs(dir: string, tally: Tally): Promise<number> {
  const files = await logFiles(dir);
  for (const file of files) {
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, i) => scanLine(tally, line, `log ${path.relative(process.cwd(), file)}:${i + 1}`));
  }
  return files.length;
}

async function main() {
  const { values } = parseArgs({
    options: { database: { type: 'string' }, logs: { type: 'string', multiple: true, default: [] }, report: { type: 'string' } },
  });
  const database: Tally = { findings: [], lines: 0, bytes: 0 };
  const logs: Tally = { findings: [], lines: 0, bytes: 0 };
  const databases = values.database ? await family(values.database) : [];
  for (const url of databases) await scanDatabase(url, database);
  let files = 0;
  for (const dir of values.logs!) files += await scanLogs(dir, logs);
  const findings = [...database.findings, ...logs.findings];
  const summary = {
    database: values.database ? { databases: databases.length, rows: database.lines, bytes: database.bytes } : null,
    logs: { files, lines: logs.lines, bytes: logs.bytes },
    findings: findings.map(({ kind, masked, where }) => ({ kind, masked, where })),
  };
  console.log(
    `secrets scan: ${summary.database ? `${summary.database.databases} databases, ${summary.database.rows} lines, ${(summary.database.bytes / 1e6).toFixed(1)} MB` : 'not scanned'}; ` +
      `logs ${files} files, ${logs.lines} lines, ${(logs.bytes / 1e6).toFixed(1)} MB; ${findings.length} findings`,
  );
  for (const f of findings.slice(0, 50)) console.log(`  ${f.kind} ${f.masked} in ${f.where}`);
  if (values.report) {
    await mkdir(path.dirname(values.report), { recursive: true });
    await writeFile(values.report, `${JSON.stringify(summary, null, 2)}\n`);
  }
  if (database.lines === 0 && values.database) throw new Error('the database dump was empty');
  process.exitCode = findings.length > 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(`secrets scan failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
