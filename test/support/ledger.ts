/**
 * The ledger's accounts that are the merchant's money (pending until settled, then available).
 * Every posting also has its other side (the payer, the processor's fees, a card hold): tests that
 * ask "what did this payment do to the merchant's balances" look at these accounts only.
 */
export const MERCHANT_BALANCES: ('pending' | 'available')[] = ['pending', 'available'];
