// The hub methods a client may invoke. Each answers a result or throws a HubMethodError, whose
// message the client receives as the completion's error.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { getInvoiceByIdentifier } from '../domain/invoices/invoice.service.js';
import { AppError } from '../shared/errors.js';
import type { Audience, Member } from './audience.js';
import { type InvoiceUpdated, wireStatus } from './invoice-updated.js';

/** An error the client is meant to read (the completion's `error`). */
export class HubMethodError extends Error {}

export interface MethodContext {
  db: Kysely<Database>;
  audience: Audience;
  member: Member;
  /** How many invoices one connection may follow by identifier. */
  maxFollowed: number;
}

export type HubMethod = (context: MethodContext, args: unknown[]) => Promise<unknown>;

/** The one argument both methods take: an invoice's public identifier. */
function identifierArgument(method: string, args: unknown[]): string {
  if (args.length !== 1 || typeof args[0] !== 'string') {
    throw new HubMethodError(`${method} takes one argument: the invoice's identifier (the UUID of its public link), as a string.`);
  }
  return args[0].trim().toLowerCase();
}

/**
 * Follows an invoice by its identifier: from now on the connection hears its `InvoiceUpdated`.
 * Answers the invoice's current `{invoiceId, status}`, read after following began, so no change
 * falls between the two. An unknown identifier answers "not found", whoever might own it.
 */
const subscribeToInvoice: HubMethod = async ({ db, audience, member, maxFollowed }, args) => {
  const identifier = identifierArgument('SubscribeToInvoice', args);
  const followed = audience.following(member);
  if (!followed.has(identifier) && followed.size >= maxFollowed) {
    throw new HubMethodError(
      `A connection may follow at most ${maxFollowed} invoices. Unsubscribe from one (UnsubscribeFromInvoice) or open another connection.`,
    );
  }
  const already = followed.has(identifier);
  audience.follow(member, identifier);
  try {
    const invoice = await getInvoiceByIdentifier(db, identifier);
    return { invoiceId: invoice.id, status: wireStatus(invoice.status) } satisfies Partial<InvoiceUpdated>;
  } catch (err) {
    if (!already) audience.unfollow(member, identifier);
    if (err instanceof AppError && err.code === 'invoice_not_found') throw new HubMethodError(`Invoice not found: ${identifier.slice(0, 64)}.`);
    throw err;
  }
};

/** Stops following an invoice; following it no longer is not an error. */
const unsubscribeFromInvoice: HubMethod = async ({ audience, member }, args) => {
  audience.unfollow(member, identifierArgument('UnsubscribeFromInvoice', args));
  return undefined;
};

export const hubMethods: Record<string, HubMethod> = {
  SubscribeToInvoice: subscribeToInvoice,
  UnsubscribeFromInvoice: unsubscribeFromInvoice,
};
