// Which tables each file of a server tree reads and writes, read from its syntax with the TypeScript
// compiler (not a regular expression over the file), and the uses that break the ownership map
// (server/db/table-owners.ts). What counts as a use of a table:
//   - a Kysely call that names it: selectFrom, insertInto, replaceInto, updateTable, deleteFrom,
//     mergeInto, the joins, an UPDATE's `from` and a DELETE's or MERGE's `using`; with an alias
//     ('payments as p') or in an array of tables. A subquery (`query.as('p')`) or a callback is no
//     name: its tables are counted where it is built. Any other argument (a variable) is reported,
//     so that no table escapes by being passed around;
//   - raw SQL: a sql`…` template, and the string given to sql.raw(…) or a runner's query/exec:
//     FROM, JOIN, USING (reads), INSERT INTO, UPDATE, DELETE FROM, MERGE INTO (writes) followed by
//     the name of a table of the schema.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type Access = 'read' | 'write';

/** A statement's use of a table, where it is written. */
export interface TableUse {
  file: string;
  line: number;
  table: string;
  access: Access;
}

/** A use of a table outside its owner's files; `table` is `(computed)` for a table name the scan cannot read. */
export interface Finding extends TableUse {
  owner: string;
}

const KYSELY = new Map<string, Access>([
  ...['selectFrom', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin', 'crossJoin', 'innerJoinLateral', 'leftJoinLateral', 'crossJoinLateral'].map(
    (name) => [name, 'read'] as const,
  ),
  ...['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto'].map((name) => [name, 'write'] as const),
]);
/** Methods of the same name elsewhere (Array.from): a table only when their argument names one. */
const SECONDARY = new Map<string, Access>([
  ['from', 'read'],
  ['using', 'read'],
]);
/** Calls whose first argument is SQL text. */
const RAW_SQL = new Set(['raw', 'query', 'exec', 'execRows']);
/** A keyword that reads or writes the table named after it (not a column: `invoices.status` is followed by a dot). */
const SQL_TABLE = /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM|MERGE\s+INTO|FROM|JOIN|USING)\s+(?:ONLY\s+)?"?([A-Za-z_][A-Za-z0-9_]*)"?(?![\w"]*\s*\.)/gi;

/** The table names an argument spells (`undefined` for one it computes), or none for a subquery or callback. */
function namedTables(node: ts.Expression): (string | undefined)[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text.trim().split(/\s+as\s+/i)[0]!];
  if (ts.isArrayLiteralExpression(node)) return node.elements.flatMap((element) => namedTables(element));
  if (ts.isConditionalExpression(node)) return [...namedTables(node.whenTrue), ...namedTables(node.whenFalse)];
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) return namedTables(node.expression);
  if (ts.isCallExpression(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return [];
  return [undefined];
}

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** The literal pieces of a template or string, each with where its text starts in the file. */
function sqlPieces(node: ts.Expression, source: ts.SourceFile): { text: string; start: number }[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [{ text: node.getText(source), start: node.getStart(source) }];
  if (ts.isTemplateExpression(node))
    return [node.head, ...node.templateSpans.map((span) => span.literal)].map((piece) => ({ text: piece.getText(source), start: piece.getStart(source) }));
  return [];
}

const isSqlTag = (tag: ts.Expression) => ts.isIdentifier(tag) && tag.text === 'sql';

/** Every use of a table of `tables` in one file's source. */
export function tableUses(file: string, text: string, tables: ReadonlySet<string>): TableUse[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const uses: TableUse[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const scanSql = (node: ts.Expression) => {
    for (const piece of sqlPieces(node, source))
      for (const match of piece.text.matchAll(SQL_TABLE)) {
        const table = match[2]!.toLowerCase();
        const access = /^(FROM|JOIN|USING)$/i.test(match[1]!) ? 'read' : 'write';
        if (tables.has(table)) uses.push({ file, line: lineOf(piece.start + match.index), table, access });
      }
  };
  const scanCall = (call: ts.CallExpression) => {
    const name = calleeName(call);
    const argument = call.arguments[0];
    if (name === undefined || argument === undefined) return;
    if (RAW_SQL.has(name)) scanSql(argument);
    const access = KYSELY.get(name) ?? SECONDARY.get(name);
    if (access === undefined) return;
    for (const table of namedTables(argument)) {
      if (table !== undefined && tables.has(table)) uses.push({ file, line: lineOf(argument.getStart(source)), table, access });
      else if (table === undefined && KYSELY.has(name)) uses.push({ file, line: lineOf(argument.getStart(source)), table: '(computed)', access });
    }
  };
  // Children first: a chain's calls in the order they are written (`selectFrom` before its joins).
  const visit = (node: ts.Node): void => {
    ts.forEachChild(node, visit);
    if (ts.isTaggedTemplateExpression(node) && isSqlTag(node.tag)) scanSql(node.template);
    if (ts.isCallExpression(node)) scanCall(node);
  };
  visit(source);
  return uses.sort((a, b) => a.line - b.line);
}

/** The TypeScript files under `dir` of `root`, as paths relative to `root` (with forward slashes). */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** A table's owner is a folder under server/; its files are the ones inside it. */
export const ownsFile = (owner: string, file: string) => file.startsWith(`server/${owner}/`);

/**
 * The uses of tables in `root`'s server/ tree that break `owners` (table -> owning folder under
 * server/), in file order. Files under an `exempt` prefix are not scanned.
 */
export function ownershipFindings(root: string, owners: Readonly<Record<string, string>>, exempt: readonly string[]): Finding[] {
  const tables = new Set(Object.keys(owners));
  return sourceFiles(root, 'server')
    .filter((file) => !exempt.some((prefix) => file.startsWith(prefix)))
    .flatMap((file) => tableUses(file, readFileSync(path.join(root, file), 'utf8'), tables))
    .map((use) => ({ ...use, owner: owners[use.table] ?? '(none)' }))
    .filter((use) => !ownsFile(use.owner, use.file));
}

/** A finding as one line of a failure: where, what, whose. */
export function describeFinding(finding: Finding): string {
  const verb = finding.access === 'write' ? 'writes' : 'reads';
  return `${finding.file}:${finding.line} ${verb} ${finding.table} (owner: ${finding.owner})`;
}

/** The tables of `root`'s schema, each with the file that declares it: the members of every `interface Database` under server/ (merged declarations included). */
export function declaredTables(root: string): Map<string, string> {
  const declared = new Map<string, string>();
  for (const file of sourceFiles(root, 'server')) {
    const text = readFileSync(path.join(root, file), 'utf8');
    if (!text.includes('interface Database')) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isInterfaceDeclaration(node) && node.name.text === 'Database')
        for (const member of node.members) if (member.name && ts.isIdentifier(member.name)) declared.set(member.name.text, file);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
  }
  return declared;
}
