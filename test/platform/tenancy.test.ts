// Tenancy matrix (issue 18, part 2): every implemented Checkout operation that takes an id in its
// path, tried with another merchant's key, with the other mode's key, and with another session's
// client secret. Each refusal must be the documented status in the operation's documented error
// shape, and carry nothing of the object's owner; afterwards the owner's objects read exactly as
// before, so a refused write wrote nothing. The list of operations comes from the contract and the
// registry: implementing a new id-taking operation fails the first test until MATRIX knows its object.
import { beforeAll, describe, expect, it } from 'vitest';
import { implementedOperations } from '../../server/api/registry.js';
import { docs } from '../support/contract.js';
import { type ApiResponse, createTestSession, useTestServer } from '../support/server.js';
import { buildWorld, keysOf, newTag, sharedObjects, snapshot } from '../support/tenancy-fixtures.js';
import { type Kind, LIST_ONLY, MATRIX, MODE_SHARED, type Session, type World, isSessionKind } from '../support/tenancy-matrix.js';
import { type IdOperation, idOperations, pathOf } from '../support/tenancy-operations.js';

const t = useTestServer({ rateLimitScale: 100 });
/** Merchant A's objects by mode (false: test, true: live), and one open session of merchant B per mode. */
const A = new Map<boolean, World>();
const B = new Map<boolean, Session>();
const before = new Map<boolean, Record<string, unknown>>();
beforeAll(async () => {
  const tag = newTag('A');
  const shared = await sharedObjects(t, t.merchantA, tag);
  for (const livemode of [false, true]) {
    A.set(livemode, await buildWorld(t, t.merchantA, livemode, shared, tag));
    B.set(livemode, await createTestSession(t, t.merchantB, livemode));
  }
  for (const livemode of [false, true]) before.set(livemode, await snapshot(t, A.get(livemode)!));
});

const ops = idOperations();
const covered = ops.filter((op) => MATRIX[op.operationId]);
const modeName = (livemode: boolean) => (livemode ? 'live' : 'test');
const sessionOf = (w: World, kind: Kind): Session => {
  if (!isSessionKind(kind)) throw new Error(`${kind} has no client secret`);
  return w[kind];
};

/** Everything of a world that must not appear in a refusal, except what the caller put in the path. */
function ownedText(w: World, params: Record<string, string | number>): string[] {
  const inPath = new Set(Object.values(params).map(String));
  const owned = [...w.markers];
  for (const value of Object.values(w)) {
    if (typeof value === 'string') owned.push(value);
    else if (value && typeof value === 'object' && 'clientSecret' in value) owned.push(value.id, value.clientSecret);
  }
  return owned.filter((s) => !inPath.has(s));
}

const CODES: Record<number, { type: string; code: string }> = {
  400: { type: 'invalid_request', code: 'parameter_invalid' },
  401: { type: 'authentication', code: 'invalid_client_secret' },
  403: { type: 'permission_denied', code: 'livemode_not_allowed' },
  404: { type: 'not_found', code: 'resource_not_found' },
};

/** A refusal: the status, the operation's documented shape for it, and nothing of the owner. */
function expectRefused(res: ApiResponse, op: IdOperation, status: number, owner: World, params: Record<string, string | number>) {
  expect(res.status, res.text).toBe(status);
  const { type, code } = CODES[status]!;
  if (op.shapeOf(status) === 'envelope') {
    expect(res.json).toMatchObject({ success: false, errorCode: code, data: { type } });
    expect(res.json.error).toBeUndefined();
  } else {
    expect(res.json.error).toMatchObject({ type, code });
    expect(res.json.success).toBeUndefined();
  }
  for (const text of ownedText(owner, params)) expect(res.text, `a refusal of ${op.operationId} shows ${text}`).not.toContain(text);
}

/** Calls an operation on an object of `owner` as `caller` (a merchant and mode): its secret key, or its publishable key with `secret`. */
async function attempt(op: IdOperation, owner: World, caller: { merchant: World['merchant']; livemode: boolean }, secret?: string) {
  const target = MATRIX[op.operationId]!;
  const params = target.params(owner);
  const keys = keysOf(caller);
  const auth = secret !== undefined ? { key: keys.publishable, clientSecret: secret } : op.api === 'commerce' ? { apiKey: keys.secret } : { key: keys.secret };
  const res = await t.call(op.method, pathOf(op, params), { ...auth, body: target.body });
  return { res, params };
}

describe('the matrix covers the contract', () => {
  it('knows the object of every implemented id-taking operation, and of nothing else', () => {
    expect(ops.length).toBeGreaterThan(20);
    expect(
      ops.map((op) => op.operationId).filter((id) => !MATRIX[id]),
      'add these to MATRIX in test/support/tenancy-matrix.ts',
    ).toEqual([]);
    expect(
      Object.keys(MATRIX).filter((id) => !ops.some((op) => op.operationId === id)),
      'no longer implemented or no id',
    ).toEqual([]);
  });

  it('covers the implemented Commerce operations with an id too (called with x-api-key; PUBLIC ones are reached by public identifiers and left out)', () => {
    const commerce = docs.commerce;
    const implemented = new Set(implementedOperations());
    const keyed = (op: any) => (op?.security ?? commerce.security).length > 0;
    const withIds = Object.entries<any>(commerce.paths).flatMap(([path, item]) =>
      /[{(]/.test(path)
        ? Object.values<any>(item)
            .filter(keyed)
            .map((op) => op?.operationId)
        : [],
    );
    expect(withIds.filter((id) => implemented.has(id) && !covered.some((op) => op.operationId === id))).toEqual([]);
  });
});

const bothModes = <T extends object>(list: T[]) => list.flatMap((x) => [false, true].map((livemode) => ({ ...x, livemode, mode: modeName(livemode) })));

describe("another merchant with merchant A's ids", () => {
  // A secret key answers 404 (a test helper with a live key: 403 before any id is read); an
  // operation taking only a publishable key and the client secret answers 401 to A's secret.
  it.each(bothModes(covered.map((op) => ({ op, name: op.operationId }))))('$name ($mode)', async ({ op, livemode }) => {
    const owner = A.get(livemode)!;
    const caller = { merchant: t.merchantB, livemode };
    if (op.secretKey) {
      const { res, params } = await attempt(op, owner, caller);
      expectRefused(res, op, op.testOnly && livemode ? 403 : 404, owner, params);
    } else {
      const { res, params } = await attempt(op, owner, caller, sessionOf(owner, MATRIX[op.operationId]!.kind).clientSecret);
      expectRefused(res, op, 401, owner, params);
    }
  });
});

describe("merchant A's ids under merchant B's own objects", () => {
  // Operations with a second id (a delivery of a configuration) scope it too: B's own configuration
  // does not open A's delivery, nor page B's log from it.
  it("resendWebhookDelivery and listWebhookDeliveries' startingAfter refuse A's delivery on B's configuration", async () => {
    const key = t.merchantB.keys.test.secret;
    const mine = await t.call('POST', '/v1/WebhookConfiguration', { key, body: { sandboxUrl: 'https://sandbox.b.invalid/hook' } });
    expect(mine.status, mine.text).toBe(201);
    const owner = A.get(false)!;
    const resend = covered.find((op) => op.operationId === 'resendWebhookDelivery')!;
    const params = { id: mine.json.id, deliveryId: owner.delivery };
    expectRefused(await t.call('POST', pathOf(resend, params), { key }), resend, 404, owner, params);
    const list = covered.find((op) => op.operationId === 'listWebhookDeliveries')!;
    const page = await t.call('GET', `${pathOf(list, { id: mine.json.id })}?startingAfter=${owner.delivery}`, { key });
    expectRefused(page, list, 404, owner, { id: mine.json.id, startingAfter: owner.delivery });
  });
});

describe('the other mode of the same merchant', () => {
  // Customers, products, plans and webhook configurations are shared by a merchant's test and live
  // keys by design (docs/webhooks.md; the contract's plan, product and customer descriptions), so
  // their operations are not refused across modes: the next block proves they are readable instead.
  // A test helper's id pattern (`cs_test_…`) refuses a live session id before it is looked up: the
  // contract's 400 parameter_invalid, which says nothing the caller did not send.
  const perMode = covered.filter((op) => !MODE_SHARED.has(MATRIX[op.operationId]!.kind));
  it.each(bothModes(perMode.map((op) => ({ op, name: op.operationId }))))("$name: a $mode-mode object with the other mode's key", async ({ op, livemode }) => {
    const owner = A.get(livemode)!;
    const caller = { merchant: t.merchantA, livemode: !livemode };
    if (op.secretKey) {
      const { res, params } = await attempt(op, owner, caller);
      expectRefused(res, op, op.testOnly && caller.livemode ? 403 : op.idsMatchPattern(params) ? 404 : 400, owner, params);
    } else {
      const { res, params } = await attempt(op, owner, caller, sessionOf(owner, MATRIX[op.operationId]!.kind).clientSecret);
      expectRefused(res, op, 401, owner, params);
    }
  });

  const sharedReads = covered.filter((op) => op.method === 'GET' && MODE_SHARED.has(MATRIX[op.operationId]!.kind));
  it('every mode-shared kind has a read that proves it (inventory items: their list, in test/commerce/catalog-products.test.ts)', () => {
    expect(new Set(sharedReads.map((op) => MATRIX[op.operationId]!.kind))).toEqual(new Set([...MODE_SHARED].filter((kind) => !LIST_ONLY.has(kind))));
  });
  it.each(bothModes(sharedReads.map((op) => ({ op, name: op.operationId }))))(
    '$name: shared by design, readable with the $mode key',
    async ({ op, livemode }) => {
      const owner = A.get(!livemode)!;
      const secret = keysOf({ merchant: t.merchantA, livemode }).secret;
      const res = await t.call('GET', pathOf(op, MATRIX[op.operationId]!.params(owner)), op.api === 'commerce' ? { apiKey: secret } : { key: secret });
      expect(res.status, res.text).toBe(200);
    },
  );

  it("a shared webhook configuration's delivery log shows the key's mode only", async () => {
    for (const livemode of [false, true]) {
      const res = await t.call('GET', `/v1/WebhookConfiguration/${A.get(livemode)!.webhook}/deliveries`, {
        key: keysOf({ merchant: t.merchantA, livemode }).secret,
      });
      expect(res.status).toBe(200);
      expect(res.json.data.map((d: any) => d.id)).toEqual([A.get(livemode)!.delivery]);
      expect(res.text).not.toContain(A.get(!livemode)!.delivery);
    }
  });
});

describe("a publishable key with another session's client secret", () => {
  const clientOps = covered.filter((op) => op.clientSecret);
  const otherKind = (kind: Kind): Kind => (kind === 'openSession' ? 'paidSession' : 'openSession');

  it.each(bothModes(clientOps.map((op) => ({ op, name: op.operationId }))))("$name ($mode): the same merchant's other session", async ({ op, livemode }) => {
    const owner = A.get(livemode)!;
    const other = sessionOf(owner, otherKind(MATRIX[op.operationId]!.kind));
    const { res, params } = await attempt(op, owner, { merchant: t.merchantA, livemode }, other.clientSecret);
    expectRefused(res, op, 401, owner, params);
  });

  it.each(bothModes(clientOps.map((op) => ({ op, name: op.operationId }))))("$name ($mode): another merchant's session", async ({ op, livemode }) => {
    const owner = A.get(livemode)!;
    const { res, params } = await attempt(op, owner, { merchant: t.merchantB, livemode }, B.get(livemode)!.clientSecret);
    expectRefused(res, op, 401, owner, params);
  });

  const aloneOps = covered.filter((op) => op.clientSecretAlone);
  it.each(bothModes(aloneOps.map((op) => ({ op, name: op.operationId }))))("$name ($mode): another session's client secret alone", async ({ op, livemode }) => {
    const owner = A.get(livemode)!;
    const target = MATRIX[op.operationId]!;
    const params = target.params(owner);
    for (const secret of [sessionOf(owner, otherKind(target.kind)).clientSecret, B.get(livemode)!.clientSecret]) {
      const res = await t.call(op.method, pathOf(op, params), { clientSecret: secret, body: target.body });
      expectRefused(res, op, 401, owner, params);
    }
  });
});

describe('after the matrix', () => {
  it.each([false, true].map((livemode) => ({ livemode, mode: modeName(livemode) })))(
    "merchant A's $mode-mode objects read exactly as before",
    async ({ livemode }) => {
      expect(await snapshot(t, A.get(livemode)!)).toEqual(before.get(livemode));
    },
  );
});
