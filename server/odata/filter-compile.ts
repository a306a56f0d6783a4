// The parsed $filter → one Kysely boolean expression. Columns come only from the resource's
// declarations and every literal is a bound parameter. Each comparison is two-valued (a NULL
// column makes it false, as OData says), so `not` and `or` mean what the caller wrote.
import { type RawBuilder, sql, type SqlBool } from 'kysely';
import { invalidOption } from './errors.js';
import { literalFor, typeName, unquote } from './literals.js';
import type { ParsedFilter, Token } from './filter-parse.js';
import { columnOf, type Field, fieldOf, type Resource } from './resource.js';

type Bool = RawBuilder<SqlBool>;
type Expr = RawBuilder<unknown>;

/** Deepest nesting of and/or/not/parentheses compiled. */
const MAX_DEPTH = 64;

const COMPARISONS: Record<string, (a: Expr, b: Expr) => Bool> = {
  EqualsExpression: (a, b) => sql<SqlBool>`${a} = ${b}`,
  NotEqualsExpression: (a, b) => sql<SqlBool>`${a} IS DISTINCT FROM ${b}`,
  GreaterThanExpression: (a, b) => sql<SqlBool>`${a} > ${b}`,
  GreaterOrEqualsExpression: (a, b) => sql<SqlBool>`${a} >= ${b}`,
  LesserThanExpression: (a, b) => sql<SqlBool>`${a} < ${b}`,
  LesserOrEqualsExpression: (a, b) => sql<SqlBool>`${a} <= ${b}`,
};

/** The same comparison with its operands swapped (`5 lt x` is `x gt 5`). */
const FLIPPED: Record<string, string> = {
  EqualsExpression: 'EqualsExpression',
  NotEqualsExpression: 'NotEqualsExpression',
  GreaterThanExpression: 'LesserThanExpression',
  GreaterOrEqualsExpression: 'LesserOrEqualsExpression',
  LesserThanExpression: 'GreaterThanExpression',
  LesserOrEqualsExpression: 'GreaterOrEqualsExpression',
};

const LIKE_PATTERNS: Record<string, (s: string) => string> = {
  contains: (s) => `%${s}%`,
  startswith: (s) => `${s}%`,
  endswith: (s) => `%${s}`,
};

/** A field operand: the declared field and its SQL, perhaps under tolower/toupper. */
interface FieldOperand {
  name: string;
  field: Field;
  sql: Expr;
}

interface Context {
  resource: Resource;
  parsed: ParsedFilter;
}

const fail = (ctx: Context, node: Token, what: string) => invalidOption('$filter', `${what} at position ${ctx.parsed.at(node)}.`);

/** `%`, `_` and `\` stand for themselves in a LIKE pattern (PostgreSQL's default escape is `\`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The property name of a member path, or undefined when the node is not a plain property. */
function propertyName(node: Token): string | undefined {
  let n: Token | undefined = node;
  while (n && ['FirstMemberExpression', 'MemberExpression', 'CommonExpression', 'PropertyPathExpression'].includes(n.type)) {
    if (n.type === 'PropertyPathExpression') {
      const id = n.value as Token | { current?: unknown };
      return 'type' in id && id.type === 'ODataIdentifier' ? String((id.value as { name: unknown }).name) : undefined;
    }
    n = n.value as Token;
  }
  return undefined;
}

function fieldOperand(ctx: Context, node: Token): FieldOperand | undefined {
  if (node.type === 'MethodCallExpression') return caseFolded(ctx, node);
  const name = propertyName(node);
  if (name === undefined) return undefined;
  const field = fieldOf(ctx.resource, name);
  if (!field) throw fail(ctx, node, `unknown field ${name}`);
  if (!field.filter) throw fail(ctx, node, `the field ${name} cannot be filtered`);
  return { name, field, sql: sql.ref(columnOf(ctx.resource, field)) };
}

/** `tolower(field)` / `toupper(field)` on a string field. */
function caseFolded(ctx: Context, node: Token): FieldOperand | undefined {
  const { method, parameters } = node.value as { method: string; parameters: Token[] };
  if (method !== 'tolower' && method !== 'toupper') return undefined;
  const inner = parameters.length === 1 ? fieldOperand(ctx, parameters[0]!) : undefined;
  if (!inner || inner.field.type !== 'string') throw fail(ctx, node, `${method} takes one string field`);
  return { ...inner, sql: method === 'tolower' ? sql`lower(${inner.sql})` : sql`upper(${inner.sql})` };
}

/** NULL-safe: a comparison on a nullable column is false, not unknown, when the column is NULL. */
const twoValued = (f: FieldOperand, b: Bool): Bool => (f.field.nullable ? sql<SqlBool>`coalesce(${b}, false)` : b);

function comparison(ctx: Context, node: Token): Bool {
  const { left, right } = node.value as { left: Token; right: Token };
  let op = node.type as string;
  let f = fieldOperand(ctx, left);
  let literal = right;
  if (!f) {
    f = fieldOperand(ctx, right);
    literal = left;
    op = FLIPPED[op]!;
  }
  if (!f) throw fail(ctx, node, 'a comparison needs a field on one side');
  if (literal.type !== 'Literal') throw fail(ctx, literal, 'a field can only be compared with a literal');
  if (literal.value === 'null') {
    if (op === 'EqualsExpression') return sql<SqlBool>`${f.sql} IS NULL`;
    if (op === 'NotEqualsExpression') return sql<SqlBool>`${f.sql} IS NOT NULL`;
    throw fail(ctx, literal, 'null can only be compared with eq or ne');
  }
  const value = literalFor(f.field, f.name, literal, ctx.parsed.at(literal));
  const others = alsoStoredAs(f.field, literal);
  if (others && op === 'EqualsExpression') return twoValued(f, sql<SqlBool>`${f.sql} IN (${sql.join([value, ...others.map((o) => sql.val(o))])})`);
  if (others && op === 'NotEqualsExpression') return twoValued(f, sql<SqlBool>`${f.sql} NOT IN (${sql.join([value, ...others.map((o) => sql.val(o))])})`);
  return twoValued(f, COMPARISONS[op]!(f.sql, value));
}

/** The other stored values an enum literal stands for (Commerce's `Cancelled` is a cancelled or a rejected invoice). */
function alsoStoredAs(field: Field, literal: Token): readonly string[] | undefined {
  if (typeof field.type !== 'object' || !field.type.alsoStoredAs) return undefined;
  const wire = unquote(literal.raw);
  return Object.hasOwn(field.type.alsoStoredAs, wire) ? field.type.alsoStoredAs[wire] : undefined;
}

/** contains / startswith / endswith on a string field (perhaps case-folded) and a string literal. */
function methodCall(ctx: Context, node: Token): Bool {
  const { method, parameters } = node.value as { method: string; parameters: Token[] };
  const pattern = LIKE_PATTERNS[method];
  if (!pattern || !Object.hasOwn(LIKE_PATTERNS, method)) throw fail(ctx, node, `the function ${method} is not supported here`);
  const [subject, needle] = parameters;
  const f = subject && fieldOperand(ctx, subject);
  if (!f || f.field.type !== 'string') throw fail(ctx, node, `${method} takes a string field first`);
  if (!needle || parameters.length !== 2 || needle.type !== 'Literal' || needle.value !== 'Edm.String') {
    throw fail(ctx, node, `${method} takes a string literal second`);
  }
  return twoValued(f, sql<SqlBool>`${f.sql} LIKE ${pattern(escapeLike(unquote(needle.raw)))}`);
}

/** A bare field as a condition: a boolean field. */
function booleanField(ctx: Context, node: Token): Bool {
  const f = fieldOperand(ctx, node);
  if (!f) throw fail(ctx, node, 'expected a condition');
  if (f.field.type !== 'boolean') throw fail(ctx, node, `the field ${f.name} is ${typeName(f.field)}, not a condition`);
  return twoValued(f, sql<SqlBool>`${f.sql}`);
}

/**
 * @odata/parser lets `not` take everything after it (`not a or b` as `not (a or b)`); OData gives
 * `not` the higher precedence, so the negation moves down to the leftmost operand.
 */
function negation(node: Token): Token {
  const operand = node.value as Token;
  if (operand.type !== 'AndExpression' && operand.type !== 'OrExpression') return node;
  const { left, right } = operand.value as { left: Token; right: Token };
  const negatedLeft = negation({ ...node, value: left, raw: `not ${left.raw}` } as Token);
  return { ...operand, value: { left: negatedLeft, right } } as Token;
}

function condition(ctx: Context, node: Token, depth: number): Bool {
  if (depth > MAX_DEPTH) throw fail(ctx, node, `nesting deeper than ${MAX_DEPTH}`);
  const v = node.value as { left: Token; right: Token };
  switch (node.type as string) {
    case 'AndExpression':
      return sql<SqlBool>`(${condition(ctx, v.left, depth + 1)} AND ${condition(ctx, v.right, depth + 1)})`;
    case 'OrExpression':
      return sql<SqlBool>`(${condition(ctx, v.left, depth + 1)} OR ${condition(ctx, v.right, depth + 1)})`;
    case 'NotExpression': {
      const fixed = negation(node);
      if (fixed !== node) return condition(ctx, fixed, depth + 1);
      return sql<SqlBool>`(NOT ${condition(ctx, node.value as Token, depth + 1)})`;
    }
    case 'BoolParenExpression':
    case 'ParenExpression':
    case 'CommonExpression':
      return condition(ctx, node.value as Token, depth + 1);
    case 'MethodCallExpression':
      return methodCall(ctx, node);
    case 'FirstMemberExpression':
    case 'MemberExpression':
      return booleanField(ctx, node);
    default:
      if (Object.hasOwn(COMPARISONS, node.type)) return comparison(ctx, node);
      throw fail(ctx, node, `unsupported expression ${JSON.stringify(node.raw ?? '')}`);
  }
}

/** The parsed filter as one parenthesized boolean expression over the resource's columns. */
export function compileFilter(resource: Resource, parsed: ParsedFilter): Bool {
  return sql<SqlBool>`(${condition({ resource, parsed }, parsed.tree, 0)})`;
}
