// The report as JUnit XML, for CI systems that show test results (GitLab, Jenkins, GitHub
// actions that read JUnit): one testcase per contract check (each operation's success case, each
// of its error cases, and whether every answer kept the contract) and one per scenario. A failure
// carries its note; pending is `<skipped/>` with its reason.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Outcome, Report } from './types.js';

/** Text made safe for XML 1.0: the five special characters escaped, characters XML cannot hold dropped. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

interface Case {
  classname: string;
  name: string;
  outcome: Outcome;
  note?: string | undefined;
  seconds: number;
}

const seconds = (ms: number | undefined) => (ms ?? 0) / 1000;

function testcase(c: Case): string {
  const open = `    <testcase classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}" time="${c.seconds.toFixed(3)}"`;
  if (c.outcome === 'passed') return `${open}/>`;
  const note = c.note ?? '';
  const firstLine = note.split('\n')[0]!.slice(0, 300);
  const inner =
    c.outcome === 'pending'
      ? `<skipped message="${xmlEscape(firstLine || 'pending')}"/>`
      : `<failure message="${xmlEscape(firstLine || 'failed')}" type="failure">${xmlEscape(note)}</failure>`;
  return `${open}>\n      ${inner}\n    </testcase>`;
}

function suite(name: string, cases: Case[], timestamp: string): string {
  const count = (o: Outcome) => cases.filter((c) => c.outcome === o).length;
  const time = cases.reduce((sum, c) => sum + c.seconds, 0);
  return [
    `  <testsuite name="${xmlEscape(name)}" tests="${cases.length}" failures="${count('failed')}" errors="0" skipped="${count('pending')}" time="${time.toFixed(3)}" timestamp="${xmlEscape(timestamp.replace(/\.\d+Z$/, 'Z'))}">`,
    ...cases.map(testcase),
    '  </testsuite>',
  ].join('\n');
}

/** The report as a JUnit XML document: a `contract` suite and a `scenarios` suite. */
export function toJUnit(report: Report): string {
  const contract: Case[] = [];
  for (const op of report.operations) {
    const classname = `contract.${op.api}.${op.operationId}`;
    // The operation's time goes to its success case; its other cases ran within it.
    contract.push({ classname, name: `${op.method} ${op.path} success`, outcome: op.success.outcome, note: op.success.note, seconds: seconds(op.durationMs) });
    for (const e of op.errors) contract.push({ classname, name: e.name, outcome: e.outcome, note: e.note, seconds: 0 });
    contract.push({
      classname,
      name: 'every answer keeps the contract',
      outcome: op.schemaValid ? 'passed' : 'failed',
      note: op.problems.join('\n'),
      seconds: 0,
    });
  }
  const scenarios: Case[] = report.scenarios.map((s) => ({
    classname: `scenarios.${s.id.split('.').slice(0, 2).join('.')}`,
    name: `${s.id}: ${s.title}`,
    outcome: s.outcome,
    note: s.note ? `${s.note}\n(${s.source})` : undefined,
    seconds: seconds(s.durationMs),
  }));
  const all = [...contract, ...scenarios];
  const count = (o: Outcome) => all.filter((c) => c.outcome === o).length;
  const time = all.reduce((sum, c) => sum + c.seconds, 0);
  const title = `Till conformance: ${report.target} at ${report.baseUrl}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(title)}" tests="${all.length}" failures="${count('failed')}" errors="0" skipped="${count('pending')}" time="${time.toFixed(3)}">`,
    suite('contract', contract, report.startedAt),
    suite('scenarios', scenarios, report.startedAt),
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes the JUnit XML to `file` (its folder is made). */
export async function writeJUnit(file: string, report: Report): Promise<string> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFile(file, toJUnit(report));
  return file;
}
