// `CreateInvoice`: a payer's invoice from a link, made with the Commerce invoice domain (one item
// built from the link), payable through `payinvoice` and on its page. The link must accept
// payments, the payer must satisfy its protections, a variable amount must be in range.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { PaymentLinkRow } from './link.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal } from '../../shared/money.js';
import { tenantOf } from '../../shared/tenant.js';
import { tenantClock } from '../clocks/tenant-clock.js';
import { createItemizedInvoice } from '../invoices/itemized-invoice.js';
import { assertAccepting, assertPassword, assertPayerHasUses, normalEmail } from './link-access.js';
import { countWrongTry, spendLinkCode } from './link-verification.js';
import { recordLinkInvoice } from './link.repository.js';
import { linkByIdentifier } from './link-public.js';

/** The payer and what they send to a link's page. */
export interface LinkPayer {
  email: string;
  firstName: string;
  lastName: string;
  password?: string | undefined;
  verificationTokenId?: string | undefined;
  verificationCode?: string | undefined;
}

/** What a payer orders at a link: a variable amount or a quantity, as exact decimal text. */
export interface LinkInvoiceOrder extends LinkPayer {
  amount?: string | undefined;
  quantity?: string | undefined;
}

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });

/** The one item of a link's invoice: the link's price x quantity, or the payer's amount. */
function itemOf(link: PaymentLinkRow, input: LinkInvoiceOrder) {
  const name = link.product_name ?? link.name;
  const description = link.product_description ?? undefined;
  const taxRate = Number(link.tax_rate);
  if (!link.is_variable_amount) {
    if (input.amount !== undefined)
      throw new AppError('parameter_unknown', { param: 'amount', message: 'amount is only for variable-amount links; this link has a fixed price.' });
    const quantity = input.quantity ?? link.quantity;
    if (new Decimal(quantity).lessThanOrEqualTo(0)) throw invalid('quantity', 'quantity must be more than zero.');
    return { name, description, unitCost: link.unit_price!, quantity: Number(quantity), taxRate };
  }
  if (input.quantity !== undefined)
    throw new AppError('parameter_unknown', { param: 'quantity', message: 'quantity is only for fixed-price links; send amount.' });
  if (input.amount === undefined)
    throw new AppError('parameter_missing', { param: 'amount', message: 'This link lets the payer choose the amount: send amount.' });
  const amount = new Decimal(amountToDecimal(input.amount, link.currency, 'amount'));
  const [min, max] = [link.min_amount, link.max_amount];
  if (amount.lessThanOrEqualTo(0) || (min !== null && amount.lessThan(min)) || (max !== null && amount.greaterThan(max))) {
    const range = `${min === null ? 'more than 0' : `at least ${min}`}${max === null ? '' : ` and at most ${max}`}`;
    throw invalid('amount', `amount must be ${range} ${link.currency}.`);
  }
  return { name, description, unitCost: amount.toFixed(), quantity: 1, taxRate };
}

/**
 * Makes the payer's invoice (`Pending`), counted in the link's `invoiceCount`. The link row is
 * locked for the transaction; a wrong verification code counts a try after it rolls back.
 */
export async function createLinkInvoice(db: Kysely<Database>, clock: Clock, identifier: string, input: LinkInvoiceOrder): Promise<InvoiceRow> {
  const email = normalEmail(input.email);
  try {
    return await db.transaction().execute(async (trx) => {
      const link = await linkByIdentifier(trx, identifier, { lock: true });
      const linkClock = await tenantClock(trx, clock, tenantOf(link));
      if (link.link_type === 'subscription') throw invalid('identifier', 'This is a subscription link: start a subscription with CreateSubscription.');
      assertAccepting(link, linkClock.now());
      const item = itemOf(link, input);
      await assertPassword(link, input.password);
      await assertPayerHasUses(trx, link, email);
      await spendLinkCode(trx, linkClock, link, email, { tokenId: input.verificationTokenId, code: input.verificationCode });
      const invoice = await createItemizedInvoice(trx, linkClock, tenantOf(link), {
        currency: link.currency,
        items: [item],
        description: link.name,
        successUrl: link.success_url ?? undefined,
        cancelUrl: link.cancel_url ?? undefined,
        payer: { firstName: input.firstName, lastName: input.lastName, email: input.email.trim(), address: {} },
      });
      await recordLinkInvoice(trx, link, { invoiceId: invoice.id, payerEmail: email, subscriptionId: null, createdAt: linkClock.now() });
      return invoice;
    });
  } catch (error) {
    await countWrongTry(db, error);
    throw error;
  }
}
