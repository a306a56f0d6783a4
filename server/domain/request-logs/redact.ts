// What a request log may keep of a body: everything but card numbers, security codes and secrets.
// Removed by field name (a card number, CVC, secret, password or one-time code field, whatever it
// holds) and by value wherever it sits (a Luhn-valid run of 13 to 19 digits, a whole API key, a
// client secret, a notification secret), so a secret under an unexpected name is removed too.
import type { JsonValue } from './request-log.tables.js';
import { luhnValid } from '../../shared/luhn.js';

export const REDACTED = '[redacted]';

/** Field names whose value is removed, compared lower-case without `_` and `-`. */
const SECRET_FIELDS = new Set([
  'number',
  'cardnumber',
  'pan',
  'primaryaccountnumber',
  'cvc',
  'cvv',
  'cvc2',
  'cvv2',
  'cid',
  'securitycode',
  'cardsecuritycode',
  'cardcvc',
  'otp',
  'otpcode',
  'verificationcode',
  'password',
  'pin',
  'authorization',
  'apikey',
  'xapikey',
  'key',
  'token',
  'accesstoken',
  'refreshtoken',
]);

/** Any field whose name says it holds a secret (`clientSecret`, `notificationSecret`, `webhookSecret`, `secretKey`). */
const SECRET_IN_NAME = /secret|password/;

/** A run of 13 to 19 digits, optionally grouped by single spaces or dashes, not inside a longer word or number. */
const DIGIT_RUN = /(?<![0-9A-Za-z])\d(?:[ -]?\d){12,18}(?![0-9A-Za-z])/g;
/** A whole API key (domain/merchants/keys.ts: `sk_`, `pk_` or `rk_`, the mode, then base62). */
const API_KEY = /(?<![0-9A-Za-z])(?:sk|pk|rk)_(?:test|live)_[0-9A-Za-z]{16,128}/g;
/** A checkout session's client secret (`cs_…_secret_…`) and a notification secret (`whsec_…`). */
const CLIENT_SECRET = /[0-9A-Za-z_]*_secret_[0-9A-Za-z]+/g;
const NOTIFICATION_SECRET = /(?<![0-9A-Za-z])whsec_[0-9A-Za-z]+/g;

/**
 * What every match of the four patterns above contains: 13 digits (optionally separated), a key's
 * `sk_test_`, a `_secret_` or a `whsec_`. Text without any is returned as it is, untouched by the
 * replacements (most strings of a body: ids, names, dates, currencies).
 */
const MAY_HOLD_SECRET = /\d(?:[ -]?\d){12}|[spr]k_(?:test|live)_|_secret_|whsec_/;

/** Field names already judged (bodies repeat the same few names), up to a bound. */
const judgedFields = new Map<string, boolean>();
const MAX_JUDGED_FIELDS = 2000;

const isSecretField = (name: string): boolean => {
  const judged = judgedFields.get(name);
  if (judged !== undefined) return judged;
  const plain = name.toLowerCase().replace(/[_-]/g, '');
  const secret = SECRET_FIELDS.has(plain) || SECRET_IN_NAME.test(plain);
  if (judgedFields.size < MAX_JUDGED_FIELDS) judgedFields.set(name, secret);
  return secret;
};

/** Text with every card number, key and secret in it replaced by `[redacted]`. */
export function redactText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  return text
    .replace(DIGIT_RUN, (run) => {
      const digits = run.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? REDACTED : run;
    })
    .replace(API_KEY, REDACTED)
    .replace(CLIENT_SECRET, REDACTED)
    .replace(NOTIFICATION_SECRET, REDACTED);
}

/**
 * A part of every secret field name above, as `isSecretField` compares names (lower-case, without
 * `_` and `-`): a text holding none of them holds no secret field.
 */
const SECRET_NAME_PART = /number|pan|cvc|cvv|cid|otp|securitycode|verificationcode|password|pin|authorization|key|token|secret/;
/** A JSON number in exponent form (JSON.stringify writes integers below 1e21 in plain digits). */
const EXPONENT = /[:,[]\s*-?\d+(?:\.\d+)?[eE]/;

/**
 * Whether JSON text is already as `redactJson` would leave it, judged without parsing it: no escape
 * (one could spell a name or a secret), no number in exponent form, nothing a secret value holds
 * (MAY_HOLD_SECRET) and no part of a secret field's name anywhere. A text passing this is kept as
 * it is; any other is parsed and redacted. Most answers pass (a plan, a customer, a list of
 * products); one naming a client secret, a key or a card number never does.
 */
export function needsNoRedaction(jsonText: string): boolean {
  if (jsonText.includes('\\') || EXPONENT.test(jsonText) || MAY_HOLD_SECRET.test(jsonText)) return false;
  return !SECRET_NAME_PART.test(jsonText.toLowerCase().replace(/[_-]/g, ''));
}

/** A JSON number written with 13 to 19 digits that pass Luhn: a card number sent as a number. */
const cardLikeNumber = (value: number): boolean => {
  if (Math.abs(value) < 1e12) return false; // fewer than 13 digits
  const text = Number.isInteger(value) ? String(value) : '';
  return text.length >= 13 && text.length <= 19 && luhnValid(text);
};

/** A copy of a JSON value with its secrets removed (by field name, then by value). */
export function redactJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'number') return cardLikeNumber(value) ? REDACTED : value;
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(redactJson);
  if (typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
      out[name] = isSecretField(name) && (typeof field === 'string' || typeof field === 'number') ? REDACTED : redactJson(field);
    }
    return out;
  }
  return null;
}
