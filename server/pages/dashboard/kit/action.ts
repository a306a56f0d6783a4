// Running a section's action: the service call, then POST → 303 → the object's page with a `done`
// code; a refusal of the service (a 4xx other than "not found") shows on the object's page with
// its message and status, so nothing the caller typed is echoed from the address.
import type { Response } from 'express';
import { AppError } from '../../../shared/errors.js';
import { type Flash, redirectDone } from './form.js';

/** Calls `action`; on success redirects to `to` with `done`, on a refusal renders `page` with the message. */
export async function runAction(
  res: Response,
  to: string,
  done: string,
  action: () => Promise<unknown>,
  page: (flash: Flash, status: number) => Promise<void>,
): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500 || err.code === 'resource_not_found') throw err;
    return page({ alert: err.message }, err.status);
  }
  redirectDone(res, to, done);
}
