import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { operations as CheckoutOperations } from '../../generated/checkout.js';
import type { operations as CommerceOperations } from '../../generated/commerce.js';
import type { Clock } from '../shared/clock.js';
import type { Config } from '../config.js';
import type { TillDatabase } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { AuthContext } from '../http/context.js';
import type { SandboxOffsets } from '../domain/clocks/offset-cache.js';
import type { Tenant } from '../shared/tenant.js';
import type { DueWork } from '../domain/clocks/due-work-kind.js';

/** What the server is started with. */
export interface ServerDeps {
  database: TillDatabase;
  clock: Clock;
  config: Config;
  logger: Logger;
}

/** What every handler may use: the server's parts, and every kind of work that falls due, in order (the sandbox clock runs it). */
export interface AppDeps extends ServerDeps {
  dueWork: DueWork[];
  /** Test-clock offsets remembered by this app (see SandboxOffsets). */
  sandboxOffsets: SandboxOffsets;
}

/** A response's body type: its JSON schema's, or a Buffer for a file (`application/pdf`, `image/png`), sent as it is. */
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : T extends { content: Record<string, unknown> } ? Buffer : never;
type ResponsesOf<O> = O extends { responses: infer R } ? R : never;
type SuccessCode<O> = Extract<keyof ResponsesOf<O>, 200 | 201 | 202 | 204>;
type ParamsOf<O, K extends 'path' | 'query'> = O extends { parameters: { [P in K]?: infer X } }
  ? X extends undefined
    ? Record<string, never>
    : NonNullable<X>
  : Record<string, never>;
type BodyOf<O> = O extends { requestBody?: infer B } ? (B extends { content: { 'application/json': infer J } } ? J : undefined) : undefined;

/** Serves a `text/event-stream` answer itself, until the client leaves (the pipeline has run: auth, rate limit, validation). */
export type StreamWriter = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A success answer: a body of the documented type, or a writer for a `text/event-stream`. */
type SuccessAnswer<R, S> = R extends { content: { 'text/event-stream': unknown } }
  ? { status: S; stream: StreamWriter }
  : { status: S; body: JsonOf<R>; headers?: Record<string, string> };

/** A handler's answer: one of the operation's documented success statuses with its body type. */
export type HandlerResult<O> = {
  [S in SuccessCode<O>]: S extends 204 ? { status: S; headers?: Record<string, string> } : SuccessAnswer<ResponsesOf<O>[S], S>;
}[SuccessCode<O>];

/** A handler's input: validated (and type-coerced) parameters and body, and the caller. */
export interface HandlerInput<O> {
  path: ParamsOf<O, 'path'>;
  query: ParamsOf<O, 'query'>;
  body: BodyOf<O>;
  /** The request's headers, by lower-case name (the documented header parameters are validated). */
  headers: IncomingHttpHeaders;
  auth: AuthContext;
  /** The merchant and mode the call acts for (every keyed operation has one; reading it on a public operation throws). */
  tenant: Tenant;
  db: Kysely<Database>;
  /** Its clock is the tenant's: the merchant's sandbox clock in test mode. */
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
