import { closeDispute, getDispute, listDisputes, moveDispute, openDispute } from '../../domain/disputes/dispute.service.js';
import { created, listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { disputeStatusOf, disputeView } from './views/dispute.view.js';

const dateOf = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/** Disputes: the reads, and the test helpers that raise, move and close them (live keys are refused before those run). */
export const disputeHandlers: CheckoutHandlers = {
  async retrieveDispute({ db, tenant, path }) {
    return ok(disputeView(await getDispute(db, tenant, path.id)));
  },
  async listDisputes({ db, tenant, query }) {
    const status = query.status === undefined ? undefined : disputeStatusOf(query.status);
    return ok(listOf(await listDisputes(db, tenant, { ...pageOf(query, 25), paymentId: query.paymentId, status }), disputeView));
  },
  async openTestDispute({ db, deps, tenant, path, body }) {
    const input = { amount: body?.amount === undefined ? undefined : String(body.amount), reason: body?.reason, evidenceDueAt: dateOf(body?.evidenceDueBy) };
    return created(disputeView(await openDispute(db, deps.clock, tenant, path.paymentId, input)));
  },
  async updateTestDispute({ db, deps, tenant, path, body }) {
    const status = body.status === undefined ? undefined : (disputeStatusOf(body.status) as 'open' | 'under_review');
    return ok(disputeView(await moveDispute(db, deps.clock, tenant, path.id, { status, evidenceDueAt: dateOf(body.evidenceDueBy) })));
  },
  async closeTestDispute({ db, deps, tenant, path, body }) {
    return ok(disputeView(await closeDispute(db, deps.clock, tenant, path.id, disputeStatusOf(body.outcome) as 'won' | 'lost' | 'accepted')));
  },
};
