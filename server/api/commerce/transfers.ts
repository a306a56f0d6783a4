import { compileQuery } from '../../odata/index.js';
import { transactionResource, transferResource } from '../../domain/transfers/transfer.resource.js';
import { listTransactions, listTransfers } from '../../domain/transfers/transfer-lists.js';
import { createTransfer } from '../../domain/transfers/transfer.service.js';
import { amountToDecimal } from '../../shared/money.js';
import { created, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { odataPage } from './odata-list.js';
import { transactionView, transferView } from './views/transfer.view.js';

export const transferHandlers: CommerceHandlers = {
  async createTransfer({ db, deps, tenant, body }) {
    const currency = body.currencyCode.toUpperCase();
    const transfer = await createTransfer(db, deps.clock, tenant, {
      sourceAccountId: body.sourceAccountId,
      destinationAccountNumber: body.destinationAccountNumber,
      amount: amountToDecimal(body.amount, currency),
      currency,
      action: body.transferAction ?? 'ExecuteTransfer',
      feePayer: body.feePayer ?? 'Sender',
      description: body.description ?? null,
    });
    return created(transferView(transfer));
  },
  async listGatewayTransfers({ db, tenant, query }) {
    return ok(odataPage(await listTransfers(db, tenant, compileQuery(transferResource, query), '/v1/GatewayTransferDto'), transferView));
  },
  async listTransactions({ db, deps, tenant, query }) {
    return ok(odataPage(await listTransactions(db, deps.clock, tenant, compileQuery(transactionResource, query), '/v1/transaction'), transactionView));
  },
};
