// Reading a bundled OpenAPI document: local `$ref`s and JSON pointers. Used by the route table,
// the conformance suite's validator and the tests, so that all read the contract the same way.

/** A reference to another node of the same document. */
export type Reference = { $ref: string };

/** A schema, as far as the server reads one; anything else it holds is there, unread. */
export type SchemaObject = { properties?: Record<string, unknown>; [keyword: string]: unknown };

export type MediaTypeObject = { schema?: SchemaObject | Reference; [field: string]: unknown };

export type ResponseObject = { content?: Record<string, MediaTypeObject>; [field: string]: unknown };

/** Each name is a security scheme; the value, its scopes. */
export type SecurityRequirement = Record<string, string[]>;

/** One operation of a path item (Till's extensions included). */
export type OperationObject = {
  operationId: string;
  tags?: string[];
  security?: SecurityRequirement[];
  'x-scopes'?: string[];
  /** A public look-up by a secret code: also limited per client address (server/http/rate-limit.ts). */
  'x-public-lookup'?: boolean;
  parameters?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, ResponseObject | Reference>;
  [field: string]: unknown;
};

export type PathItemObject = {
  $ref?: string;
  parameters?: unknown[];
  get?: OperationObject;
  put?: OperationObject;
  post?: OperationObject;
  delete?: OperationObject;
  patch?: OperationObject;
  [field: string]: unknown;
};

/** A bundled contract (`generated/*.openapi.json`), as far as the server reads it. */
export type OpenApiDocument = {
  paths?: Record<string, PathItemObject>;
  security?: SecurityRequirement[];
  /** Components by section (`schemas`, `parameters`, ...) and name. */
  components?: Record<string, Record<string, unknown> | undefined>;
  [field: string]: unknown;
};

/** Escapes one JSON-pointer segment (`/v1/plans` → `~1v1~1plans`). */
export const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const isReference = (node: unknown): node is Reference =>
  typeof node === 'object' && node !== null && typeof (node as { $ref?: unknown }).$ref === 'string';

/** `node?.[key]`, for a node of any type. */
const child = (node: unknown, key: string): unknown => (node === null || node === undefined ? undefined : (node as Record<string, unknown>)[key]);

/**
 * What `deref` answers for a node of type `T`: a node of that kind (a reference is taken to lead
 * to the kind of node it stands for: the document is bundled and linted). An untyped node
 * (`unknown`, `any`) gives `any`, as the tests and the conformance suite read the contract.
 */
export type Dereferenced<T> = unknown extends T ? any : T;

/** Follows local `$ref`s (`#/components/...`) until it reaches a node that is not a reference. */
export function deref<T>(doc: object, node: T | Reference): Dereferenced<T> {
  let current: unknown = node;
  while (isReference(current)) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`Only local references are supported in a bundled document: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>(child, doc);
    if (current === undefined) throw new Error(`Unresolved reference ${ref}`);
  }
  return current as Dereferenced<T>;
}
