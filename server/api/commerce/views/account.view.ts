// Wallet accounts and their balances, as the Commerce interface writes them (money as numbers).
import type { components } from '../../../../generated/commerce.js';
import type { WalletAccountRow } from '../../../domain/accounts/account.tables.js';
import type { AccountBalance } from '../../../domain/accounts/account.service.js';
import { decimalToAmount } from '../../../shared/money.js';

type Schemas = components['schemas'];

export const accountView = (row: WalletAccountRow): Schemas['Account'] => ({
  id: row.id,
  accountNumber: row.account_number,
  name: row.name,
  description: row.description,
  currencyCode: row.currency.trim(),
  status: row.status,
});

export const accountBalanceView = (balance: AccountBalance): Schemas['AccountBalance'] => ({
  currentAmount: decimalToAmount(balance.current, balance.currency),
  availableAmount: decimalToAmount(balance.available, balance.currency),
  currencyCode: balance.currency,
});
