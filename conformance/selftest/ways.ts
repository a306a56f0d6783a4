// The ways the breaking proxy breaks the contract, one at a time, each as a deployment with that
// one bug would answer. A way changes what the suite sees and nothing else: the request as sent (or
// its headers), the answer's status, headers or JSON body. The proxy (proxy.ts) applies the chosen one.

/** What a way sees of one exchange, and may change. */
export interface Exchange {
  method: string;
  /** The path and query as the suite sent them. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The answer's JSON, when it is JSON; the way changes it in place. */
  json: unknown;
}

export interface Way {
  /** One line: the bug as a deployment would have it. */
  bug: string;
  /** Where the self-test's quick run looks for the failure: the contract part, or the scenarios with these id prefixes. */
  focus: 'contract' | string[];
  /** Changes the answer in place; answers whether it changed anything (an unchanged answer is forwarded byte for byte). */
  answer?(exchange: Exchange): boolean;
  /** Changes the request's JSON body in place (the server sees the change); answers whether it did. */
  request?(method: string, url: string, json: unknown): boolean;
}

/** Calls `visit` on every object in `value` (depth first); answers whether any call changed something. */
export function everyObject(value: unknown, visit: (object: Record<string, unknown>) => boolean): boolean {
  let changed = false;
  if (Array.isArray(value)) for (const item of value) changed = everyObject(item, visit) || changed;
  else if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) changed = everyObject(object[key], visit) || changed;
    changed = visit(object) || changed;
  }
  return changed;
}

/** Drops `field` from every object of every answer. */
const dropField = (field: string) => (exchange: Exchange) =>
  everyObject(exchange.json, (o) => {
    if (!(field in o)) return false;
    delete o[field];
    return true;
  });

/** The minor unit of a currency (0.01 for USD, 1 for JPY, 0.001 for KWD); 0.01 when unknown. */
function minorUnit(currency: unknown): number {
  try {
    const digits = new Intl.NumberFormat('en', { style: 'currency', currency: String(currency) }).resolvedOptions().maximumFractionDigits ?? 2;
    return 10 ** -digits;
  } catch {
    return 0.01;
  }
}

/** One minor unit more: a number by its currency's minor unit, a decimal string by its last digit. */
function plusOneMinorUnit(amount: unknown, currency: unknown): unknown {
  if (typeof amount === 'number') {
    const unit = minorUnit(currency);
    return Math.round((amount + unit) / unit) * unit;
  }
  if (typeof amount === 'string' && /^-?\d+(\.\d+)?$/.test(amount)) {
    const decimals = amount.split('.')[1]?.length ?? 0;
    return (Number(amount) + 10 ** -decimals).toFixed(decimals);
  }
  return amount;
}

/** Flips the case of the last letter of a secret: an involution, so applying it to requests and answers keeps what the suite sees consistent. */
export function flipLastLetter(secret: string): string {
  const i = secret.search(/[A-Za-z][^A-Za-z]*$/);
  if (i < 0) return secret;
  const c = secret[i]!;
  return secret.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + secret.slice(i + 1);
}

/** Every webhook signing secret in a body goes through `flipLastLetter`. */
const flipSecrets = (json: unknown) =>
  everyObject(json, (o) => {
    let changed = false;
    for (const key of ['sandboxSecret', 'liveSecret', 'notificationSecret'])
      if (typeof o[key] === 'string' && o[key] !== '') {
        o[key] = flipLastLetter(o[key]);
        changed = true;
      }
    return changed;
  });

const isDeliveryLog = (method: string, url: string) => method === 'GET' && /^\/(api\/)?v1\/WebhookConfiguration\/[^/]+\/deliveries(\?|$)/.test(url);

/** The ways, by name. `replay-body` and `cross-merchant` also need the proxy's help (it sends requests of its own): see proxy.ts. */
export const WAYS: Record<string, Way> = {
  'drop-required': {
    bug: 'a view forgets one required field: `currency` is missing from every object of every answer',
    focus: 'contract',
    answer: dropField('currency'),
  },
  'wrong-type': {
    bug: 'bigint ids leak as strings: every numeric `id` is answered as a JSON string ("42", not 42)',
    focus: 'contract',
    answer: (exchange) =>
      everyObject(exchange.json, (o) => {
        if (typeof o.id !== 'number') return false;
        o.id = String(o.id);
        return true;
      }),
  },
  'wrong-status': {
    bug: 'creates answer 200 instead of 201',
    focus: 'contract',
    answer: (exchange) => {
      if (exchange.status !== 201) return false;
      exchange.status = 200;
      return true;
    },
  },
  'unknown-enum': {
    bug: "the database's enum spelling leaks: every `status` string is answered in the other case (`OPEN` for `open`, `paid` for `Paid`)",
    focus: 'contract',
    answer: (exchange) =>
      everyObject(exchange.json, (o) => {
        if (typeof o.status !== 'string' || o.status === '') return false;
        const other = o.status === o.status.toLowerCase() ? o.status.toUpperCase() : o.status.toLowerCase();
        if (other === o.status) return false;
        o.status = other;
        return true;
      }),
  },
  'list-order': {
    bug: 'lists are sorted the wrong way round (oldest first): every list page of two or more items is reversed',
    focus: ['checkout.lists.newest-first'],
    answer: (exchange) => {
      if (exchange.method !== 'GET' || exchange.status !== 200) return false;
      return everyObject(exchange.json, (o) => {
        let changed = false;
        for (const key of ['data', 'value', 'items'])
          if (Array.isArray(o[key]) && (o[key] as unknown[]).length > 1 && (o[key] as unknown[]).every((x) => x && typeof x === 'object')) {
            (o[key] as unknown[]).reverse();
            changed = true;
          }
        return changed;
      });
    },
  },
  'replay-body': {
    bug: 'an idempotent replay runs the request again: the answer is marked replayed, but its body is a new one',
    focus: ['platform.idempotency.replay'],
  },
  'no-rate-limit-headers': {
    bug: 'the rate limiter does not set its headers: no X-RateLimit-Limit, -Remaining, -Reset on any answer',
    focus: ['platform.limits.rate-headers-on-every-response'],
    answer: (exchange) => {
      let changed = false;
      for (const name of Object.keys(exchange.headers))
        if (name.toLowerCase().startsWith('x-ratelimit-')) {
          delete exchange.headers[name];
          changed = true;
        }
      return changed;
    },
  },
  'wrong-signature': {
    bug: 'webhooks are signed with another secret than the one the merchant holds (the last letter of every signing secret in the other case)',
    focus: ['webhooks.signature'],
    request: (_method, _url, json) => flipSecrets(json),
    answer: (exchange) => flipSecrets(exchange.json),
  },
  'never-sent': {
    bug: "webhooks are never sent (the outbox's fan-out is dead): events are recorded, but no delivery is made except the synchronous test event",
    focus: ['webhooks.'],
    answer: (exchange) => {
      if (!isDeliveryLog(exchange.method, exchange.url) || exchange.status !== 200) return false;
      const list = (exchange.json as { data?: Array<{ eventType?: string }> } | undefined)?.data;
      if (!Array.isArray(list)) return false;
      const kept = list.filter((d) => d.eventType === 'webhook.test');
      if (kept.length === list.length) return false;
      list.splice(0, list.length, ...kept);
      return true;
    },
  },
  'amount-off-by-one': {
    bug: 'a rounding error: every `amount` is answered one minor unit too high (10.01 for 10.00)',
    focus: ['checkout.plans'],
    answer: (exchange) =>
      everyObject(exchange.json, (o) => {
        if (!('amount' in o)) return false;
        const more = plusOneMinorUnit(o.amount, o.currency);
        if (more === o.amount) return false;
        o.amount = more;
        return true;
      }),
  },
  'cross-merchant': {
    bug: "a repository forgets the merchant: a read that would be 404 answers another merchant's object",
    focus: 'contract',
  },
  'drop-id': {
    bug: 'every answer is broken: `id` is missing from every object (for the fail-fast measure, not one of the self-test ways)',
    focus: 'contract',
    answer: dropField('id'),
  },
};

/** The ways the self-test requires the suite to catch (all but `drop-id`, the fail-fast measure). */
export const SELFTEST_WAYS = Object.keys(WAYS).filter((name) => name !== 'drop-id');
