// The JUnit reporter: a well-formed XML document (checked by a small parser below, not a
// dependency), one testcase per contract check and per scenario, failures with their notes,
// pending as <skipped/>, and every hostile character escaped.
import { describe, expect, it } from 'vitest';
import { toJUnit, xmlEscape } from '../junit.js';
import type { Report } from '../types.js';

interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Element[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+)?(;)?/g, (whole, e: string | undefined, semi: string | undefined) => {
    if (!e || !semi) throw new Error(`a bare & in ${JSON.stringify(text.slice(0, 60))}`);
    if (ENTITIES[e] !== undefined) return ENTITIES[e]!;
    if (!e.startsWith('#')) throw new Error(`unknown entity ${whole}`);
    return String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });
}

/** A strict little XML parser for what the reporter writes: a declaration, elements, attributes, text. Throws on anything malformed. */
function parseXml(xml: string): Element {
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at ${i}: ${JSON.stringify(xml.slice(i, i + 40))}`);
  };
  if (/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(xml)) fail('a character XML cannot hold');
  const decl = /^<\?xml version="1\.0" encoding="UTF-8"\?>\s*/.exec(xml);
  if (!decl) fail('no XML declaration');
  i = decl![0].length;
  const NAME = /[A-Za-z_][\w.-]*/y;
  function name(): string {
    NAME.lastIndex = i;
    const m = NAME.exec(xml) ?? fail('expected a name');
    i += m![0].length;
    return m![0];
  }
  function element(): Element {
    if (xml[i] !== '<') fail('expected <');
    i++;
    const el: Element = { name: name(), attributes: {}, children: [], text: '' };
    for (;;) {
      const ws = /\s*/y;
      ws.lastIndex = i;
      i += ws.exec(xml)![0].length;
      if (xml.startsWith('/>', i)) {
        i += 2;
        return el;
      }
      if (xml[i] === '>') {
        i++;
        break;
      }
      const attr = name();
      if (el.attributes[attr] !== undefined) fail(`attribute ${attr} twice`);
      if (!xml.startsWith('="', i)) fail('expected ="');
      const end = xml.indexOf('"', i + 2);
      const raw = xml.slice(i + 2, end);
      if (end < 0 || /[<]/.test(raw)) fail('bad attribute value');
      el.attributes[attr] = decode(raw);
      i = end + 1;
    }
    for (;;) {
      const next = xml.indexOf('<', i);
      if (next < 0) fail(`unclosed <${el.name}>`);
      const raw = xml.slice(i, next);
      if (raw.includes('>')) fail('a bare > in text');
      el.text += decode(raw);
      i = next;
      if (xml.startsWith('</', i)) {
        i += 2;
        if (name() !== el.name) fail(`</…> does not close <${el.name}>`);
        if (xml[i++] !== '>') fail('expected >');
        return el;
      }
      el.children.push(element());
    }
  }
  const root = element();
  if (xml.slice(i).trim() !== '') fail('content after the root element');
  return root;
}

const hostile = 'a & b < c > d "e" \'f\' \u0000\u001b ]]> <script>alert(1)</script> é 💳';

const report: Report = {
  target: 'server',
  baseUrl: 'http://127.0.0.1:3000/?a=1&b=2',
  startedAt: '2026-11-25T16:00:00.123Z',
  durationMs: 4200,
  operations: [
    {
      api: 'checkout',
      operationId: 'createProduct',
      method: 'POST',
      path: '/v1/products',
      implemented: true,
      durationMs: 120,
      success: { outcome: 'passed' },
      errors: [
        { name: '401 without a key', outcome: 'passed' },
        { name: '400 for an invalid body', outcome: 'failed', note: hostile },
      ],
      schemaValid: false,
      problems: ['POST /v1/products → 201: body/name must be string'],
    },
    {
      api: 'commerce',
      operationId: 'createTransfer',
      method: 'POST',
      path: '/v1/Transfer',
      implemented: false,
      success: { outcome: 'pending', note: 'not implemented (501)' },
      errors: [],
      schemaValid: true,
      problems: [],
    },
  ],
  scenarios: [
    {
      id: 'checkout.plans.update-immutable',
      title: 'Amount & interval <cannot> change',
      source: 'checkout-billing-api.md › Plans',
      outcome: 'passed',
      durationMs: 800,
    },
    {
      id: 'webhooks.delivery.retry-schedule',
      title: 'Retries',
      source: 'checkout-billing-api.md › Webhooks',
      outcome: 'failed',
      note: `expected 3 deliveries\n${hostile}`,
      durationMs: 1500,
      merchant: 'sandbox',
    },
    { id: 'commerce.transfers.x', title: 'Transfers', source: 'commerce-api.md', outcome: 'pending', note: 'not implemented: createTransfer' },
  ],
  totals: { passed: 3, failed: 3, pending: 2 },
};

describe('toJUnit', () => {
  const xml = toJUnit(report);
  const root = parseXml(xml);
  const suites = root.children;
  const cases = (suite: string) => suites.find((s) => s.attributes.name === suite)!.children;

  it('is well-formed XML: testsuites of testsuite of testcase', () => {
    expect(root.name).toBe('testsuites');
    expect(suites.map((s) => s.name)).toEqual(['testsuite', 'testsuite']);
    expect(suites.map((s) => s.attributes.name)).toEqual(['contract', 'scenarios']);
    expect(root.attributes.name).toBe('Till conformance: server at http://127.0.0.1:3000/?a=1&b=2');
  });

  it('has one testcase per contract check (success, each error case, the schema) and per scenario', () => {
    expect(cases('contract').map((c) => `${c.attributes.classname} | ${c.attributes.name}`)).toEqual([
      'contract.checkout.createProduct | POST /v1/products success',
      'contract.checkout.createProduct | 401 without a key',
      'contract.checkout.createProduct | 400 for an invalid body',
      'contract.checkout.createProduct | every answer keeps the contract',
      'contract.commerce.createTransfer | POST /v1/Transfer success',
      'contract.commerce.createTransfer | every answer keeps the contract',
    ]);
    expect(cases('scenarios').map((c) => c.attributes.name)).toEqual([
      'checkout.plans.update-immutable: Amount & interval <cannot> change',
      'webhooks.delivery.retry-schedule: Retries',
      'commerce.transfers.x: Transfers',
    ]);
    expect(cases('scenarios')[0]!.attributes.classname).toBe('scenarios.checkout.plans');
  });

  it('counts failures and skips, and carries failure notes and pending reasons', () => {
    expect(root.attributes).toMatchObject({ tests: '9', failures: '3', skipped: '2', errors: '0' });
    expect(suites[0]!.attributes).toMatchObject({ tests: '6', failures: '2', skipped: '1', timestamp: '2026-11-25T16:00:00Z' });
    const failed = cases('scenarios')[1]!.children[0]!;
    expect(failed.name).toBe('failure');
    expect(failed.attributes.message).toBe('expected 3 deliveries');
    expect(failed.text).toContain('a & b < c > d "e" \'f\'  ]]> <script>alert(1)</script> é 💳');
    const skipped = cases('scenarios')[2]!.children[0]!;
    expect(skipped.name).toBe('skipped');
    expect(skipped.attributes.message).toBe('not implemented: createTransfer');
    expect(cases('scenarios')[0]!.children).toEqual([]);
    expect(cases('scenarios')[1]!.attributes.time).toBe('1.500');
    expect(cases('contract')[3]!.children[0]!.text).toBe('POST /v1/products → 201: body/name must be string');
  });

  it('escapes the five special characters and drops characters XML cannot hold', () => {
    expect(xmlEscape(`<a href="x">'&'</a>\u0000\u0008\ufffe`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
    expect(() => parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a><b></a>')).toThrow();
    expect(() => parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a x="1 & 2"/>')).toThrow();
  });
});
