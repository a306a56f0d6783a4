// The sandbox click-to-pay (SRC) network: a fixed directory of enrolled payers and their cards,
// and the one-time code that authenticates them. Deterministic, like the card processor.
import { AppError } from '../shared/errors.js';

export interface SrcDirectoryCard {
  srcCardId: string;
  brand: 'visa' | 'mastercard';
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  artUri: string | null;
}

/** The enrolled payers (emails compare case-insensitively). Every card's sandbox outcome is `succeed`. */
export const SRC_DIRECTORY: Record<string, SrcDirectoryCard[]> = {
  'maria.lopez@example.com': [
    {
      srcCardId: 'src_3f8a2c1e9b7d4a60',
      brand: 'visa',
      last4: '0003',
      expiryMonth: 5,
      expiryYear: 2030,
      artUri: 'https://art.src.example.com/cards/visa-classic.png',
    },
  ],
  'src.two.cards@example.com': [
    {
      srcCardId: 'src_7b1d9e4f2a6c8053',
      brand: 'mastercard',
      last4: '4444',
      expiryMonth: 11,
      expiryYear: 2029,
      artUri: 'https://art.src.example.com/cards/mastercard-world.png',
    },
    { srcCardId: 'src_2c5e8a1f7d3b9046', brand: 'visa', last4: '1111', expiryMonth: 2, expiryYear: 2031, artUri: null },
  ],
};

/** Looking up this email answers 502 `processing_error`, as when the click-to-pay network fails. */
export const SRC_NETWORK_ERROR_EMAIL = 'src.network.error@example.com';

/** The validation data (one-time code or biometric token) the sandbox network accepts. */
export const SRC_SANDBOX_VALIDATION = '123456';

/** The enrolled cards of an email; none when it is not enrolled. */
export function lookupSrcDirectory(email: string): SrcDirectoryCard[] {
  const key = email.trim().toLowerCase();
  if (key === SRC_NETWORK_ERROR_EMAIL) throw new AppError('processing_error', { message: 'The click-to-pay network did not answer. Retrying is safe.' });
  return SRC_DIRECTORY[key] ?? [];
}

/** One enrolled card by its id, or undefined. */
export function findSrcCard(srcCardId: string): SrcDirectoryCard | undefined {
  for (const cards of Object.values(SRC_DIRECTORY)) {
    const card = cards.find((c) => c.srcCardId === srcCardId);
    if (card) return card;
  }
  return undefined;
}

/** Whether the network accepts the payer's validation data for a card. */
export const srcValidationAccepted = (validationData: string): boolean => validationData === SRC_SANDBOX_VALIDATION;
