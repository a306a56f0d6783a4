// `CreateSubscription`: a payer's subscription from a subscription link, on one of the plans it
// offers; pending its first invoice (billing/pending-subscription.ts), which is counted on the link
// like any invoice made through it. The same protections and limits as `CreateInvoice`.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Plan } from '../catalog/catalog.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { tenantOf } from '../../shared/tenant.js';
import { startPendingSubscription } from '../billing/pending-subscription.js';
import type { DescribedSubscription } from '../billing/subscription.repository.js';
import { tenantClock } from '../clocks/tenant-clock.js';
import { createCustomer } from '../customers/customer.service.js';
import { assertAccepting, assertPassword, assertPayerHasUses, normalEmail } from './link-access.js';
import type { LinkPayer } from './link-invoice.js';
import { countWrongTry, spendLinkCode } from './link-verification.js';
import { findOfferedPlans } from '../catalog/catalog.repository.js';
import { recordLinkInvoice } from './link.repository.js';
import { linkByIdentifier } from './link-public.js';

/** The subscription started, its first invoice, and its plan. */
export interface LinkSubscription {
  subscription: DescribedSubscription;
  invoice: InvoiceRow;
  plan: Plan;
  productName: string;
}

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });

/** Starts the payer's subscription on `planId` (one of the link's plans), finding or creating the customer by email. */
export async function createLinkSubscription(
  db: Kysely<Database>,
  clock: Clock,
  identifier: string,
  input: LinkPayer & { planId: number },
): Promise<LinkSubscription> {
  const email = normalEmail(input.email);
  try {
    return await db.transaction().execute(async (trx) => {
      const link = await linkByIdentifier(trx, identifier, { lock: true });
      const linkClock = await tenantClock(trx, clock, tenantOf(link));
      if (link.link_type !== 'subscription' || link.subscription_product_id === null)
        throw invalid('identifier', 'This link is not subscription-based: make an invoice with CreateInvoice.');
      assertAccepting(link, linkClock.now());
      const offered = (await findOfferedPlans(trx, link.merchant_id, link.subscription_product_id, linkClock.now())).find((p) => p.plan.id === input.planId);
      if (!offered) throw invalid('planId', `planId ${input.planId} is not one of the plans this link offers.`);
      await assertPassword(link, input.password);
      await assertPayerHasUses(trx, link, email);
      await spendLinkCode(trx, linkClock, link, email, { tokenId: input.verificationTokenId, code: input.verificationCode });
      const name = `${input.firstName} ${input.lastName}`.trim();
      const { customer } = await createCustomer(trx, linkClock, { merchantId: link.merchant_id }, { email: input.email.trim(), name });
      const { subscription, invoice } = await startPendingSubscription(trx, linkClock, tenantOf(link), offered.plan, {
        id: customer.id,
        email: customer.email,
        name: customer.name ?? name,
      });
      await recordLinkInvoice(trx, link, { invoiceId: invoice.id, payerEmail: email, subscriptionId: subscription.id, createdAt: linkClock.now() });
      return { subscription, invoice, plan: offered.plan, productName: offered.productName };
    });
  } catch (error) {
    await countWrongTry(db, error);
    throw error;
  }
}
