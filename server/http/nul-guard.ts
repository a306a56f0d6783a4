// PostgreSQL text cannot hold the NUL character (U+0000): a value with one would fail in the
// database, after the request was accepted. So no request value may carry one: the body (keys and
// values, at any depth), the query and the path parameters are checked before validation, and the
// first offender answers 400 `parameter_invalid` naming it, in the operation's error shape.
import type { RequestHandler } from 'express';
import { AppError } from '../shared/errors.js';

/** The dotted path of the first string (value or key) holding a NUL, or undefined. */
export function firstNul(value: unknown, path = ''): string | undefined {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstNul(value[i], at(String(i)));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key.includes('\u0000')) return at(key.replaceAll('\u0000', '\\u0000'));
      const found = firstNul(inner, at(key));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

const refuse = (param: string) =>
  new AppError('parameter_invalid', { param, message: `${param} contains a NUL character (\\u0000), which no text field can hold. Remove it.` });

/** Refuses a request whose body, query or path parameters hold a NUL character. */
export const refuseNulCharacters: RequestHandler = (req, _res, next) => {
  for (const source of [req.till.params ?? {}, req.query, req.body]) {
    const param = firstNul(source);
    if (param !== undefined) return next(refuse(param === '' ? 'body' : param));
  }
  next();
};
