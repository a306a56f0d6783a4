// Who hears what, in this process: merchant connections by tenant, and every connection by the
// invoice identifiers it follows. A change of an invoice reaches each connection at most once.
import type { Tenant } from '../shared/tenant.js';
import type { HubAccess } from './access.js';

/** A connected client, as the audience knows it. */
export interface Member {
  /** Its connection token: one live connection per token. */
  readonly id: string;
  readonly access: HubAccess;
  /** Sends the invocation `target(...args)` to the client. */
  invoke(target: string, args: unknown[]): void;
  /** Closes the connection with a close message. */
  close(error?: string, allowReconnect?: boolean): void;
}

/** Whose invoice changed. */
export interface InvoiceOwner {
  tenant: Tenant;
  identifier: string;
}

const tenantKey = (tenant: Tenant) => `${tenant.merchantId}:${tenant.livemode ? 'live' : 'test'}`;

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

export class Audience {
  private readonly members = new Map<string, Member>();
  private readonly byTenant = new Map<string, Set<Member>>();
  private readonly byIdentifier = new Map<string, Set<Member>>();
  private readonly followed = new Map<Member, Set<string>>();

  /** Whether a connection with this token is live here. */
  has(id: string): boolean {
    return this.members.has(id);
  }

  join(member: Member): void {
    this.members.set(member.id, member);
    this.followed.set(member, new Set());
    if (member.access.kind === 'merchant') addTo(this.byTenant, tenantKey(member.access.tenant), member);
  }

  leave(member: Member): void {
    if (this.members.get(member.id) !== member) return;
    this.members.delete(member.id);
    if (member.access.kind === 'merchant') removeFrom(this.byTenant, tenantKey(member.access.tenant), member);
    for (const identifier of this.followed.get(member) ?? []) removeFrom(this.byIdentifier, identifier, member);
    this.followed.delete(member);
  }

  /** The invoice identifiers a member follows. */
  following(member: Member): ReadonlySet<string> {
    return this.followed.get(member) ?? new Set();
  }

  follow(member: Member, identifier: string): void {
    const followed = this.followed.get(member);
    if (!followed) return;
    followed.add(identifier);
    addTo(this.byIdentifier, identifier, member);
  }

  unfollow(member: Member, identifier: string): void {
    this.followed.get(member)?.delete(identifier);
    removeFrom(this.byIdentifier, identifier, member);
  }

  /** Everyone who hears a change of this invoice: its merchant's connections of its mode, and whoever follows it. */
  recipients(owner: InvoiceOwner): Set<Member> {
    return new Set([...(this.byTenant.get(tenantKey(owner.tenant)) ?? []), ...(this.byIdentifier.get(owner.identifier) ?? [])]);
  }

  /** Every live connection. */
  all(): Member[] {
    return [...this.members.values()];
  }

  /** Closes every connection (they leave as their sockets close). */
  closeAll(error?: string, allowReconnect?: boolean): void {
    for (const member of [...this.members.values()]) member.close(error, allowReconnect);
  }

  get size(): number {
    return this.members.size;
  }
}
