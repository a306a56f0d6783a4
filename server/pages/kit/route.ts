// Small pieces every hosted page's routes share: the public UUID in a page's address, the fields
// of a posted form, and an async handler whose failure goes on to the page's error handler.
import type { NextFunction, Request, Response } from 'express';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `:identifier` of the address, lower case; undefined when it is not a UUID (the page answers 404). */
export function identifierParam(req: Request): string | undefined {
  const id = String(req.params.identifier);
  return UUID.test(id) ? id.toLowerCase() : undefined;
}

/** The fields of a posted form (`express.urlencoded`), none when nothing was posted. (Express types the body `any`.) */
export function formFields(req: { body?: unknown }): Record<string, unknown> {
  const body = req.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

/** An async page handler for Express: a rejection reaches `next`. */
export const pageHandler =
  (handler: (req: Request, res: Response) => Promise<void>) =>
  (req: Request, res: Response, next: NextFunction): void => {
    handler(req, res).catch(next);
  };
