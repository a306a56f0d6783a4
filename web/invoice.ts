// The hosted invoice page's script (bundled to /assets/invoice.js). Paying needs no script (the
// page's buttons are forms); this follows the invoice's status live: a public connection to the
// notification hub, `SubscribeToInvoice` with the invoice's identifier, and on `InvoiceUpdated`
// with another status than the one shown, the page is shown again (paid, cancelled, ...).
import { HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { $, show } from './dom.js';

interface InvoiceUpdated {
  invoiceId: number;
  status: string;
}

const main = document.getElementById('main')!;
const identifier = main.dataset.identifier!;
const shown = main.dataset.status!;
const live = $('live');

const WORDS: Record<string, string> = { Paid: 'paid', PartiallyPaid: 'partly paid', Cancelled: 'cancelled', Expired: 'expired', Overdue: 'overdue' };

/** Another status than the page shows: say so, then show the page again as it now is. */
function changed(status: string | undefined): void {
  if (!status || status === shown) return;
  show(live, `This invoice is now ${WORDS[status] ?? status.toLowerCase()}. Updating…`);
  setTimeout(() => location.reload(), 400);
}

async function follow(): Promise<void> {
  const connection = new HubConnectionBuilder()
    .withUrl(`${location.origin}/hubs/notifications`)
    .withAutomaticReconnect()
    .configureLogging(LogLevel.None)
    .build();
  connection.on('InvoiceUpdated', (event: InvoiceUpdated) => changed(event.status));
  // The answer is the status read after following began: a change in between is not missed.
  const subscribe = async () => changed(((await connection.invoke('SubscribeToInvoice', identifier)) as Partial<InvoiceUpdated>).status);
  connection.onreconnected(() => void subscribe().catch(() => undefined));
  await connection.start();
  await subscribe();
  main.dataset.live = 'following';
}

// Without the hub (blocked, offline) the page still works: it just does not update by itself.
follow().catch(() => {
  main.dataset.live = 'unavailable';
});
