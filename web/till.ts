// /js/till.js: the embedded form's loader, for a merchant's own page. It mounts Till's payment
// form in an iframe (served by Till, so card numbers never touch the merchant's page) and reports
// the outcome through callbacks.
//
//   <div id="pay"></div>
//   <script src="https://till.example.com/js/till.js"></script>
//   <script>
//     Till({ publishableKey: 'pk_test_...' }).mount('#pay', {
//       clientSecret: '<the session's clientSecret, from your server>',
//       onSuccess: (e) => location.assign('/thanks'),
//       onDecline: (e) => console.log(e.message),
//     });
//   </script>

interface TillEvent {
  source: 'till';
  type: 'ready' | 'success' | 'declined' | 'three_d_secure' | 'error';
  sessionId: string;
  message?: string;
  code?: string;
  height?: number;
}

interface MountOptions {
  clientSecret: string;
  onReady?: (event: TillEvent) => void;
  onSuccess?: (event: TillEvent) => void;
  onDecline?: (event: TillEvent) => void;
  /** The payer is sent to the card issuer's 3-D Secure page, inside the form. */
  onThreeDSecure?: (event: TillEvent) => void;
  onError?: (event: TillEvent) => void;
}

const script = document.currentScript as HTMLScriptElement | null;
const tillOrigin = new URL(script?.src ?? location.href).origin;

function mount(publishableKey: string, target: string | HTMLElement, options: MountOptions) {
  const host = typeof target === 'string' ? document.querySelector<HTMLElement>(target) : target;
  if (!host) throw new Error(`Till: no element matches ${String(target)}.`);
  const match = /^(cs_(?:test|live)_[A-Za-z0-9]+)_secret_[A-Za-z0-9]+$/.exec(options.clientSecret ?? '');
  if (!match) throw new Error('Till: clientSecret must be the clientSecret of an embedded checkout session.');
  const sessionId = match[1]!;
  const frame = document.createElement('iframe');
  frame.title = 'Secure payment form';
  frame.allow = 'payment';
  frame.style.cssText = 'width:100%;min-height:560px;border:0;display:block';
  const fragment = new URLSearchParams({ cs: options.clientSecret, pk: publishableKey });
  frame.src = `${tillOrigin}/pay/${encodeURIComponent(sessionId)}?embed=1#${fragment}`;
  const handlers: Record<TillEvent['type'], ((e: TillEvent) => void) | undefined> = {
    ready: options.onReady,
    success: options.onSuccess,
    declined: options.onDecline,
    three_d_secure: options.onThreeDSecure,
    error: options.onError,
  };
  const listener = (message: MessageEvent) => {
    const event = message.data as TillEvent;
    if (message.origin !== tillOrigin || message.source !== frame.contentWindow || event?.source !== 'till' || event.sessionId !== sessionId) return;
    if (event.type === 'ready' && event.height) frame.style.height = `${Math.max(event.height, 320)}px`;
    handlers[event.type]?.(event);
  };
  window.addEventListener('message', listener);
  host.replaceChildren(frame);
  return {
    unmount() {
      window.removeEventListener('message', listener);
      frame.remove();
    },
  };
}

function Till(config: { publishableKey: string }) {
  if (!/^pk_(test|live)_[A-Za-z0-9]+$/.test(config?.publishableKey ?? '')) {
    throw new Error('Till: publishableKey must be your publishable key (pk_test_... or pk_live_...). Never put a secret key in a web page.');
  }
  return { mount: (target: string | HTMLElement, options: MountOptions) => mount(config.publishableKey, target, options) };
}

(window as unknown as { Till: typeof Till }).Till = Till;
