import { compileQuery } from '../../odata/index.js';
import { listTransactions, listTransfers } from '../../domain/transfers/transfer-lists.js';
import { createTransfer } from '../../domain/transfers/transfer.service.js';
import { amountToDecimal } from '../../shared/money.js';
import { created, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { transactionResource, transferResource } from './odata/transfers.js';
import { odataBody } from './odata-list.js';
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
    const compiled = compileQuery(transferResource, query);
    return ok(odataBody(await listTransfers(db, tenant, compiled), compiled, '/v1/GatewayTransferDto', transferView));
  },
  async listTransactions({ db, deps, tenant, query }) {
    const compiled = compileQuery(transactionResource, query);
    return ok(odataBody(await listTransactions(db, deps.clock, tenant, compiled), compiled, '/v1/transaction', transactionView));
  },
};
