import type { RequestHandler, Response } from 'express';
import { keyDisplayPrefix, parseKeyPrefix } from '../domain/merchants/keys.js';
import type { RequestLogWriter } from '../domain/request-logs/request-log.writer.js';
import type { Clock } from '../shared/clock.js';
import { loggedPath } from './request-context.js';

/**
 * Records every API request of a known merchant in its request log: placed right after
 * authentication, so a request refused there (no key, a wrong key, a key without the scope) has no
 * merchant and is not recorded. It keeps the answer's text as it is sent (an idempotent replay
 * too) and hands the finished request to the writer, which redacts and writes it later.
 */
export function recordRequests(writer: RequestLogWriter, clock: Clock): RequestHandler {
  return (req, res, next) => {
    const auth = req.till.auth;
    if (!auth || auth.merchantId === null) return next();
    const tenant = { merchantId: auth.merchantId, livemode: auth.livemode };
    const receivedAt = clock.now();
    const started = req.till.started ?? process.hrtime.bigint();
    const answer = keepAnswerText(res);
    res.once('finish', () => {
      writer.record({
        tenant,
        method: req.method,
        path: loggedPath(req.originalUrl),
        operationId: req.till.route!.operationId,
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        requestId: req.till.requestId,
        idempotencyKey: req.get('idempotency-key') ?? null,
        keyPrefix: keyPrefixOf(req.get('x-api-key') ?? bearer(req.get('authorization'))),
        clientAddress: req.ip ?? null,
        requestBody: req.body as unknown,
        responseText: isJson(res) ? answer.text : undefined,
        receivedAt,
      });
    });
    next();
  };
}

/** Wraps `res.send` to keep the last text it is given (`res.json` sends its text through it). */
function keepAnswerText(res: Response): { text: string | undefined } {
  const kept: { text: string | undefined } = { text: undefined };
  const send = res.send.bind(res);
  res.send = ((body?: unknown) => {
    if (typeof body === 'string') kept.text = body;
    else if (Buffer.isBuffer(body) && body.length < 1024 * 1024) kept.text = body.toString('utf8');
    return send(body as any);
  }) as Response['send'];
  return kept;
}

const isJson = (res: Response): boolean => /json/i.test(String(res.getHeader('content-type') ?? ''));

function bearer(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/** `sk_test_AbCd` of a well-formed key; never the whole key. */
function keyPrefixOf(key: string | undefined): string | null {
  return key !== undefined && parseKeyPrefix(key) ? keyDisplayPrefix(key) : null;
}
