import { listFundingSources, verifyFundingSource } from '../../domain/funding-sources/funding-source.service.js';
import { registerCard } from '../../domain/funding-sources/register-card.js';
import { ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { fundingSourceView, registrationView, verificationView } from './views/funding-source.view.js';

/** `MM/YY` (the contract's pattern) as a month and a four-digit year. */
const expiry = (mmYy: string) => ({ expiryMonth: Number(mmYy.slice(0, 2)), expiryYear: 2000 + Number(mmYy.slice(3, 5)) });

export const fundingSourceHandlers: CommerceHandlers = {
  async registerCard({ db, deps, tenant, body }) {
    const card = { cardNumber: body.card.cardNumber, cvc: body.card.cvv, holderName: body.card.name, ...expiry(body.card.expiryDate) };
    return ok(registrationView(await registerCard(db, deps.clock, tenant, { card, name: body.name, fundingSourceId: body.fundingSourceId })));
  },
  async verifyFundingSource({ db, deps, tenant, path, body }) {
    return ok(verificationView(await verifyFundingSource(db, deps.clock, tenant, path.id, body.VerificationCode)));
  },
  async listFundingSources({ db, tenant }) {
    return ok({ value: (await listFundingSources(db, tenant)).map(fundingSourceView) });
  },
};
