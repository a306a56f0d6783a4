import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random base62 text from a CSPRNG, without modulo bias. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** SHA-256 hex of a secret. Keys and client secrets are stored only this way. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Compares two hashes in constant time. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export type KeyKind = 'secret' | 'publishable';

/** A new API key: `sk_test_…`, `pk_live_…`, with 32 random base62 characters. */
export function newApiKey(kind: KeyKind, livemode: boolean): string {
  return `${kind === 'secret' ? 'sk' : 'pk'}_${livemode ? 'live' : 'test'}_${randomToken(32)}`;
}

/** What a key's text says about it, before any lookup. */
export function parseKeyPrefix(key: string): { kind: KeyKind; livemode: boolean } | null {
  const m = /^(sk|pk)_(test|live)_[A-Za-z0-9]{16,128}$/.exec(key);
  if (!m) return null;
  return { kind: m[1] === 'sk' ? 'secret' : 'publishable', livemode: m[2] === 'live' };
}

/** The part of a key shown in listings: `sk_test_AbCd`. */
export const keyDisplayPrefix = (key: string): string => key.slice(0, key.indexOf('_', 3) + 5);
