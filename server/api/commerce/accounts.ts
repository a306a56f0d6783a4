import { accountBalance, listAccounts } from '../../domain/accounts/account.service.js';
import { ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { accountBalanceView, accountView } from './views/account.view.js';

export const accountHandlers: CommerceHandlers = {
  async listAccounts({ db, deps, tenant }) {
    return ok({ value: (await listAccounts(db, deps.clock, tenant)).map(accountView) });
  },
  async getAccountBalance({ db, tenant, path }) {
    return ok(accountBalanceView(await accountBalance(db, tenant, path.id)));
  },
};
