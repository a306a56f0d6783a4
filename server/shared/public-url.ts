import { lookup } from 'node:dns/promises';
import { setTimeout as wait } from 'node:timers/promises';
import { BlockList, isIP } from 'node:net';
import { TtlCache } from './ttl-cache.js';

/**
 * Addresses a merchant-supplied URL must never reach: loopback, private, link-local (cloud
 * metadata lives there), carrier-grade NAT, unspecified, multicast, IPv6 unique-local and
 * IPv4-mapped forms of all of these.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP address literal is one a webhook may never be sent to. */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isForbiddenAddress(mapped[1]!);
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

function loopbackCheck(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return loopbackCheck(mapped[1]!);
  const family = isIP(address);
  if (family === 4) return loopback.check(address, 'ipv4');
  if (family === 6) return loopback.check(address, 'ipv6');
  return false;
}

/**
 * `check`, with its answers remembered by address (the last 1,000; an answer never goes stale):
 * each BlockList check builds a SocketAddress, and every webhook attempt asks.
 */
function remembered(check: (address: string) => boolean): (address: string) => boolean {
  const known = new TtlCache<string, boolean>(Infinity, 1_000);
  return (address) => {
    let answer = known.get(address);
    if (answer === undefined) {
      answer = check(address);
      known.set(address, answer);
    }
    return answer;
  };
}

/** Whether an IP address literal is a loopback address (127.0.0.0/8, ::1, or their IPv4-mapped form). */
export const isLoopbackAddress = remembered(loopbackCheck);

const isPublic = remembered((address) => !isForbiddenAddress(address));

/** Whether a target may be reached: public, or loopback when the caller allows loopback. */
export const isAllowedTarget = (address: string, allowLoopback = false): boolean => isPublic(address) || (allowLoopback && isLoopbackAddress(address));

export interface PublicUrlOptions {
  /** Accept loopback hosts too (`TILL_ALLOW_LOOPBACK_WEBHOOKS`, test-mode targets only). */
  allowLoopback?: boolean;
}

/**
 * Why a notification URL is refused, or undefined when it is acceptable: https only, and a host
 * that is public both as written and as it resolves. A name that does not resolve from here is
 * accepted (delivery checks again when it connects).
 */
export async function publicHttpsProblem(raw: string, options: PublicUrlOptions = {}): Promise<string | undefined> {
  const allowLoopback = options.allowLoopback ?? false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  // The contract's `uri` format (RFC 3986): the URL is answered back as sent, so it must be one.
  if (/[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/.test(raw)) return 'must be a URI: percent-encode spaces, non-ASCII characters and characters such as < > " { } |';
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username || url.password) return 'must not carry credentials';
  // A trailing dot names the same host (`localhost.` is localhost).
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) {
    if (!allowLoopback) return 'must be a public host';
  } else if (host.endsWith('.local') || host.endsWith('.internal')) return 'must be a public host';
  if (isIP(host)) return isAllowedTarget(host, allowLoopback) ? undefined : 'must be a public host';
  const addresses = await lookupWithin(host, LOOKUP_WAIT_MS);
  if (addresses?.some((a) => !isAllowedTarget(a.address, allowLoopback))) return 'must be a public host (the name resolves to a private address)';
  return undefined;
}

/**
 * Whether a host name is under `.invalid` (RFC 6761 §6.4): such a name never resolves, and a
 * resolver answers it at once, without asking DNS. Webhook checks and deliveries do the same, so
 * an endpoint at such a name (the conformance suite's, tests') never waits for a lookup, nor holds
 * one of libuv's four lookup threads from the names that do resolve.
 */
export const isInvalidName = (host: string): boolean => {
  const name = host.toLowerCase().replace(/\.+$/, '');
  return name === 'invalid' || name.endsWith('.invalid');
};

/** How long a create waits for the name to resolve before taking it as not resolvable from here. */
const LOOKUP_WAIT_MS = 3_000;

/**
 * The name's addresses; undefined when it does not resolve from here, or not within `ms` (a slow
 * resolver, or libuv's four lookup threads busy with other names, must not hold a request):
 * delivery re-checks the address at connect time either way.
 */
async function lookupWithin(host: string, ms: number): Promise<{ address: string }[] | undefined> {
  if (isInvalidName(host)) return undefined;
  const stop = new AbortController();
  const late = wait(ms, undefined, { signal: stop.signal, ref: false }).catch(() => undefined);
  try {
    return await Promise.race([lookup(host, { all: true, verbatim: true }).catch(() => undefined), late]);
  } finally {
    stop.abort();
  }
}
