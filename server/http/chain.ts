import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middlewares run in turn as one, as a router would run them but without its per-layer path
 * matching: the API pipeline is one Express layer. An error (or a throw) skips to `done(err)`.
 */
export function chain(handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let i = 0;
    const next: NextFunction = (err?: unknown) => {
      if (err !== undefined && err !== null && err !== 'route') return done(err);
      const handler = handlers[i++];
      if (!handler) return done();
      try {
        const result = handler(req, res, next) as unknown;
        if (result instanceof Promise) result.catch(done);
      } catch (error) {
        done(error);
      }
    };
    next();
  };
}
