import { randomToken } from '../../shared/crypto.js';

export type KeyKind = 'secret' | 'publishable' | 'restricted';

const PREFIX: Record<KeyKind, string> = { secret: 'sk', publishable: 'pk', restricted: 'rk' };
const KIND: Record<string, KeyKind> = { sk: 'secret', pk: 'publishable', rk: 'restricted' };

/** A new API key: `sk_test_…`, `pk_live_…`, `rk_test_…`, with 32 random base62 characters. */
export function newApiKey(kind: KeyKind, livemode: boolean): string {
  return `${PREFIX[kind]}_${livemode ? 'live' : 'test'}_${randomToken(32)}`;
}

/** What a key's text says about it, before any lookup. */
export function parseKeyPrefix(key: string): { kind: KeyKind; livemode: boolean } | null {
  const m = /^(sk|pk|rk)_(test|live)_[A-Za-z0-9]{16,128}$/.exec(key);
  if (!m) return null;
  return { kind: KIND[m[1]!]!, livemode: m[2] === 'live' };
}

/** The part of a key shown in listings: `sk_test_AbCd`. */
export const keyDisplayPrefix = (key: string): string => key.slice(0, key.indexOf('_', 3) + 5);
