// What every answer must keep, whatever was sent: no 5xx (but the 501 of an operation this server
// does not implement, and the 500 of the server-error test helper, which fails on purpose), a body
// in the shape the contract documents for that operation and status, and nothing internal in the
// body or headers: no stack frame or file path, no SQL or database message, no API key, no card number.
import { ContractValidator, loadBundledContracts } from '../../../conformance/validator.js';
import { loadContracts } from '../../../server/openapi/contracts.js';
import { RouteTable } from '../../../server/http/routes.js';
import type { FuzzCase } from './cases.js';
import type { FuzzOperation } from './contract.js';
import type { Answer } from './send.js';
import { HOSTILE_TEXT } from './valid-values.js';

const validator = new ContractValidator(loadBundledContracts());
/** The server's own router: which operation a (possibly broken) path names. */
const routes = new RouteTable(loadContracts());

// PostgreSQL says "syntax error at or near" / "at end of input"; the OData engine's own "syntax error at position N" (issue 15) names the caller's text, not SQL.
const LEAKS: [string, RegExp][] = [
  ['a stack frame', /\n\s+at [^\n]+|\bat [\w.<>]+ \([^)]*:\d+:\d+\)/],
  ['a file path', /(?:\/work\/|\/home\/|node_modules|[\w-]+\.(?:ts|js|mjs):\d+)/],
  [
    'SQL',
    /\b(?:select\s+[\w*"]+[\w\s,."*]*\s+from|insert\s+into|update\s+\w+\s+set|delete\s+from)\b|\brelation\s+"|syntax error at (?:or near|end of input)|violates [\w ]*constraint|invalid input syntax|duplicate key value/i,
  ],
  ['a database error', /\b(?:PGlite|postgres|pg_|SQLSTATE|kysely)\b/i],
  ['an API key', /\b[spr]k_(?:test|live)_[A-Za-z0-9]{6,}/],
];

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** A Luhn-valid run of 13 to 19 digits that starts as card numbers do (2-6). */
function cardNumberIn(text: string): string | undefined {
  for (const m of text.matchAll(/(?<![\w.])[2-6]\d{12,18}(?![\w.])/g)) if (luhn(m[0])) return m[0];
  return undefined;
}

/** An echo of the caller's own input is not a leak (but a card number never is echoed), nor is hostile text stored by an earlier case. */
function echoed(found: string, c: FuzzCase): boolean {
  if (HOSTILE_TEXT.some((text) => text.toLowerCase().includes(found.toLowerCase()))) return true;
  const sent = `${c.path}\n${Object.values(c.headers).join('\n')}\n${c.body?.toString('utf8') ?? ''}`;
  let decoded = sent;
  try {
    decoded = decodeURIComponent(sent);
  } catch {
    /* the case's own broken encoding */
  }
  return sent.toLowerCase().includes(found.toLowerCase()) || decoded.toLowerCase().includes(found.toLowerCase());
}

/** Problems of one answer; an empty list means it is fine. */
export function checkAnswer(op: FuzzOperation, c: FuzzCase, answer: Answer): string[] {
  const problems: string[] = [];
  const { status } = answer;
  const documented501 = status === 501 && (!op.implemented || op.documentedNotImplemented);
  // The server-error test helper fails on purpose: its 500 is the documented answer (still checked for shape and leaks below).
  const documented500 = status === 500 && op.implemented && op.documentedServerError;
  if (status >= 500 && !documented501 && !documented500) problems.push(status === 501 ? '501 from an implemented operation' : `status ${status}`);
  const headerText = [...answer.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
  const routed = routes.resolve(c.method, c.path.split('?')[0]!);
  // An operation whose answer is a new secret (`x-answer-holds-secret`: a sandbox merchant's keys, a new merchant's, a restricted key) shows keys in its success body.
  const answersKeys =
    routed.kind === 'found' && status < 300 && Boolean((routed.route.operation as { 'x-answer-holds-secret'?: boolean })['x-answer-holds-secret']);
  for (const [what, pattern] of LEAKS) {
    for (const [where, text] of [
      ['body', answer.text],
      ['headers', headerText],
    ] as const) {
      if (answersKeys && where === 'body' && what === 'an API key') continue;
      const m = pattern.exec(text);
      if (m && !echoed(m[0], c)) problems.push(`${what} in the ${where}: ${JSON.stringify(m[0].slice(0, 80))}`);
    }
  }
  const card = cardNumberIn(answer.text) ?? cardNumberIn(headerText);
  if (card && (!echoed(card, c) || /"cardNumber"/.test(c.body?.toString('utf8') ?? ''))) problems.push(`a card number in the answer: ${card.slice(0, 6)}...`);
  // A broken path value may make the path another operation's (`/v1/invoice/getByReference(code=''')`
  // is `/v1/invoice/{id}`) or no operation's: the answer is then that operation's, or the router's 404.
  if (routed.kind === 'found') {
    for (const p of validator.validateResponse(routed.route.operationId, status, answer.headers, answer.text))
      problems.push(`contract (${routed.route.operationId}): ${p}`);
  } else if (status !== 404 || !/"code":\s*"route_not_found"/.test(answer.text)) {
    problems.push(`a path of no operation answered ${status}, not 404 route_not_found`);
  }
  return problems;
}
