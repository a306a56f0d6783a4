// The sandbox card processor: it validates cards like an acquirer and answers deterministically
// by test card. Any future expiry and any 3-digit CVC (4 for American Express) work.
import { createHmac } from 'node:crypto';
import cardValidator from 'card-validator';
import { AppError } from '../shared/errors.js';

import type { SandboxOutcome } from '../shared/card-outcome.js';

export type { SandboxOutcome };

/** The documented test cards. Any other valid card succeeds. */
export const TEST_CARDS: Record<string, { outcome: SandboxOutcome; description: string }> = {
  '4242424242424242': { outcome: 'succeed', description: 'Visa, succeeds' },
  '5555555555554444': { outcome: 'succeed', description: 'Mastercard, succeeds' },
  '4000000000003220': { outcome: 'requires_3ds', description: 'requires 3-D Secure' },
  '4000000000009995': { outcome: 'insufficient_funds', description: 'declined, insufficient funds' },
  '4000000000000119': { outcome: 'processing_error', description: 'processing error' },
  '4000000000000341': { outcome: 'declines_later', description: 'succeeds at checkout, then every renewal, retry or plan-change charge is declined' },
  '4000000000009987': {
    outcome: 'insufficient_funds_later',
    description: 'succeeds at checkout, then every renewal, retry or plan-change charge is declined for insufficient funds',
  },
};

const BRANDS: Record<string, string> = {
  visa: 'visa',
  mastercard: 'mastercard',
  'american-express': 'amex',
  discover: 'discover',
  'diners-club': 'diners',
  jcb: 'jcb',
  unionpay: 'unionpay',
  maestro: 'maestro',
};

/** A card as the payer types it (number, expiry, security code): what the processor tokenizes; never stored or logged. */
export interface CardDetails {
  cardNumber: string;
  expiryMonth: number;
  expiryYear: number;
  cvc: string;
}

export interface TokenizedCard {
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  fingerprint: string;
  outcome: SandboxOutcome;
}

/** The card's brand by its number's prefix (`visa`, `amex`, ...), even when the number fails its check; `unknown` when no brand has the prefix. */
export function brandOf(cardNumber: string): string {
  return BRANDS[cardValidator.number(cardNumber).card?.type ?? ''] ?? 'unknown';
}

/** Validates a card (Luhn and brand by card-validator, expiry against `now`, CVC length) and keeps only what may be kept. */
export function tokenize(card: CardDetails, merchantId: number, now: Date): TokenizedCard {
  const number = cardValidator.number(card.cardNumber);
  if (!number.isValid) throw new AppError('invalid_card', { param: 'cardNumber', message: 'The card number is not valid. Check the digits.' });
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  if (card.expiryYear < year || (card.expiryYear === year && card.expiryMonth < month)) {
    throw new AppError('invalid_card', { param: 'expiryYear', message: 'The card has expired.' });
  }
  const cvcSize = number.card?.code.size ?? 3;
  if (card.cvc.length !== cvcSize) throw new AppError('invalid_card', { param: 'cvc', message: `The CVC must have ${cvcSize} digits for this card.` });
  return {
    brand: BRANDS[number.card?.type ?? ''] ?? 'unknown',
    last4: card.cardNumber.slice(-4),
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    fingerprint: createHmac('sha256', `till-card-fingerprint:${merchantId}`).update(card.cardNumber).digest('hex'),
    outcome: TEST_CARDS[card.cardNumber]?.outcome ?? 'succeed',
  };
}
