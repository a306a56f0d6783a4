// What must never be stored or logged: a card number, a card's security code, an API secret key.
// Pure text rules, shared by the scan of the database and logs (scripts/secrets-scan.ts) and
// proven by test/platform/secrets-patterns.unit.test.ts.
import { luhnValid } from '../../server/shared/luhn.js';

export { luhnValid };

export type SecretKind = 'card_number' | 'cvc' | 'secret_key';

export interface Finding {
  kind: SecretKind;
  /** Offset in the text. */
  index: number;
  /** The match with all but its last four characters masked (a security code: only its field name), so a report never repeats a secret. */
  masked: string;
}

/**
 * A run of 13 to 19 digits, optionally grouped by single spaces or dashes, not part of a longer
 * word or number (hex hashes and ids are letters and digits; a run inside one is not a card).
 */
const DIGIT_RUN = /(?<![0-9A-Za-z])\d(?:[ -]?\d){12,18}(?![0-9A-Za-z])/g;
/**
 * A UUID (8-4-4-4-12 hex digits). Its first three groups are all decimal digits about once in 2,000
 * UUIDs, and a dash-grouped 16-digit run is then Luhn-valid one time in ten: a run inside a UUID is
 * an identifier (every invoice and link has one), not a card.
 */
const UUID = /(?<![0-9A-Za-z])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9A-Za-z])/gi;
/** A JSON or log field named like a security code, holding 3 or 4 digits. */
const CVC_FIELD = /"(?:cvc|cvv|cvc2|cvv2|cid|securityCode|security_code|card_?cvc)"\s*:\s*"?\d{3,4}"?/gi;
/** A whole secret key (`sk_test_` or `sk_live_` and 20 or more base62 characters); its stored 12-character prefix is not one. */
const SECRET_KEY = /(?<![0-9A-Za-z_])sk_(?:test|live)_[0-9A-Za-z]{20,}/g;

/**
 * Whether the first digit is a card network's major industry identifier: 2 to 6 (Mastercard, Amex,
 * Diners, JCB, Visa, Discover, UnionPay, Maestro), or 1 for UATP's 15 digits. This keeps epoch
 * milliseconds (13 digits from 1…) out: they are not card numbers and sit in every log and table.
 */
function issuerLike(digits: string): boolean {
  const first = digits[0]!;
  return (first >= '2' && first <= '6') || (first === '1' && digits.length === 15);
}

function mask(text: string): string {
  return `${'•'.repeat(Math.max(0, text.length - 4))}${text.slice(-4)}`;
}

/** Every card number (Luhn-valid 13–19 digit run with a card network's first digit), security-code field and secret key in `text`. */
export function findSecrets(text: string): Finding[] {
  const found: Finding[] = [];
  const uuids = [...text.matchAll(UUID)].map((m) => [m.index, m.index + m[0].length] as const);
  const inUuid = (at: number) => uuids.some(([start, end]) => at >= start && at < end);
  for (const m of text.matchAll(DIGIT_RUN)) {
    if (inUuid(m.index)) continue;
    const digits = m[0].replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && issuerLike(digits) && luhnValid(digits))
      found.push({ kind: 'card_number', index: m.index, masked: mask(digits) });
  }
  for (const m of text.matchAll(CVC_FIELD)) found.push({ kind: 'cvc', index: m.index, masked: `${m[0].split(':')[0]}: •••` });
  for (const m of text.matchAll(SECRET_KEY)) found.push({ kind: 'secret_key', index: m.index, masked: mask(m[0]) });
  return found;
}
