// Wallet QR races across two app instances on one PostgreSQL database: a code is paid or withdrawn,
// never both, and two confirms make one live code.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { walletKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const { session: newSession, confirm, withdraw, qrPaid, payments, showingQr } = walletKit(t);

describe('races (PostgreSQL)', () => {
  it('withdraw-qr racing qr-paid: either the code is withdrawn and cannot be paid, or it is paid and withdraw answers already_paid; never both', async () => {
    const sibling = await t.startSibling();
    try {
      for (let i = 0; i < 5; i++) {
        const { s } = await showingQr();
        const [w, p] = await Promise.all([withdraw(s, t.url), qrPaid(s, sibling.url)]);
        if (p.status === 200) expect(w.json.outcome).toBe('already_paid');
        else expect([p.status, w.json.outcome]).toEqual([409, 'withdrawn']);
        const rows = await payments(s);
        expect(rows).toHaveLength(1);
      }
    } finally {
      await sibling.close();
    }
  });

  it('two confirms with wallet:qr racing make one live code', async () => {
    const sibling = await t.startSibling();
    try {
      const s = await newSession();
      const [a, b] = await Promise.all([confirm(s, 'wallet:qr', t.url), confirm(s, 'wallet:qr', sibling.url)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.json.paymentResult.id).toBe(b.json.paymentResult.id);
      expect(await payments(s)).toHaveLength(1);
    } finally {
      await sibling.close();
    }
  });
});
