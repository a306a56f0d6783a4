import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { operations as CheckoutOperations } from '../../generated/checkout.js';
import type { operations as CommerceOperations } from '../../generated/commerce.js';
import type { Clock } from '../shared/clock.js';
import type { Config } from '../config.js';
import type { TillDatabase } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { AuthContext } from '../http/context.js';

/** What every handler may use. */
export interface AppDeps {
  database: TillDatabase;
  clock: Clock;
  config: Config;
  logger: Logger;
}

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type ResponsesOf<O> = O extends { responses: infer R } ? R : never;
type SuccessCode<O> = Extract<keyof ResponsesOf<O>, 200 | 201 | 202 | 204>;
type ParamsOf<O, K extends 'path' | 'query'> = O extends { parameters: { [P in K]?: infer X } } ? (X extends undefined ? Record<string, never> : NonNullable<X>) : Record<string, never>;
type BodyOf<O> = O extends { requestBody?: infer B } ? (B extends { content: { 'application/json': infer J } } ? J : undefined) : undefined;

/** A handler's answer: one of the operation's documented success statuses with its body type. */
export type HandlerResult<O> = {
  [S in SuccessCode<O>]: S extends 204 ? { status: S; headers?: Record<string, string> } : { status: S; body: JsonOf<ResponsesOf<O>[S]>; headers?: Record<string, string> };
}[SuccessCode<O>];

/** A handler's input: validated (and type-coerced) parameters and body, and the caller. */
export interface HandlerInput<O> {
  path: ParamsOf<O, 'path'>;
  query: ParamsOf<O, 'query'>;
  body: BodyOf<O>;
  auth: AuthContext;
  db: Kysely<Database>;
  deps: AppDeps;
  log: Logger;
  requestId: string;
}

export type Handler<O> = (input: HandlerInput<O>) => Promise<HandlerResult<O>>;

/** Handlers of the Checkout & Billing interface, keyed by operationId and typed from the contract. */
export type CheckoutHandlers = { [K in keyof CheckoutOperations]?: Handler<CheckoutOperations[K]> };
/** Handlers of the Commerce interface. */
export type CommerceHandlers = { [K in keyof CommerceOperations]?: Handler<CommerceOperations[K]> };
export type { CheckoutOperations, CommerceOperations };
