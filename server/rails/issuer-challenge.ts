// The sandbox processor's 3-D Secure: the card `4000000000003220` asks for a challenge, and the
// "issuer" is a page on this server (`/3ds/{challengeId}`) where the payer completes or fails
// the authentication. A real acquirer would send the payer to the card issuer's page instead.
import { randomToken } from '../shared/crypto.js';

/** Where challenge pages live, outside `/v1`. */
export const CHALLENGE_PATH = '/3ds';

/** A challenge id: `3ds_` and 40 random base62 characters (about 238 bits): the page's only credential. */
export const newChallengeId = (): string => `3ds_${randomToken(40)}`;

/** The shape of a challenge id; anything else is not looked up. */
export const CHALLENGE_ID = /^3ds_[A-Za-z0-9]{40}$/;

/** The token the challenge page's form carries back. */
export const newFormToken = (): string => randomToken(32);

/** The challenge page of a challenge, on this server. */
export const challengeUrl = (publicBaseUrl: string, challengeId: string): string => `${publicBaseUrl}${CHALLENGE_PATH}/${challengeId}`;

/** How the payer answered the challenge page. */
export type ChallengeAnswer = 'complete' | 'fail';

/** Failure codes of a card payment that ended in 3-D Secure (`payment.failed` `failureCode`). */
export const CHALLENGE_FAILURES = {
  failed: { code: 'authentication_failed', message: 'The payer failed 3-D Secure authentication.' },
  replaced: { code: 'authentication_abandoned', message: 'The payer confirmed the session again before finishing 3-D Secure authentication.' },
  expired: { code: 'authentication_expired', message: 'The checkout session expired before the payer finished 3-D Secure authentication.' },
  invoiceNotPayable: {
    code: 'invoice_not_payable',
    message: 'The invoice this session pays could no longer be paid when the payer finished 3-D Secure authentication.',
  },
} as const;
