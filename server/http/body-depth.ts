// A JSON body may nest arrays and objects without limit, and every later step that walks it (the
// NUL guard, the validator, the idempotency fingerprint) would run out of stack on a deep one and
// answer 500. No operation's body is more than a few levels deep, so a body nested deeper than
// MAX_BODY_DEPTH answers 400 `parameter_invalid` before anything walks it.
import type { RequestHandler } from 'express';
import { AppError } from '../shared/errors.js';

export const MAX_BODY_DEPTH = 32;

/** Whether `value` nests arrays or objects more than `max` levels deep (measured without recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const inner of Object.values(node)) if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
  }
  return false;
}

/** Refuses a body nested deeper than MAX_BODY_DEPTH levels. */
export const refuseDeepNesting: RequestHandler = (req, _res, next) => {
  if (nestedDeeperThan(req.body, MAX_BODY_DEPTH)) {
    return next(
      new AppError('parameter_invalid', { param: 'body', message: `The request body is nested more than ${MAX_BODY_DEPTH} levels deep. Send a flatter body.` }),
    );
  }
  next();
};
