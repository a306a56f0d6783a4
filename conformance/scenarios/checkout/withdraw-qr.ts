// Withdrawing a session's wallet QR code: each outcome (withdrawn, already_paid, failed), the
// hosted page's client-secret-only call, and confirming with another option afterwards.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { expectError, expectStatus } from '../fixtures/http.js';
import { ISSUE_QR, PAY_QR, WITHDRAW } from '../fixtures/operations.js';
import { pendingBecause } from '../fixtures/scenario.js';
import { SESSION_ENDPOINTS, WITHDRAW_OUTCOMES } from '../fixtures/sections.js';
import { confirmWith, tokenizeOn } from '../fixtures/sessions.js';
import { newQrPaidSession, newQrSession, payQr, postWithdraw } from '../fixtures/wallet.js';

export const withdrawQr: Scenario[] = [
  {
    id: 'checkout.withdraw-qr.withdrawn',
    title:
      'Outcome `withdrawn`: the code can no longer be paid and the session is back to `payment_pending`; the answer has sessionId, outcome, status and a message fit for the payer',
    source: WITHDRAW_OUTCOMES,
    requires: [...ISSUE_QR, WITHDRAW, 'simulateQrPaid'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      const res = await postWithdraw(ctx, s);
      expectStatus(res, 200, 'withdraw-qr');
      assert.deepEqual([res.json.sessionId, res.json.outcome, res.json.status], [s.id, 'withdrawn', 'payment_pending']);
      assert.ok(typeof res.json.message === 'string' && res.json.message.length > 0, 'a message for the payer');
      expectError(await payQr(ctx, s), 409, 'conflict', 'invalid_state');
    },
  },
  {
    id: 'checkout.withdraw-qr.already-paid',
    title: 'Outcome `already_paid`: the code was paid; the session is `completed`',
    source: WITHDRAW_OUTCOMES,
    requires: [...PAY_QR, WITHDRAW],
    serverOnly: true,
    async run(ctx) {
      const s = await newQrPaidSession(ctx);
      const res = await postWithdraw(ctx, s);
      expectStatus(res, 200, 'withdraw-qr');
      assert.deepEqual([res.json.outcome, res.json.status], ['already_paid', 'completed']);
    },
  },
  {
    id: 'checkout.withdraw-qr.failed',
    title:
      'Outcome `failed`: the code could not be withdrawn and may still be paid; nothing changed (sandbox trigger: session metadata `sandboxWithdrawQr` = `failed`)',
    source: WITHDRAW_OUTCOMES,
    requires: [...ISSUE_QR, WITHDRAW, 'simulateQrPaid'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx, { metadata: { conformanceRun: ctx.runId, sandboxWithdrawQr: 'failed' } });
      const res = await postWithdraw(ctx, s);
      expectStatus(res, 200, 'withdraw-qr');
      if (res.json.outcome !== 'failed') pendingBecause(`the target does not offer the withdraw failure trigger (answered ${res.json.outcome})`);
      assert.equal(res.json.status, 'payment_pending', 'nothing changed');
      expectStatus(await payQr(ctx, s), 200, 'the code can still be paid');
    },
  },
  {
    id: 'checkout.withdraw-qr.client-secret-alone',
    title: 'The hosted page may call withdraw-qr with the client secret alone',
    source: SESSION_ENDPOINTS,
    requires: [...ISSUE_QR, WITHDRAW],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      const res = await postWithdraw(ctx, s, true);
      expectStatus(res, 200, 'withdraw-qr with the client secret alone');
      assert.equal(res.json.outcome, 'withdrawn');
    },
  },
  {
    id: 'checkout.withdraw-qr.before-picker',
    title: 'After withdraw-qr the session can be confirmed with another option and the old code cannot be paid on top',
    source: WITHDRAW_OUTCOMES,
    requires: [...ISSUE_QR, WITHDRAW, 'tokenizeCard', 'simulateQrPaid'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      expectStatus(await postWithdraw(ctx, s), 200, 'withdraw-qr');
      const paid = await confirmWith(ctx, s, await tokenizeOn(ctx, s));
      expectStatus(paid, 200, 'confirm with a card');
      assert.equal(paid.json.paymentStatus, 'paid');
      expectError(await payQr(ctx, s), 409, 'conflict', 'invalid_state');
    },
  },
];
