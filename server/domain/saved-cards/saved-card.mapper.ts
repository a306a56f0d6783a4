import type { components } from '../../../generated/checkout.js';
import type { SrcDirectoryCard } from '../../rails/src.js';
import type { PaymentMethodRow } from '../../db/tables/payments.js';
import type { StartedVerification } from './saved-card.service.js';
import type { SrcAuthenticated } from './src.service.js';

type Schemas = components['schemas'];

const cardOf = (m: PaymentMethodRow): Schemas['PaymentMethodCard'] => ({
  brand: m.brand as Schemas['PaymentMethodCardBrand'],
  last4: m.last4,
  expiryMonth: m.expiry_month,
  expiryYear: m.expiry_year,
});

/** The saved-card list; all cards fit in one page. */
export const savedCardList = (cards: PaymentMethodRow[]): Schemas['SavedCardList'] => ({
  object: 'list',
  data: cards.map((m) => ({ id: m.id, card: cardOf(m), isDefault: m.is_default })),
  hasMore: false,
});

export const savedCardVerification = ({ verification, maskedPhone }: StartedVerification): Schemas['SavedCardVerification'] => ({
  verificationId: verification.id,
  status: 'otp_sent',
  maskedPhone,
  expiresAt: verification.expires_at.toISOString(),
});

export const srcLookupResult = (cards: SrcDirectoryCard[]): Schemas['SrcLookupResult'] => ({
  enrolled: cards.length > 0,
  cards: cards.map((c) => ({ srcCardId: c.srcCardId, brand: c.brand, last4: c.last4, expiryMonth: c.expiryMonth, expiryYear: c.expiryYear, artUri: c.artUri })),
});

export const srcAuthentication = ({ method, srcCardId, expiresAt }: SrcAuthenticated): Schemas['SrcAuthentication'] => ({
  paymentMethodId: method.id,
  srcCardId,
  card: cardOf(method),
  expiresAt: expiresAt.toISOString(),
});
