import { AppError } from '../../shared/errors.js';
import type { CheckoutHandlers } from '../types.js';

export const clientTokenHandlers: CheckoutHandlers = {
  /** Always 501, by the contract: client code uses the publishable key with the session's client secret. */
  async createClientToken() {
    throw new AppError('not_implemented', {
      message: "Client tokens are not available. Use the publishable key with the session's client secret (X-Client-Secret).",
    });
  },
};
