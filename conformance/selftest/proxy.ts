// The breaking proxy: sits between the conformance suite and a real deployment and breaks the
// contract in exactly one way (ways.ts), so the self-test can require the suite to notice. Every
// other byte passes through: event streams and WebSocket upgrades (the hub) are piped untouched,
// and an answer the way leaves alone is forwarded as it came.
//
//   npx tsx conformance/selftest/proxy.ts --upstream http://127.0.0.1:4000 --way list-order [--port 4100]
import http, { type IncomingHttpHeaders } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { everyObject, type Exchange, type Way, WAYS } from './ways.js';

export interface BreakingProxy {
  url: string;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface Forwarded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const upstreamOf = (upstream: string) => new URL(upstream);

/** Sends the request upstream; answers the whole answer, or pipes it to `pipeTo` when it is an event stream. */
function forward(upstream: URL, req: Forwarded, pipeTo?: http.ServerResponse): Promise<Answer | undefined> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: upstream.host, 'accept-encoding': 'identity', 'content-length': String(req.body.length) };
    delete headers['transfer-encoding'];
    // A connection per request: a kept-alive socket the server is closing at that moment would fail the request (ECONNRESET).
    const target = { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent: false as const };
    const out = http.request(target, (res) => {
      if (pipeTo && (res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        pipeTo.writeHead(res.statusCode ?? 502, res.headers);
        res.pipe(pipeTo);
        pipeTo.on('close', () => res.destroy());
        resolve(undefined);
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(req.body);
  });
}

const isJson = (headers: IncomingHttpHeaders) => /json/.test(String(headers['content-type'] ?? ''));

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The secret key a request carries (Bearer or x-api-key), if any. */
function secretKeyOf(headers: IncomingHttpHeaders): { key: string; header: 'authorization' | 'x-api-key' } | undefined {
  const bearer = /^Bearer (sk_\S+)$/.exec(String(headers.authorization ?? ''))?.[1];
  if (bearer) return { key: bearer, header: 'authorization' };
  const apiKey = String(headers['x-api-key'] ?? '');
  return apiKey.startsWith('sk_') ? { key: apiKey, header: 'x-api-key' } : undefined;
}

const modeOf = (key: string) => key.slice(0, key.indexOf('_', 3));

/** The secret keys an answer hands out (a test merchant made by the suite), remembered for `cross-merchant`. */
function learnKeys(json: unknown, keys: Set<string>): void {
  everyObject(json, (o) => {
    for (const field of ['secretKey', 'secret']) if (typeof o[field] === 'string' && /^sk_(test|live)_/.test(o[field])) keys.add(o[field]);
    return false;
  });
}

/** `cross-merchant`: a 404 read is asked again with every other merchant's key of the same mode; the first 2xx is answered. */
async function otherMerchantsAnswer(upstream: URL, req: Forwarded, answer: Answer, keys: Set<string>): Promise<Answer> {
  const mine = secretKeyOf(req.headers);
  if (answer.status !== 404 || req.method !== 'GET' || !mine) return answer;
  for (const key of keys) {
    if (key === mine.key || modeOf(key) !== modeOf(mine.key)) continue;
    const headers = { ...req.headers, [mine.header]: mine.header === 'authorization' ? `Bearer ${key}` : key };
    const theirs = await forward(upstream, { ...req, headers });
    if (theirs && theirs.status >= 200 && theirs.status < 300) return theirs;
  }
  return answer;
}

/** `replay-body`: an answer marked replayed is replaced by the request run again without its key (still marked replayed). */
async function replayRunAgain(upstream: URL, req: Forwarded, answer: Answer): Promise<Answer> {
  if (answer.headers['idempotent-replayed'] !== 'true') return answer;
  const headers = { ...req.headers };
  delete headers['idempotency-key'];
  const again = await forward(upstream, { ...req, headers });
  return again ? { ...again, headers: { ...again.headers, 'idempotent-replayed': 'true' } } : answer;
}

/** The request with the way's change to its JSON body, if any. */
function brokenRequest(way: Way, req: Forwarded): Forwarded {
  if (!way.request || !isJson(req.headers) || req.body.length === 0) return req;
  const json = parse(req.body);
  if (json === undefined || !way.request(req.method, req.url, json)) return req;
  return { ...req, body: Buffer.from(JSON.stringify(json)) };
}

/** The answer with the way's change, if any. */
function brokenAnswer(way: Way, req: Forwarded, answer: Answer): Answer {
  if (!way.answer) return answer;
  const json = isJson(answer.headers) && answer.body.length > 0 ? parse(answer.body) : undefined;
  const exchange: Exchange = { method: req.method, url: req.url, status: answer.status, headers: { ...answer.headers }, json };
  if (!way.answer(exchange)) return answer;
  const body = json === undefined ? answer.body : Buffer.from(JSON.stringify(exchange.json));
  return { status: exchange.status, headers: exchange.headers, body };
}

/** Handles one request through the way. */
async function handle(upstream: URL, name: string, keys: Set<string>, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const way = WAYS[name]!;
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const sent: Forwarded = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) };
  const mine = secretKeyOf(sent.headers);
  if (mine) keys.add(mine.key);
  const request = brokenRequest(way, sent);
  let answer = await forward(upstream, request, res);
  if (!answer) return;
  if (isJson(answer.headers)) learnKeys(parse(answer.body), keys);
  if (name === 'replay-body') answer = await replayRunAgain(upstream, request, answer);
  if (name === 'cross-merchant') answer = await otherMerchantsAnswer(upstream, request, answer, keys);
  const out = brokenAnswer(way, request, answer);
  const headers: http.OutgoingHttpHeaders = { ...out.headers, 'content-length': String(out.body.length) };
  for (const hop of ['transfer-encoding', 'connection', 'keep-alive']) delete headers[hop];
  res.writeHead(out.status, headers);
  res.end(out.body);
}

/** A WebSocket upgrade (the hub) goes upstream untouched. */
function pipeUpgrade(upstream: URL, req: http.IncomingMessage, socket: net.Socket, head: Buffer): void {
  const up = net.connect(Number(upstream.port), upstream.hostname, () => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i]!.toLowerCase() === 'host' ? upstream.host : req.rawHeaders[i + 1]}`);
    up.write(`${lines.join('\r\n')}\r\n\r\n`);
    up.write(head);
    socket.pipe(up).pipe(socket);
  });
  const close = () => (up.destroy(), socket.destroy());
  up.on('error', close);
  socket.on('error', close);
}

/** Starts the proxy for `way` in front of `upstream`; `keys` are merchants' secret keys it may use for `cross-merchant` (it also learns those it sees). */
export async function startBreakingProxy(options: { upstream: string; way: string; keys?: string[]; port?: number }): Promise<BreakingProxy> {
  if (!WAYS[options.way]) throw new Error(`unknown way ${options.way}; the ways: ${Object.keys(WAYS).join(', ')}`);
  const upstream = upstreamOf(options.upstream);
  const keys = new Set(options.keys ?? []);
  const server = http.createServer((req, res) => {
    handle(upstream, options.way, keys, req, res).catch((err: unknown) => {
      console.error(`breaking proxy: ${req.method} ${req.url}: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`breaking proxy: ${(err as Error).message}`);
    });
  });
  server.on('upgrade', (req, socket, head) => pipeUpgrade(upstream, req, socket as net.Socket, head));
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { upstream: { type: 'string' }, way: { type: 'string' }, port: { type: 'string' } } });
  if (!values.upstream || !values.way) {
    console.error(
      `usage: proxy.ts --upstream URL --way NAME [--port N]\nways:\n${Object.entries(WAYS)
        .map(([k, w]) => `  ${k}: ${w.bug}`)
        .join('\n')}`,
    );
    process.exit(2);
  }
  const proxy = await startBreakingProxy({ upstream: values.upstream, way: values.way, port: values.port ? Number(values.port) : undefined });
  console.log(`breaking proxy (${values.way}) on ${proxy.url} → ${values.upstream}`);
}
