// The layer check's configuration (`.dependency-cruiser.cjs`) on a small tree of its own: a tree
// that keeps the layers passes, and each kind of bad import a commit could add is caught by the
// rule that names it. (`npm run lint:layers` runs the same configuration on the real tree.)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const config = path.join(root, '.dependency-cruiser.cjs');
const made: string[] = [];

type Tree = Record<string, string[]>;

/** A tree in the layers: each file imports the ones listed (value imports; `type:` for type-only). */
const LAYERED: Tree = {
  'server/shared/money.ts': [],
  'server/db/database.ts': ['server/shared/money.ts'],
  'server/rails/cards.ts': ['server/shared/money.ts'],
  'server/domain/ledger/ledger.service.ts': ['server/db/database.ts', 'server/shared/money.ts'],
  'server/domain/events/event.service.ts': ['server/db/database.ts'],
  'server/domain/payments/payment.service.ts': ['server/domain/ledger/ledger.service.ts', 'server/rails/cards.ts'],
  'server/domain/invoices/invoice.service.ts': ['server/domain/events/event.service.ts'],
  'server/domain/billing/subscription.service.ts': ['server/domain/invoices/invoice.service.ts'],
  'server/domain/checkout/session.service.ts': ['server/domain/payments/payment.service.ts', 'server/domain/billing/subscription.service.ts'],
  'server/api/checkout/sessions.ts': ['server/domain/checkout/session.service.ts', 'generated/checkout.ts'],
  'server/config.ts': [],
  'server/app.ts': ['server/api/checkout/sessions.ts', 'server/config.ts'],
  'test/support/server.ts': ['server/app.ts'],
  'server/main.ts': ['server/app.ts'],
  'generated/checkout.ts': [],
  'sdk/src/index.ts': ['generated/checkout.ts'],
  'conformance/run.ts': ['sdk/src/index.ts'],
  'web/checkout.ts': ['sdk/src/index.ts'],
};

/** One bad import per layer rule, each added to the layered tree. */
const BAD: Array<{ rule: string; from: string; to: string; typeOnly?: boolean }> = [
  { rule: 'L0-shared-imports-nothing-of-till', from: 'server/shared/money.ts', to: 'server/db/database.ts' },
  { rule: 'L0-db-on-shared-only', from: 'server/db/database.ts', to: 'server/domain/events/event.service.ts' },
  { rule: 'L0-rails-on-shared-only', from: 'server/rails/cards.ts', to: 'server/db/database.ts' },
  { rule: 'L1-records-on-L0-only', from: 'server/domain/events/event.service.ts', to: 'server/domain/ledger/ledger.service.ts' },
  { rule: 'L1-records-on-L0-only', from: 'server/domain/ledger/ledger.service.ts', to: 'server/domain/payments/payment.service.ts', typeOnly: true },
  { rule: 'L2-money-on-L1-and-L0', from: 'server/domain/payments/payment.service.ts', to: 'server/domain/invoices/invoice.service.ts' },
  { rule: 'L2-money-on-L1-and-L0', from: 'server/domain/invoices/invoice.service.ts', to: 'server/domain/checkout/session.service.ts' },
  { rule: 'L3-flows-on-lower-layers', from: 'server/domain/billing/subscription.service.ts', to: 'server/api/checkout/sessions.ts' },
  { rule: 'generated-only-at-the-edge', from: 'server/domain/checkout/session.service.ts', to: 'generated/checkout.ts', typeOnly: true },
  { rule: 'domain-module-has-a-layer', from: 'server/domain/loyalty/points.ts', to: 'server/shared/money.ts' },
  { rule: 'nothing-imports-the-top', from: 'server/api/checkout/sessions.ts', to: 'server/app.ts', typeOnly: true },
  // Configuration is the edge's: an import of it from the core breaks its layer's rule as well.
  { rule: 'edge-outside-the-core', from: 'server/domain/events/event.service.ts', to: 'server/config.ts' },
  { rule: 'L1-records-on-L0-only', from: 'server/domain/events/event.service.ts', to: 'server/config.ts' },
  { rule: 'server-not-on-tests', from: 'server/api/checkout/sessions.ts', to: 'test/support/server.ts' },
  { rule: 'sdk-stands-alone', from: 'sdk/src/index.ts', to: 'server/shared/money.ts' },
  { rule: 'conformance-tests-any-deployment', from: 'conformance/run.ts', to: 'server/domain/ledger/ledger.service.ts' },
  { rule: 'pages-call-through-the-sdk', from: 'web/checkout.ts', to: 'server/shared/money.ts' },
];

function relativeImport(from: string, to: string): string {
  const rel = path.posix.relative(path.posix.dirname(from), to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Writes `tree` into a fresh directory: each file imports and uses one name of each import. */
function write(tree: Tree, typeOnly: Set<string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'till-layers-'));
  made.push(dir);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [file, imports] of Object.entries(tree)) {
    const lines = imports.map((target, i) =>
      typeOnly.has(`${file}>${target}`)
        ? `import type { Thing as T${i} } from '${relativeImport(file, target)}';\nexport type U${i} = T${i};`
        : `import { thing as t${i} } from '${relativeImport(file, target)}';\nexport const u${i} = t${i};`,
    );
    mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(dir, file), [...lines, 'export const thing = 1;', 'export type Thing = number;', ''].join('\n'));
  }
  return dir;
}

/**
 * The rule names and imports dependency-cruiser, with Till's configuration, reports for `dir`: what
 * its command line reports run there, through its API in this process (one load of dependency-cruiser
 * and TypeScript for every tree, instead of a process of its own each).
 */
async function violations(dir: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(config);
  const tsConfig = path.join(dir, 'tsconfig.json');
  const cruised = await cruise(
    ['server', 'sdk/src', 'conformance', 'web', 'generated'],
    { ...options, baseDir: dir, tsConfig: { fileName: tsConfig } },
    {},
    {
      tsConfig: extractTSConfig(tsConfig),
    },
  );
  const { summary } = cruised.output as ICruiseResult;
  return summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
}

afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the layer check (.dependency-cruiser.cjs)', () => {
  it('passes a tree that keeps the layers', async () => {
    expect(await violations(write(LAYERED, new Set()))).toEqual([]);
  });

  it('fails a cycle inside one module, even when one side imports only a type', async () => {
    const tree: Tree = {
      ...LAYERED,
      'server/domain/ledger/ledger.service.ts': [...LAYERED['server/domain/ledger/ledger.service.ts']!, 'server/domain/ledger/ledger.rules.ts'],
      'server/domain/ledger/ledger.rules.ts': ['server/domain/ledger/ledger.service.ts'],
    };
    const found = await violations(write(tree, new Set(['server/domain/ledger/ledger.rules.ts>server/domain/ledger/ledger.service.ts'])));
    // dependency-cruiser names a cycle once, at the import where its walk closed it.
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-circular: server\/domain\/ledger\/ledger\.(rules|service)\.ts → server\/domain\/ledger\/ledger\.(service|rules)\.ts$/);
  });

  it('fails each import up or across a layer by the rule that names it, type-only imports included', async () => {
    const tree: Tree = structuredClone(LAYERED);
    for (const bad of BAD) (tree[bad.from] ??= []).push(bad.to);
    const typeOnly = new Set(BAD.filter((b) => b.typeOnly).map((b) => `${b.from}>${b.to}`));
    const found = (await violations(write(tree, typeOnly))).filter((v) => !v.startsWith('no-circular: '));
    expect(found).toEqual(BAD.map((bad) => `${bad.rule}: ${bad.from} → ${bad.to}`).sort());
  });
});
