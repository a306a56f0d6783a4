// $filter text → the syntax tree of @odata/parser. That parser (OData v4 ABNF) lacks the `in`
// operator, so `field in (a, b)` is first rewritten to `(field eq a or field eq b)`, keeping a
// map from each rewritten character back to the caller's text so positions stay the caller's.
import { defaultParser, type Token } from '@odata/parser';
import { invalidOption } from './errors.js';

export type { Token };

/** Longest $filter accepted (the contract's maxLength) and deepest nesting compiled. */
export const MAX_FILTER_LENGTH = 2000;

interface Rewritten {
  text: string;
  /** For each character of `text`, its position in the caller's string. */
  origin: number[];
}

const IN_LIST = /([A-Za-z_][A-Za-z0-9_]*)(\s+in\s*)\(/y;

/** The end (exclusive) of the quoted string starting at `start`, '' doubling as an escape. */
function skipQuoted(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === "'") {
      if (text[i + 1] === "'") i += 2;
      else return i + 1;
    } else i++;
  }
  return i;
}

/** The items of a parenthesized list opening at `open`: their [start, end) spans and the close position. */
function listItems(text: string, open: number): { items: Array<[number, number]>; close: number } | undefined {
  const items: Array<[number, number]> = [];
  let start = open + 1;
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (c === "'") i = skipQuoted(text, i);
    else if (c === '(') return undefined;
    else if (c === ',' || c === ')') {
      items.push([start, i]);
      if (c === ')') return { items, close: i };
      start = ++i;
    } else i++;
  }
  return undefined;
}

/** Rewrites every `field in (…)` outside string literals; anything else is copied unchanged. */
export function rewriteIn(text: string): Rewritten {
  const out: string[] = [];
  const origin: number[] = [];
  const emit = (s: string, at: number) => {
    for (const ch of s) {
      out.push(ch);
      origin.push(at);
    }
  };
  const copy = (from: number, to: number) => {
    for (let k = from; k < to; k++) {
      out.push(text[k]!);
      origin.push(k);
    }
  };
  let i = 0;
  while (i < text.length) {
    if (text[i] === "'") {
      const end = skipQuoted(text, i);
      copy(i, end);
      i = end;
      continue;
    }
    IN_LIST.lastIndex = i;
    const m = /[A-Za-z0-9_]/.test(text[i - 1] ?? ' ') ? null : IN_LIST.exec(text);
    const list = m ? listItems(text, i + m[0].length - 1) : undefined;
    if (!m || !list || list.items.some(([a, b]) => text.slice(a, b).trim() === '')) {
      copy(i, i + 1);
      i++;
      continue;
    }
    const inAt = i + m[1]!.length + m[2]!.search(/in/);
    emit('(', inAt);
    list.items.forEach(([a, b], n) => {
      if (n > 0) emit(' or ', a);
      copy(i, i + m[1]!.length);
      emit(' eq ', inAt);
      copy(a, b);
    });
    emit(')', list.close);
    i = list.close + 1;
  }
  return { text: out.join(''), origin };
}

/** The position the parser reported, in the caller's string. */
function callerPosition(message: string, rewritten: Rewritten, fallback: number): number {
  const at = /at (\d+)/.exec(message);
  if (!at) return fallback;
  const n = Number(at[1]);
  return rewritten.origin[n] ?? fallback;
}

/** A parsed $filter and where each of its nodes starts in the caller's string. */
export interface ParsedFilter {
  tree: Token;
  at(node: Token): number;
}

/** Parses a $filter; every failure is a 400 naming `$filter` and the position. */
export function parseFilter(text: string): ParsedFilter {
  if (text.length > MAX_FILTER_LENGTH) throw invalidOption('$filter', `is longer than ${MAX_FILTER_LENGTH} characters.`);
  if (text.trim() === '') throw invalidOption('$filter', 'is empty.');
  const rewritten = rewriteIn(text);
  let tree: Token | undefined;
  try {
    tree = defaultParser.filter(rewritten.text);
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    throw invalidOption('$filter', `syntax error at position ${callerPosition(message, rewritten, 0)}.`);
  }
  if (!tree) throw invalidOption('$filter', 'syntax error at position 0.');
  if (tree.next < rewritten.text.length) {
    throw invalidOption('$filter', `syntax error at position ${rewritten.origin[tree.next] ?? text.length}.`);
  }
  return { tree, at: (node) => rewritten.origin[node.position] ?? node.position };
}
