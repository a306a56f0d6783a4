// The hosted checkout page's script (bundled to /assets/checkout.js). It pays the session through
// the generated SDK with the page's publishable key and the session's client secret. The secret
// comes from the address fragment (`/pay/{id}#cs=...`, never sent to a server), is kept in this
// tab's memory (`tabMemory`) for the way back from 3-D Secure, and is removed from the address bar.
// In the embedded form (`?embed=1`, framed by /js/till.js) it reports outcomes to the parent page.
import { createCheckoutClient } from '../sdk/src/client.js';
import { $, type ApiError, clearErrors, describeError, show, showFieldError, tabMemory, wireMethodPicker } from './dom.js';

const main = document.getElementById('main')!;
const data = main.dataset;
const sessionId = data.session!;
const embedded = data.embedded === 'true';
const alertBox = $('alert');
const statusBox = $('status');

type Outcome = 'ready' | 'success' | 'declined' | 'three_d_secure' | 'error';
/** Tells the merchant's page (embedded form only) what happened. Carries no secret. */
function report(type: Outcome, detail: Record<string, unknown> = {}): void {
  if (embedded && window.parent !== window) window.parent.postMessage({ source: 'till', type, sessionId, ...detail }, '*');
}

function secretFromAddress(): { clientSecret: string | null; publishableKey: string | null } {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const stored = `till.cs.${sessionId}`;
  const clientSecret = fragment.get('cs') ?? tabMemory.get(stored);
  if (fragment.get('cs')) {
    tabMemory.set(stored, fragment.get('cs')!);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return { clientSecret, publishableKey: fragment.get('pk') };
}

function succeed(): void {
  report('success');
  tabMemory.set(`till.3ds.${sessionId}`, null);
  if (embedded) return show(statusBox, 'Payment complete.');
  if (data.successUrl) location.assign(data.successUrl);
  else location.reload();
}

function fail(error: ApiError | undefined, fallback = 'Something went wrong. Try again.'): void {
  const message = describeError(error, fallback);
  if (error?.error?.param && showFieldError(error.error.param, message)) return;
  show(alertBox, message);
  if (error?.error?.code === 'card_declined') report('declined', { message });
  else report('error', { message, code: error?.error?.code });
}

function start(): void {
  if (data.state !== 'payable') {
    // An end page: a completed session goes on to the merchant (after 3-D Secure, for one).
    if (data.state === 'completed') succeed();
    return;
  }
  const { clientSecret, publishableKey } = secretFromAddress();
  if (!clientSecret) {
    for (const form of document.querySelectorAll<HTMLElement>('.method, .methods')) form.hidden = true;
    return show(alertBox, 'This payment link is incomplete. Return to the shop and open it again.');
  }
  const till = createCheckoutClient({ baseUrl: location.origin, publishableKey: publishableKey ?? data.key!, clientSecret });
  const returnUrl = `${location.origin}/pay/${sessionId}${embedded ? '?embed=1' : ''}`;

  /** Confirms with a payment method and follows what the answer asks. */
  async function confirm(paymentMethodId: string): Promise<void> {
    const { data: result, error } = await till.POST('/v1/checkout-sessions/{id}/confirm', {
      params: { path: { id: sessionId } },
      body: { paymentMethodId, returnUrl },
    });
    if (error || !result) return fail(error as ApiError);
    const next = result.nextAction;
    if (!next) return succeed();
    if (next.type === 'redirect_to_3ds') {
      tabMemory.set(`till.3ds.${sessionId}`, '1');
      report('three_d_secure');
      location.assign(next.url);
      return;
    }
    await showQr(next.qrImageUrl, next.expiresAt);
  }

  wireCard(till, confirm);
  wireSavedCards(till, confirm);
  wireClickToPay(till, confirm);
  const { showQr } = wireWalletQr(till, confirm, succeed);
  wireMethodPicker(data.method);
  if (tabMemory.get(`till.3ds.${sessionId}`)) {
    tabMemory.set(`till.3ds.${sessionId}`, null);
    const message = 'Your card issuer did not confirm the payment. Try again or use another card.';
    show(alertBox, message);
    report('declined', { message, code: 'authentication_failed' });
  }
  report('ready', { height: document.body.scrollHeight });
}

type Till = ReturnType<typeof createCheckoutClient>;
type Confirm = (paymentMethodId: string) => Promise<void>;

/** Busy state of a submit button while a call runs. */
async function busy(button: HTMLButtonElement | null, work: () => Promise<void>): Promise<void> {
  if (button) button.disabled = true;
  clearErrors(alertBox);
  try {
    await work();
  } catch {
    fail(undefined, 'The connection failed. Check your network and try again.');
  } finally {
    if (button) button.disabled = false;
  }
}

function wireCard(till: Till, confirm: Confirm): void {
  const form = document.getElementById('card-form') as HTMLFormElement | null;
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(form.querySelector('button'), async () => {
      const value = (id: string) => ($(id) as HTMLInputElement).value.trim();
      const card = {
        cardNumber: value('cardNumber').replace(/[\s-]/g, ''),
        expiryMonth: Number(value('expiryMonth')),
        expiryYear: Number(value('expiryYear')),
        cvc: value('cvc'),
      };
      if (card.expiryYear > 0 && card.expiryYear < 100) card.expiryYear += 2000;
      if (!/^\d{12,19}$/.test(card.cardNumber)) return void showFieldError('cardNumber', 'Enter the card number.');
      if (!(card.expiryMonth >= 1 && card.expiryMonth <= 12)) return void showFieldError('expiryMonth', 'Enter the month, 1 to 12.');
      if (!/^\d{4}$/.test(String(card.expiryYear))) return void showFieldError('expiryYear', 'Enter the year, for example 2030.');
      if (!/^\d{3,4}$/.test(card.cvc)) return void showFieldError('cvc', 'Enter the 3 or 4 digits on the back of the card.');
      const name = value('cardName');
      const { data: method, error } = await till.POST('/v1/checkout-sessions/{id}/tokenize', {
        params: { path: { id: sessionId } },
        body: { ...card, ...(name ? { billingDetails: { name } } : {}) },
      });
      if (error || !method) return fail(error as ApiError);
      await confirm(method.id);
    });
  });
}

function wireSavedCards(till: Till, confirm: Confirm): void {
  const section = document.getElementById('saved-card');
  if (!section) return;
  let verificationId = '';
  section.addEventListener(
    'till:shown',
    () =>
      void busy(null, async () => {
        const { data: list, error } = await till.GET('/v1/checkout-sessions/{id}/saved-cards', { params: { path: { id: sessionId } } });
        if (error || !list) return fail(error as ApiError);
        const items = list.data.map((c) => {
          const li = document.createElement('li');
          const button = document.createElement('button');
          button.type = 'button';
          button.textContent = `${c.card.brand} •••• ${c.card.last4} (${String(c.card.expiryMonth).padStart(2, '0')}/${c.card.expiryYear})`;
          button.addEventListener(
            'click',
            () =>
              void busy(button, async () => {
                const { data: v, error: e } = await till.POST('/v1/checkout-sessions/{id}/saved-cards/verify', {
                  params: { path: { id: sessionId } },
                  body: { paymentMethodId: c.id },
                });
                if (e || !v) return fail(e as ApiError);
                verificationId = v.verificationId;
                $('saved-otp-phone').textContent = v.maskedPhone;
                ($('saved-otp-form') as HTMLFormElement).hidden = false;
                $('savedOtp').focus();
              }),
          );
          li.append(button);
          return li;
        });
        $('saved-card-list').replaceChildren(...items);
        if (items.length === 0) show(statusBox, 'No saved cards for this checkout. Pay with a card instead.');
      }),
  );
  const otpForm = $('saved-otp-form') as HTMLFormElement;
  otpForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(otpForm.querySelector('button'), async () => {
      const otp = ($('savedOtp') as HTMLInputElement).value.trim();
      const { data: ok, error } = await till.POST('/v1/checkout-sessions/{id}/saved-cards/confirm-otp', {
        params: { path: { id: sessionId } },
        body: { verificationId, otp },
      });
      if (error || !ok) return fail(error as ApiError);
      await confirm(ok.paymentMethodId);
    });
  });
}

function wireClickToPay(till: Till, confirm: Confirm): void {
  const lookup = document.getElementById('src-lookup-form') as HTMLFormElement | null;
  if (!lookup) return;
  let srcCardId = '';
  lookup.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(lookup.querySelector('button'), async () => {
      const email = ($('srcEmail') as HTMLInputElement).value.trim();
      const { data: found, error } = await till.POST('/v1/checkout-sessions/{id}/src/lookup', { params: { path: { id: sessionId } }, body: { email } });
      if (error || !found) return fail(error as ApiError);
      if (!found.enrolled || found.cards.length === 0) return show(statusBox, 'No Click to Pay cards for this email. Pay with a card instead.');
      $('src-card-list').replaceChildren(
        ...found.cards.map((c) => {
          const li = document.createElement('li');
          const button = document.createElement('button');
          button.type = 'button';
          button.textContent = `${c.brand} •••• ${c.last4}`;
          button.addEventListener('click', () => {
            srcCardId = c.srcCardId;
            ($('src-auth-form') as HTMLFormElement).hidden = false;
            $('srcCode').focus();
          });
          li.append(button);
          return li;
        }),
      );
    });
  });
  const auth = $('src-auth-form') as HTMLFormElement;
  auth.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(auth.querySelector('button'), async () => {
      const validationData = ($('srcCode') as HTMLInputElement).value.trim();
      const { data: token, error } = await till.POST('/v1/checkout-sessions/{id}/src/authenticate', {
        params: { path: { id: sessionId } },
        body: { srcCardId, validationData },
      });
      if (error || !token) return fail(error as ApiError);
      await confirm(token.paymentMethodId);
    });
  });
}

function wireWalletQr(till: Till, confirm: Confirm, done: () => void) {
  let timer: number | undefined;
  const image = document.getElementById('qr-image') as HTMLImageElement | null;
  const stop = () => window.clearInterval(timer);
  async function poll(expiresAt: number): Promise<void> {
    if (Date.now() >= expiresAt) {
      stop();
      if (image) image.hidden = true;
      $('qr-withdraw').hidden = true;
      ($('qr-show') as HTMLButtonElement).hidden = false;
      return show(statusBox, 'The QR code has expired. Show a new one to pay.');
    }
    const { data: s } = await till.GET('/v1/checkout-sessions/{id}/status', { params: { path: { id: sessionId } } });
    if (s?.status === 'completed') {
      stop();
      done();
    }
  }
  async function showQr(url: string, expiresAt: string): Promise<void> {
    if (!image) return;
    image.src = url;
    image.hidden = false;
    $('qr-show').hidden = true;
    $('qr-withdraw').hidden = false;
    const until = Date.parse(expiresAt);
    $('qr-expiry').textContent = `Scan it with your wallet app before ${new Date(until).toLocaleTimeString()}.`;
    show(statusBox, 'Waiting for your payment…');
    stop();
    timer = window.setInterval(() => void poll(until), 1500);
  }
  document.getElementById('qr-show')?.addEventListener('click', (e) => void busy(e.currentTarget as HTMLButtonElement, () => confirm('wallet:qr')));
  document.getElementById('qr-withdraw')?.addEventListener(
    'click',
    (e) =>
      void busy(e.currentTarget as HTMLButtonElement, async () => {
        const { data: w, error } = await till.POST('/v1/checkout-sessions/{id}/withdraw-qr', { params: { path: { id: sessionId } } });
        if (error || !w) return fail(error as ApiError);
        if (w.outcome === 'already_paid') return done();
        if (w.outcome === 'withdrawn') {
          stop();
          image!.hidden = true;
          $('qr-withdraw').hidden = true;
          $('qr-show').hidden = false;
        }
        show(statusBox, w.outcome === 'withdrawn' ? `QR code withdrawn. ${w.message}` : w.message);
      }),
  );
  return { showQr };
}

start();
