// Adding a card on file outside a payment (the customer portal): the card is tokenized exactly as
// at checkout (validated, then only brand, last 4, expiry and a fingerprint are kept; never the
// number, never the CVC), and a card that asks for 3-D Secure waits for the customer's answer on
// the sandbox issuer's page before anything keeps it. What keeping it means is the caller's.
import type { Db, Trx } from '../../db/database.js';
import type { PaymentMethodRow } from './payment.tables.js';
import type { CardSetupRow } from './card-setup.tables.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { type CardDetails, tokenize } from '../../rails/cards.js';
import { newChallengeId, newFormToken } from '../../rails/issuer-challenge.js';
import { findCardSetupOf, insertCardSetup, updateCardSetup } from './card-setup.repository.js';
import { insertPaymentMethod } from './payment-method.repository.js';

/** A tokenized card for a customer's file: kept now, or after 3-D Secure. */
export interface TokenizedForFile {
  method: PaymentMethodRow;
  requiresAuthentication: boolean;
}

/**
 * Tokenizes a card for a customer's file (no session, no payment). The sandbox verifies it as it
 * would charge it: the declined test card answers 400 `card_declined`, the processing-error card
 * 502 `processing_error`; the cards that decline later are accepted (their charges decline).
 */
export async function tokenizeForFile(db: Db, clock: Clock, tenant: Tenant, input: CardDetails & { name?: string | undefined }): Promise<TokenizedForFile> {
  const card = tokenize(input, tenant.merchantId, clock.now());
  if (card.outcome === 'insufficient_funds') throw new AppError('card_declined', { message: 'The card was declined (insufficient funds). Use another card.' });
  if (card.outcome === 'processing_error')
    throw new AppError('processing_error', { message: 'The card could not be verified because of a processing error. Try again in a moment.' });
  const method = await insertPaymentMethod(db, {
    id: `pm_${randomToken(24)}`,
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    session_id: null,
    customer_id: null,
    brand: card.brand,
    last4: card.last4,
    expiry_month: card.expiryMonth,
    expiry_year: card.expiryYear,
    fingerprint: card.fingerprint,
    sandbox_outcome: card.outcome,
    billing_name: input.name?.trim() || null,
    billing_email: null,
    created_at: clock.now(),
  });
  return { method, requiresAuthentication: card.outcome === 'requires_3ds' };
}

/** Opens a 3-D Secure challenge for a card to keep on a customer's file, valid until `expiresAt`. */
export async function openCardSetup(
  db: Db,
  clock: Clock,
  method: PaymentMethodRow,
  owner: { portalSessionId: string; customerId: number; expiresAt: Date },
): Promise<CardSetupRow> {
  return insertCardSetup(db, {
    id: newChallengeId(),
    merchant_id: method.merchant_id,
    livemode: method.livemode,
    portal_session_id: owner.portalSessionId,
    customer_id: owner.customerId,
    payment_method_id: method.id,
    form_token: newFormToken(),
    status: 'open',
    expires_at: owner.expiresAt,
    answered_at: null,
    created_at: clock.now(),
  });
}

/** A card setup of a portal session, or undefined. */
export const findCardSetup = (
  db: Db,
  tenant: Tenant,
  portalSessionId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<CardSetupRow | undefined> => findCardSetupOf(db, tenant, portalSessionId, id, options);

/** Closes a card setup: the customer answered (`succeeded`, `failed`) or its time ran out (`expired`). */
export async function closeCardSetup(trx: Trx, clock: Clock, setup: CardSetupRow, status: 'succeeded' | 'failed' | 'expired'): Promise<CardSetupRow> {
  return updateCardSetup(trx, { merchantId: setup.merchant_id, livemode: setup.livemode }, setup.id, { status, answered_at: clock.now() });
}
