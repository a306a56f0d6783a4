// Every scope a role can grant: the `x-scopes` of both contracts' operations, with what each
// allows. test/commerce/identity.test.ts holds this list equal to the contracts, so a new scope in
// openapi/ fails the tests until it is described here.

export type ScopeInterface = 'checkout' | 'commerce';

/** A scope: its name (`resource.action`), what it allows, and which interfaces' operations need it. */
export interface ScopeInfo {
  name: string;
  description: string;
  interfaces: ScopeInterface[];
}

const C: ScopeInterface[] = ['checkout'];
const M: ScopeInterface[] = ['commerce'];
const BOTH: ScopeInterface[] = ['checkout', 'commerce'];

const CATALOG: Array<[string, string, ScopeInterface[]]> = [
  ['account.read', 'Read accounts and balances.', M],
  ['auditentry.read', 'Read the audit log: who changed keys, roles, webhook configurations and settings, and when.', BOTH],
  ['checkout.session.cancel', 'Cancel checkout sessions.', C],
  ['checkout.session.capture', 'Capture and release card holds of checkout sessions.', C],
  ['checkout.session.cards.confirm_otp', "Confirm a saved card's one-time code (publishable key).", C],
  ['checkout.session.cards.read', 'List saved cards in a checkout session (publishable key).', C],
  ['checkout.session.cards.verify', 'Verify a saved card in a checkout session (publishable key).', C],
  ['checkout.session.confirm', 'Confirm checkout sessions and withdraw their wallet QR.', C],
  ['checkout.session.create', 'Create checkout sessions.', C],
  ['checkout.session.read', 'Read checkout sessions.', C],
  ['checkout.session.refund', 'Refund checkout sessions and payments.', C],
  ['checkout.session.src.authenticate', 'Authenticate a Click to Pay card (publishable key).', C],
  ['checkout.session.src.lookup', 'Look up Click to Pay cards (publishable key).', C],
  ['checkout.session.status', "Read a checkout session's status.", C],
  ['checkout.session.tokenize', 'Tokenize cards in a checkout session (publishable key).', C],
  ['client_token.generate', 'Generate client tokens.', C],
  ['dashboard.read', 'Read the transfers and payouts dashboards.', M],
  ['dispute.read', 'Read disputes.', C],
  ['event.read', 'Read and stream events.', C],
  ['fundingsource.create', 'Register cards as funding sources.', M],
  ['fundingsource.read', 'List funding sources.', M],
  ['fundingsource.update', 'Verify funding sources.', M],
  ['invoice.create', 'Create invoices.', BOTH],
  ['invoice.read', 'Read invoices, their PDFs and their payment methods.', BOTH],
  ['invoice.refund', 'Refund invoices.', C],
  ['invoice.update', 'Send and void invoices.', BOTH],
  ['key.create', 'Create restricted keys.', M],
  ['key.delete', 'Revoke restricted keys (the full secret key only: a role cannot grant it).', M],
  ['key.read', 'List and read restricted keys, without their text (the full secret key only: a role cannot grant it).', M],
  ['merchant.create', 'Create merchants.', M],
  ['merchant.read', 'Read the merchant and its locations.', M],
  ['merchantclient.create', 'Create customers.', C],
  ['merchantlocation.create', 'Create merchant locations.', M],
  ['merchantclient.read', 'Read customers.', C],
  ['payment.capture', 'Capture card holds.', M],
  ['payment.create', 'Pay invoices and create payments.', M],
  ['payment.read', 'Read payments.', M],
  ['paymentlink.create', 'Create payment links.', M],
  ['paymentlink.delete', 'Delete payment links.', M],
  ['paymentlink.read', 'Read payment links and their embed codes.', M],
  ['paymentlink.update', 'Update, activate and deactivate payment links.', M],
  ['portal.session.create', 'Create customer portal sessions.', C],
  ['role.create', 'Create roles.', M],
  ['role.delete', 'Delete roles (the full secret key only: a role cannot grant it).', M],
  ['requestlog.read', 'Read the request logs.', BOTH],
  ['role.read', 'List and read roles.', M],
  ['scope.read', 'List scopes.', M],
  ['subscription.read', 'Read subscriptions and their invoices.', BOTH],
  ['subscription.update', 'Cancel, pause, resume and change subscriptions.', BOTH],
  ['subscriptioninventory.create', 'Create subscription inventory items.', M],
  ['subscriptioninventory.delete', 'Delete subscription inventory items.', M],
  ['subscriptioninventory.read', 'Read subscription inventory items.', M],
  ['subscriptioninventory.update', 'Update subscription inventory items.', M],
  ['subscriptionplan.create', 'Create plans.', BOTH],
  ['subscriptionplan.delete', 'Archive and delete plans.', BOTH],
  ['subscriptionplan.read', 'Read plans.', BOTH],
  ['subscriptionplan.update', 'Update plans.', BOTH],
  ['subscriptionproduct.create', 'Create products.', BOTH],
  ['subscriptionproduct.delete', 'Delete products.', M],
  ['subscriptionproduct.read', 'Read products.', BOTH],
  ['subscriptionproduct.update', 'Update products.', M],
  ['testhelpers.read', 'Read the sandbox outbox (test mode).', C],
  ['testhelpers.write', 'Use the test helpers: clock, settlement, disputes, payouts, sandbox merchants (test mode).', C],
  ['transfer.create', 'Create transfers.', M],
  ['transfer.read', 'Read transfers and transactions.', M],
  ['user.read', 'Read the current user.', M],
  ['webhookconfiguration.create', 'Create webhook configurations.', C],
  ['webhookconfiguration.delete', 'Delete webhook configurations.', C],
  ['webhookconfiguration.read', 'Read webhook configurations and their deliveries.', C],
  ['webhookconfiguration.update', 'Update webhook configurations, send test events and resend deliveries.', C],
];

/** Every scope, sorted by name. */
export const SCOPES: readonly ScopeInfo[] = CATALOG.map(([name, description, interfaces]) => ({ name, description, interfaces })).sort((a, b) =>
  a.name < b.name ? -1 : 1,
);

const NAMES: ReadonlySet<string> = new Set(SCOPES.map((s) => s.name));

/** Whether a role can grant this scope. */
export const isScope = (name: string): boolean => NAMES.has(name);

/**
 * The scopes of the operations only a full secret key may call (`x-secret-key-only` in the
 * contract: managing keys, deleting roles). A role cannot grant them, so no restricted key ever
 * holds them; test/platform/keys-and-roles.test.ts holds this list equal to the contract.
 */
export const SECRET_KEY_ONLY_SCOPES: ReadonlySet<string> = new Set(['key.delete', 'key.read', 'role.delete']);

/** Every scope's name, sorted: what a full secret key holds. */
export const ALL_SCOPE_NAMES: readonly string[] = SCOPES.map((s) => s.name);
