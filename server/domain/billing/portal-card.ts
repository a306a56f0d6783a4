// The card on file, added or replaced in the customer portal. It is tokenized as at checkout
// (never the number or the CVC), a card that asks for 3-D Secure is kept only once the customer
// completes the sandbox issuer's challenge, and keeping it makes it the customer's card on file
// and the card of every subscription of theirs in that mode that is not canceled: that is how a
// trialing subscription gets the card its first renewal charges.
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { PaymentMethodRow } from '../payments/payment.tables.js';
import type { CardSetupRow, CardSetupStatus } from '../payments/card-setup.tables.js';
import type { PortalSessionRow } from './portal.tables.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, sameHash } from '../../shared/crypto.js';
import { tenantOf } from '../../shared/tenant.js';
import type { CardDetails } from '../../rails/cards.js';
import type { ChallengeAnswer } from '../../rails/issuer-challenge.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { closeCardSetup, findCardSetup, openCardSetup, tokenizeForFile } from '../payments/card-setup.js';
import { replaceCardOnFile } from '../payments/cards-on-file.js';
import { findCard } from '../payments/payment.service.js';
import { setCardOfLiveSubscriptions } from './portal.repository.js';

/** An open portal: its session and its tenant's clock. */
export interface OpenPortal {
  session: PortalSessionRow;
  clock: Clock;
}

export type PortalCardResult = { kind: 'kept'; card: PaymentMethodRow } | { kind: 'authenticate'; setup: CardSetupRow };

/**
 * Keeps a card on the portal customer's file in the portal's mode, in one transaction: their card
 * on file (replacing the previous one) and the card of each of their subscriptions that is not
 * canceled. The customer's row is locked, so two cards kept at once end with one default.
 */
export async function keepPortalCard(trx: Trx, clock: Clock, session: PortalSessionRow, method: PaymentMethodRow): Promise<PaymentMethodRow> {
  const tenant = tenantOf(session);
  await findOwnCustomer(trx, tenant, session.customer_id, { lock: true });
  const card = await replaceCardOnFile(trx, clock, method, session.customer_id);
  await setCardOfLiveSubscriptions(trx, tenant, session.customer_id, card.id, clock.now());
  return card;
}

/** Adds (or replaces) the card on file from the portal: kept at once, or after 3-D Secure. A bad card is 400 `invalid_card`. */
export async function addPortalCard(db: Kysely<Database>, portal: OpenPortal, input: CardDetails & { name?: string | undefined }): Promise<PortalCardResult> {
  const { session, clock } = portal;
  return db.transaction().execute(async (trx): Promise<PortalCardResult> => {
    const { method, requiresAuthentication } = await tokenizeForFile(trx, clock, tenantOf(session), input);
    if (requiresAuthentication)
      return {
        kind: 'authenticate',
        setup: await openCardSetup(trx, clock, method, { portalSessionId: session.id, customerId: session.customer_id, expiresAt: session.expires_at }),
      };
    return { kind: 'kept', card: await keepPortalCard(trx, clock, session, method) };
  });
}

/** What the issuer's page shows for a card setup. */
export interface CardSetupView {
  setup: CardSetupRow;
  method: PaymentMethodRow;
  merchantName: string;
}

export type CardSetupLookup = { kind: 'not_found' } | { kind: 'gone'; status: Exclude<CardSetupStatus, 'open'> } | { kind: 'open'; view: CardSetupView };

/** A card setup of this portal session, for the issuer's page. */
export async function viewCardSetup(db: Db, portal: OpenPortal, setupId: string): Promise<CardSetupLookup> {
  const tenant = tenantOf(portal.session);
  const setup = await findCardSetup(db, tenant, portal.session.id, setupId);
  if (!setup) return { kind: 'not_found' };
  if (setup.status !== 'open') return { kind: 'gone', status: setup.status };
  if (setup.expires_at <= portal.clock.now()) return { kind: 'gone', status: 'expired' };
  const method = (await findCard(db, tenant, setup.payment_method_id))!;
  return { kind: 'open', view: { setup, method, merchantName: (await getMerchant(db, setup.merchant_id)).name } };
}

export type CardSetupAnswer =
  | { kind: 'not_found' }
  | { kind: 'gone'; status: Exclude<CardSetupStatus, 'open'> }
  | { kind: 'bad_token' }
  | { kind: 'answered'; outcome: 'succeeded' | 'failed'; card: PaymentMethodRow };

/** The customer's answer on the issuer's page, once: completing it keeps the card (`keepPortalCard`); failing it keeps nothing. */
export async function answerCardSetup(
  db: Kysely<Database>,
  portal: OpenPortal,
  setupId: string,
  formToken: string,
  answer: ChallengeAnswer,
): Promise<CardSetupAnswer> {
  const { session, clock } = portal;
  return db.transaction().execute(async (trx): Promise<CardSetupAnswer> => {
    const setup = await findCardSetup(trx, tenantOf(session), session.id, setupId, { lock: true });
    if (!setup) return { kind: 'not_found' };
    if (setup.status !== 'open') return { kind: 'gone', status: setup.status };
    if (!sameHash(hashSecret(formToken), hashSecret(setup.form_token))) return { kind: 'bad_token' };
    if (setup.expires_at <= clock.now()) {
      await closeCardSetup(trx, clock, setup, 'expired');
      return { kind: 'gone', status: 'expired' };
    }
    const method = (await findCard(trx, tenantOf(session), setup.payment_method_id))!;
    if (answer === 'fail') {
      await closeCardSetup(trx, clock, setup, 'failed');
      return { kind: 'answered', outcome: 'failed', card: method };
    }
    await closeCardSetup(trx, clock, setup, 'succeeded');
    return { kind: 'answered', outcome: 'succeeded', card: await keepPortalCard(trx, clock, session, method) };
  });
}
