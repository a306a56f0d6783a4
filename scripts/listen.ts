// `npm run listen -- --forward-to http://localhost:4000/webhooks`: streams the merchant's test-mode
// events from a Till server (GET /v1/events/stream) and delivers each to a local URL, signed as
// the webhook pipeline signs (server/domain/webhooks/sender.ts), printing one line per delivery.
// Its flags are in `help` below (`npm run listen -- --help`).
import { newSigningSecret } from '../server/domain/webhooks/configuration.service.js';
import { subscribed, subscriptionProblem } from '../server/domain/webhooks/event-types.js';
import { deliveryHeaders } from '../server/domain/webhooks/sender.js';
import { badCall, parseCommandLine } from './cli.js';

interface Options {
  forwardTo: URL;
  events: string[];
  baseUrl: string;
  apiKey: string;
  secret: string;
}

interface Message {
  id: string;
  event: string;
  data: string;
}

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5_000;
const FORWARD_TIMEOUT_MS = 30_000;

const help = `Usage: npm run listen -- --forward-to URL [--events LIST] [--base-url URL] [--api-key sk_test_...] [--secret whsec_...]

Streams the merchant's test-mode events from a Till server (GET /v1/events/stream) and POSTs each,
signed as Till signs webhooks, to a local URL; one line per delivery. Reconnects by itself and
resumes after the last event it saw. Ctrl-C stops.

  --forward-to URL   where to POST each event (http or https; any host, loopback included); required
  --events LIST      only these: names, family.* or *, comma-separated (default: every event)
  --base-url URL     the Till server (default http://localhost:3000)
  --api-key KEY      the test secret key (default: $TILL_SECRET_KEY)
  --secret SECRET    sign with this secret instead of a new whsec_... one
  --help, -h         this text

Exit 2: a bad call (a missing or unknown flag, a refused key).`;

function fail(message: string): never {
  return badCall('listen', message);
}

function readOptions(argv: string[]): Options {
  const values = parseCommandLine(
    'listen',
    help,
    { 'forward-to': { type: 'string' }, events: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, secret: { type: 'string' } },
    argv,
  );
  if (!values['forward-to']) fail('--forward-to <url> is required, e.g. --forward-to http://localhost:4000/webhooks');
  let forwardTo: URL;
  try {
    forwardTo = new URL(values['forward-to']);
  } catch {
    fail(`--forward-to is not a URL: ${values['forward-to']}`);
  }
  if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:') fail('--forward-to must be an http or https URL');
  const apiKey = values['api-key'] ?? process.env.TILL_SECRET_KEY ?? '';
  if (!apiKey.startsWith('sk_test_')) fail('a test secret key is required: --api-key sk_test_… or TILL_SECRET_KEY (events are streamed in test mode only)');
  const events = (values.events ?? '*')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const item of events) {
    const problem = subscriptionProblem(item);
    if (problem) fail(`--events: ${problem}`);
  }
  const baseUrl = (values['base-url'] ?? 'http://localhost:3000').replace(/\/+$/, '');
  return { forwardTo, events, baseUrl, apiKey, secret: values.secret ?? newSigningSecret() };
}

/** POSTs one event's envelope, signed; prints `type id → status (ms)`. */
async function forward(options: Options, message: Message): Promise<void> {
  const started = performance.now();
  const headers = deliveryHeaders({
    secret: options.secret,
    eventId: message.id,
    eventType: message.event,
    body: message.data,
    timestamp: Math.floor(Date.now() / 1000),
  });
  const took = () => `${Math.round(performance.now() - started)} ms`;
  try {
    const res = await fetch(options.forwardTo, {
      method: 'POST',
      headers,
      body: message.data,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    console.log(`${message.event} ${message.id} → ${res.status} (${took()})`);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    console.log(`${message.event} ${message.id} → failed: ${cause} (${took()})`);
  }
}

/** Reads SSE messages from a response body, calling `onMessage` for each, in order. */
async function readMessages(body: ReadableStream<Uint8Array>, onMessage: (m: Message) => Promise<void>): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message: Message = { id: '', event: 'message', data: '' };
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') message.id = value;
        else if (field === 'event') message.event = value;
        else if (field === 'data') message.data += message.data ? `\n${value}` : value;
      }
      if (message.data) await onMessage(message);
    }
  }
}

/** One connection: answers what ended it ('lost' to reconnect). Updates `state.lastEventId` as events arrive. */
async function connectOnce(options: Options, state: { lastEventId: string | undefined; connected: boolean }): Promise<'lost'> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}`, accept: 'text/event-stream' };
  if (state.lastEventId) headers['last-event-id'] = state.lastEventId;
  const res = await fetch(`${options.baseUrl}/v1/events/stream`, { headers });
  if (res.status === 404 && state.lastEventId) {
    console.log(`The server does not know ${state.lastEventId}; listening for new events only.`);
    state.lastEventId = undefined;
    return 'lost';
  }
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    let message = text;
    try {
      message = JSON.parse(text).error?.message ?? text;
    } catch {
      // Not JSON: the text is the message.
    }
    if (res.status >= 400 && res.status < 500 && res.status !== 429) fail(`the server refused the stream (${res.status}): ${message}`);
    throw new Error(`the server answered ${res.status}`);
  }
  if (!state.connected) console.log(`Ready. Forwarding test-mode events (${options.events.join(', ')}) from ${options.baseUrl} to ${options.forwardTo.href}`);
  else console.log('Reconnected.');
  state.connected = true;
  await readMessages(res.body, async (m) => {
    state.lastEventId = m.id || state.lastEventId;
    if (subscribed(options.events, m.event)) await forward(options, m);
  });
  return 'lost';
}

async function main() {
  const options = readOptions(process.argv.slice(2));
  console.log(`Signing secret: ${options.secret}`);
  console.log('Verify deliveries with it, e.g. verifyWebhook(rawBody, req.headers, secret) from @till/sdk/webhooks. Ctrl-C stops.');
  const state = { lastEventId: undefined as string | undefined, connected: false };
  let delay = RETRY_FIRST_MS;
  for (;;) {
    try {
      await connectOnce(options, state);
      delay = RETRY_FIRST_MS;
      console.log(`The stream ended; reconnecting${state.lastEventId ? ` after ${state.lastEventId}` : ''}…`);
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      console.log(`Cannot reach ${options.baseUrl} (${cause}); retrying in ${delay} ms…`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  }
}

process.once('SIGINT', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));
main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
