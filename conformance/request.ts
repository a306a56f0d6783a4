// How the suite sends a request: headers and body from the spec, waits and retries on 429, reads the
// answer (an event stream up to its first message), notes an operation that is not implemented (501),
// and validates the answer against the contract.
import type { Api, HttpResult, RequestSpec } from './types.js';
import type { ContractValidator } from './validator.js';

/** How long one request may take: a deployment that does not answer fails the check, it does not hold the run. */
export const REQUEST_TIMEOUT_MS = 60_000;
/** How long an advance of the test clock may take: it runs every item that falls due on the way. */
export const CLOCK_ADVANCE_TIMEOUT_MS = 5 * 60_000;

/** Where requests go, what checks their answers, and the operations seen answering 501. */
export interface RequestTarget {
  baseUrl: string;
  commerceBaseUrl: string;
  validator: ContractValidator;
  seen501: Set<string>;
}

/** The headers and body of a request spec. */
function requestInit(spec: RequestSpec): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { accept: 'application/json, */*', ...spec.headers };
  if (spec.key) headers.authorization = `Bearer ${spec.key}`;
  if (spec.apiKey) headers['x-api-key'] = spec.apiKey;
  if (spec.clientSecret) headers['x-client-secret'] = spec.clientSecret;
  let body: string | undefined;
  if (spec.rawBody !== undefined) body = spec.rawBody;
  else if (spec.body !== undefined) body = JSON.stringify(spec.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return { headers, body };
}

/**
 * As the document tells clients: on 429 wait Retry-After, then retry with exponential backoff.
 * Each attempt has `timeoutMs`: generous for a clock advance, which runs everything due on the
 * way (every renewal of the run's subscriptions); giving it up early leaves the clock held (409 on the next).
 */
async function fetchRetrying(
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
): Promise<Response> {
  let response = await fetchOnce(url, init, timeoutMs);
  for (let attempt = 0; response.status === 429 && attempt < 4; attempt++) {
    const wait = Math.max(1, Number(response.headers.get('retry-after')) || 1) * 1000 * 2 ** attempt;
    await response.arrayBuffer();
    await new Promise((r) => setTimeout(r, Math.min(wait, 15_000)));
    response = await fetchOnce(url, init, timeoutMs);
  }
  return response;
}

/**
 * One request, sent again (up to three times) when the connection was reset before any answer: a kept-alive
 * connection the server closed for idling just as the request went out on it (a server's idle
 * timeout, Node's 5 s, racing the client's; likely when many requests run at once on a loaded
 * machine). The server never read that request, so sending it again is safe.
 */
async function fetchOnce(
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const code = ((err as Error).cause as { code?: string } | undefined)?.code;
      if ((code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') || attempt === STALE_CONNECTION_TRIES) throw err;
    }
  }
}

/** After many requests at once, the next try can meet another closed idle connection of the pool. */
const STALE_CONNECTION_TRIES = 4;

/** An event stream never ends by itself: its start, up to its first blank line, then it is closed. */
async function firstMessage(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  return text;
}

/** The answer's text (binary as latin1) and, when it is text, its JSON. */
async function readAnswer(response: Response): Promise<{ text: string; json: unknown }> {
  const isText = /json|text|xml/.test(response.headers.get('content-type') ?? '') || !response.headers.get('content-type');
  const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const text = isStream ? await firstMessage(response) : isText ? await response.text() : Buffer.from(await response.arrayBuffer()).toString('latin1');
  let json: unknown;
  try {
    json = text && isText ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { text, json };
}

/**
 * A 501 means "not implemented", except for an operation whose only documented answer is 501.
 * A 501 for part of an operation (say, one kind of session) names no operation: only a 501
 * that names the operation itself means the operation is not implemented.
 */
function note501(target: RequestTarget, operationId: string, status: number, text: string): void {
  const onlyAnswers501 = Object.keys(target.validator.operation(operationId).operation.responses ?? {}).join() === '501';
  const namesOperation = status === 501 && text.includes(`(${operationId})`);
  if (status === 501 && !onlyAnswers501 && (namesOperation || !text.includes('not implemented'))) target.seen501.add(operationId);
}

/** Sends a request and validates the answer against the contract: its problems go to `problems`, or are thrown without it. */
export async function sendRequest(target: RequestTarget, api: Api, operationId: string, spec: RequestSpec, problems?: string[]): Promise<HttpResult> {
  const { headers, body } = requestInit(spec);
  const query = spec.query ? `?${new URLSearchParams(Object.entries(spec.query).map(([k, v]) => [k, String(v)])).toString()}` : '';
  const url = `${api === 'commerce' ? target.commerceBaseUrl : target.baseUrl}${spec.path}${query}`;
  const timeoutMs = operationId === 'advanceTestClock' ? CLOCK_ADVANCE_TIMEOUT_MS : REQUEST_TIMEOUT_MS;
  const init = { method: spec.method, headers, body };
  const response = spec.no429Retry ? await fetchOnce(url, init, timeoutMs) : await fetchRetrying(url, init, timeoutMs);
  const { text, json } = await readAnswer(response);
  note501(target, operationId, response.status, text);
  const found = target.validator.validateResponse(operationId, response.status, response.headers, text);
  if (found.length > 0) {
    const described = found.map((p) => `${spec.method} ${spec.path} → ${response.status}: ${p}`);
    if (problems) problems.push(...described);
    else throw new Error(`The answer breaks the contract:\n  ${described.join('\n  ')}`);
  }
  return { status: response.status, headers: response.headers, text, json };
}
