// The layer check (`npm run lint:layers`, part of `npm test`). docs/architecture.md draws the
// layers; these rules are that picture, checked on every import, type-only ones too.
//
//   edge       server/api, http, jobs, pages, hub, openapi  (app.ts and main.ts above them)
//   L3 flows   domain/checkout, invoice-payments, billing, links, webhooks, disputes, transfers, funding-sources
//   L2 money   domain/payments, invoices, payouts, accounts (independent of each other)
//   L1 records domain/merchants, customers, catalog, ledger, events, messages, clocks, request-logs, audit (likewise)
//   L0 shared  server/shared (imports nothing of Till), server/db, server/rails, server/odata
//
// A layer imports only the layers below it. Modules of one layer may import each other only in
// L3 (a flow composes others), and never in a circle.

const L1 = 'merchants|customers|catalog|ledger|events|messages|clocks|request-logs|audit';
const L2 = 'payments|invoices|payouts|accounts';
const L3 = 'checkout|invoice-payments|billing|links|webhooks|disputes|transfers|funding-sources';
const L0_PATHS = '^server/(shared|db|rails|odata)/';

/** A rule: files of `from` may import, inside server/, only what `allowed` matches. */
const layer = (name, comment, from, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: '^server/', pathNot: allowed },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No file imports another in a circle (type-only imports count).',
      severity: 'error',
      from: { path: '^(server|sdk|conformance)/' },
      to: { circular: true },
    },
    layer('L0-shared-imports-nothing-of-till', 'server/shared is the ground floor: it imports nothing of Till but itself.', '^server/shared/', [
      '^server/shared/',
    ]),
    layer('L0-db-on-shared-only', 'server/db stands on server/shared only.', '^server/db/', ['^server/(shared|db)/']),
    layer('L0-rails-on-shared-only', 'server/rails (the sandbox processor) stands on server/shared only.', '^server/rails/', ['^server/(shared|rails)/']),
    layer('L0-odata-on-shared-only', 'server/odata (pure parse → Kysely) stands on server/shared only: it knows no domain.', '^server/odata/', [
      '^server/(shared|odata)/',
    ]),
    layer('L1-records-on-L0-only', 'An L1 module imports L0 and itself: never another L1 module, nothing above.', `^server/domain/(${L1})/`, [
      L0_PATHS,
      '^server/domain/$1/',
    ]),
    layer('L2-money-on-L1-and-L0', 'An L2 module imports L1, L0 and itself: payments and invoices never import each other.', `^server/domain/(${L2})/`, [
      L0_PATHS,
      `^server/domain/(${L1})/`,
      '^server/domain/$1/',
    ]),
    layer('L3-flows-on-lower-layers', 'An L3 flow imports the domain layers and L0, never the edge.', `^server/domain/(${L3})/`, [
      L0_PATHS,
      `^server/domain/(${L1}|${L2}|${L3})/`,
    ]),
    {
      name: 'domain-module-has-a-layer',
      comment: 'Every folder of server/domain belongs to a layer: add a new one to the lists above.',
      severity: 'error',
      from: { path: '^server/domain/', pathNot: `^server/domain/(${L1}|${L2}|${L3})/` },
      to: {},
    },
    {
      name: 'generated-only-at-the-edge',
      comment: 'Only the edge knows wire shapes: the domain and L0 never import generated/.',
      severity: 'error',
      from: { path: '^server/(shared|db|rails|odata|domain)/' },
      to: { path: '^generated/' },
    },
    {
      name: 'nothing-imports-the-top',
      comment: 'app.ts assembles the server and main.ts starts it; nothing else in server/ imports them.',
      severity: 'error',
      from: { path: '^server/', pathNot: '^server/main\\.ts$' },
      to: { path: '^server/(app|main)\\.ts$' },
    },
    {
      name: 'edge-outside-the-core',
      comment: "Configuration and logging are the edge's: the core is handed what it needs.",
      severity: 'error',
      from: { path: '^server/(shared|db|rails|odata|domain)/' },
      to: { path: '^server/(config|log)\\.ts$' },
    },
    {
      name: 'sdk-stands-alone',
      comment: 'The SDK is published on its own: it imports only itself, generated/ and packages.',
      severity: 'error',
      from: { path: '^sdk/src/' },
      to: { path: '^(server|conformance|test|scripts)/' },
    },
    {
      name: 'pages-call-through-the-sdk',
      comment: "The hosted pages' browser scripts (web/) run in a payer's browser: they call the API through the SDK and import nothing of the server.",
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(server|conformance|test|scripts)/' },
    },
    {
      name: 'conformance-tests-any-deployment',
      comment: 'The conformance suite talks to a deployment through the SDK; of the server it reads only the OpenAPI reader.',
      severity: 'error',
      from: { path: '^conformance/' },
      to: { path: '^(server|test)/', pathNot: '^server/openapi/document\\.ts$' },
    },
    {
      name: 'server-not-on-tests',
      comment: 'The server never imports tests, scripts or the conformance suite.',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^(test|scripts|conformance)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    skipAnalysisNotInRules: true,
  },
};
