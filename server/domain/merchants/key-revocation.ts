// "A key was revoked", inside this process: whatever holds a key beyond one request (the key
// cache of http/auth.ts, the notification hub's connections) subscribes here and lets go of it
// at once. Other processes learn it from the database, within their cache's 30 seconds; a key
// revoked by the merchant command (another process) is announced nowhere.

/** A key that no longer authenticates. */
export interface RevokedKey {
  merchantId: number;
  livemode: boolean;
  keyId: number;
  /** SHA-256 of the key's text, hex: how caches and connections know the key without its text. */
  keyHash: string;
}

export type KeyRevokedListener = (key: RevokedKey) => void;

const listeners = new Set<KeyRevokedListener>();

/** Calls `listener` for every key revoked in this process from now on; answers how to stop. */
export function onKeyRevoked(listener: KeyRevokedListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells every listener that `key` was revoked (after the revocation committed). A listener that throws does not stop the others. */
export function announceKeyRevoked(key: RevokedKey): void {
  for (const listener of listeners) {
    try {
      listener(key);
    } catch {
      // A listener's failure is its own; the revocation stands.
    }
  }
}
