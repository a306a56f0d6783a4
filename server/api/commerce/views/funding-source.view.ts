// Funding sources and card registrations, as the Commerce interface writes them.
import type { components } from '../../../../generated/commerce.js';
import type { FundingSourceWithCard, Verification } from '../../../domain/funding-sources/funding-source.service.js';
import type { CardRegistration } from '../../../domain/funding-sources/register-card.js';

type Schemas = components['schemas'];

export const fundingSourceView = (row: FundingSourceWithCard): Schemas['FundingSource'] => ({
  id: row.id,
  name: row.name,
  description: row.description,
  paymentOptionId: row.payment_option_id,
  statusId: row.status,
  isVerified: row.is_verified,
  isCardNotPresentAllowed: true,
  maskedAccountNumber: `************${row.last4}`,
  expiryDate: `${String(row.expiry_month).padStart(2, '0')}/${String(row.expiry_year % 100).padStart(2, '0')}`,
});

export const registrationView = (r: CardRegistration): Schemas['RegisterCardResponse'] => ({
  message: r.message,
  status: r.status,
  fundingSourceId: r.fundingSourceId,
  paymentResponse: { isSuccess: r.paymentStatus === 'Success' || r.paymentStatus === 'CustomerAuthRequired', paymentStatusId: r.paymentStatus },
});

export const verificationView = (v: Verification): Schemas['FundingSourceVerification'] => ({
  id: v.source.id,
  isVerified: v.source.is_verified,
  statusId: v.source.status,
  message: v.message,
});
