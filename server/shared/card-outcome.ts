/** What the sandbox processor does with a card: kept with each tokenized card, decided by its number. */
export type SandboxOutcome = 'succeed' | 'requires_3ds' | 'insufficient_funds' | 'processing_error' | 'declines_later' | 'insufficient_funds_later';

/**
 * Cards that pay at checkout (with the customer present) and then decline every charge Till makes
 * on its own (renewals, dunning retries, plan-change charges), for testing dunning.
 */
export const DECLINES_LATER: readonly SandboxOutcome[] = ['declines_later', 'insufficient_funds_later'];
