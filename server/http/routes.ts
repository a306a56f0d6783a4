// Finds the operation a request is for, in either contract, and rewrites the request to a plain
// internal path that the OpenAPI validator can route.
//
// Why not let the validator route: the Commerce contract keeps OData key paths such as
// `/v1/invoice/getByReference(code='{code}')`, whose parentheses are reserved characters in
// path-to-regexp (the validator's router), and Commerce paths match case-insensitively while
// Checkout paths also answer under the `/api/v1` alias. This module matches the contracts' own
// templates, then hands the validator `/<api>/<operationId>/<param>...`, a path that it reads
// from a copy of the contract whose paths were rewritten the same way.
import { AppError } from '../shared/errors.js';
import { deref, type OpenApiDocument, type OperationObject, type PathItemObject } from '../openapi/document.js';

export type Api = 'checkout' | 'commerce';

/** A contract as the validator is handed it: its paths are the internal paths (`validatorDocument`). */
export type ValidatorDocument = OpenApiDocument & { paths: Record<string, PathItemObject> };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** One operation of a contract, with what the pipeline needs to know about it. */
export interface RouteOperation {
  api: Api;
  method: string;
  /** The path as the contract writes it. */
  template: string;
  operationId: string;
  paramNames: string[];
  /** Security alternatives: each is the set of schemes that must all be present. Empty = public. */
  security: string[][];
  scopes: string[];
  /** Which error body the operation documents. */
  errorShape: 'general' | 'envelope';
  /** The operation object itself. */
  operation: OperationObject;
  /** Literal characters of the template: more wins when two templates match. */
  specificity: number;
  regex: RegExp;
  quoted: boolean[];
}

export interface ResolvedRoute {
  route: RouteOperation;
  params: Record<string, string>;
}

export type Resolution =
  /** `invalid`: a path parameter is not valid percent-encoding (answer it in the route's error shape). */
  | { kind: 'found'; route: RouteOperation; params: Record<string, string>; invalid?: AppError }
  | { kind: 'method_not_allowed'; allowed: string[]; api: Api }
  | { kind: 'not_found' };

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiles a contract path template to a regular expression with one group per parameter. */
function compileTemplate(template: string, api: Api): { regex: RegExp; paramNames: string[]; quoted: boolean[]; specificity: number } {
  const paramNames: string[] = [];
  const quoted: boolean[] = [];
  let pattern = '';
  let specificity = 0;
  const parts = template.split(/(\{[^}]+\})/);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const param = /^\{([^}]+)\}$/.exec(part);
    if (param) {
      const inQuotes = (parts[i - 1] ?? '').endsWith("'") && (parts[i + 1] ?? '').startsWith("'");
      paramNames.push(param[1]!);
      quoted.push(inQuotes);
      // An OData string key may hold any character but an unescaped quote ('' stands for ').
      pattern += inQuotes ? "((?:[^']|'')*)" : '([^/]+)';
    } else {
      pattern += escapeRegex(part);
      specificity += part.length;
    }
  }
  const prefix = api === 'checkout' ? '(?:/api)?' : '';
  return { regex: new RegExp(`^${prefix}${pattern}/?$`, api === 'commerce' ? 'i' : ''), paramNames, quoted, specificity };
}

/** Errors answered in the envelope form are documented with the `EnvelopeError` schema. */
function errorShapeOf(doc: OpenApiDocument, operation: OperationObject): 'general' | 'envelope' {
  for (const [code, raw] of Object.entries(operation.responses ?? {})) {
    if (!/^[45]/.test(code)) continue;
    const schema = deref(doc, deref(doc, raw)?.content?.['application/json']?.schema);
    if (schema?.properties?.success) return 'envelope';
    if (schema?.properties?.error) return 'general';
  }
  return 'general';
}

/** All operations of both contracts, and how to find the one a request is for. */
export class RouteTable {
  readonly operations: RouteOperation[] = [];
  private readonly byId = new Map<string, RouteOperation>();
  /** The operations by the first two segments of their path (`routeKey`), each list in matching order. */
  private readonly byKey = new Map<string, RouteOperation[]>();
  /** Operations with a parameter in those segments: tried for every path. */
  private readonly anyKey: RouteOperation[] = [];
  private readonly validatorDocs = new Map<Api, ValidatorDocument>();

  constructor(readonly docs: Record<Api, OpenApiDocument>) {
    for (const api of ['checkout', 'commerce'] as const) {
      const doc = docs[api];
      for (const [template, rawItem] of Object.entries(doc.paths ?? {})) {
        const item = deref(doc, rawItem);
        const compiled = compileTemplate(template, api);
        for (const method of METHODS) {
          const operation = item[method];
          if (!operation) continue;
          const security = (operation.security ?? doc.security ?? []).map((req) => Object.keys(req));
          const route: RouteOperation = {
            api,
            method: method.toUpperCase(),
            template,
            operationId: operation.operationId,
            security,
            scopes: operation['x-scopes'] ?? [],
            errorShape: errorShapeOf(doc, operation),
            operation,
            ...compiled,
          };
          if (this.byId.has(route.operationId)) throw new Error(`Duplicate operationId ${route.operationId}`);
          this.byId.set(route.operationId, route);
          this.operations.push(route);
        }
      }
    }
    // Most literal characters first, so `getByReference(code='{code}')` beats `{id}`.
    this.operations.sort((a, b) => b.specificity - a.specificity);
    for (const route of this.operations) {
      const key = routeKey(route.template);
      if (key.includes('{')) this.anyKey.push(route);
      else this.byKey.set(key, [...(this.byKey.get(key) ?? []), route]);
    }
  }

  /**
   * The operations a path may be for, in matching order: those whose template starts with the
   * same two segments (and, under the Checkout `/api` alias, those after it). A request then
   * tries a handful of patterns, not every operation's.
   */
  private candidates(path: string): RouteOperation[] {
    const lists = [this.byKey.get(routeKey(path)), path.startsWith('/api/') ? this.byKey.get(routeKey(path.slice(4))) : undefined, this.anyKey].filter(
      (list): list is RouteOperation[] => list !== undefined && list.length > 0,
    );
    if (lists.length === 1) return lists[0]!;
    return lists.flat().sort((a, b) => b.specificity - a.specificity);
  }

  get(operationId: string): RouteOperation | undefined {
    return this.byId.get(operationId);
  }

  /** Finds the operation for a method and raw path (no query string). */
  resolve(method: string, rawPath: string): Resolution {
    const path = normalizePath(rawPath);
    const wanted = method === 'HEAD' ? 'GET' : method;
    const allowed = new Set<string>();
    let api: Api | undefined;
    for (const route of this.candidates(path)) {
      const match = route.regex.exec(path);
      if (!match) continue;
      if (route.method !== wanted) {
        allowed.add(route.method);
        api ??= route.api;
        continue;
      }
      const params: Record<string, string> = {};
      let invalid: AppError | undefined;
      route.paramNames.forEach((name, i) => {
        let value = match[i + 1] ?? '';
        if (route.quoted[i]) value = value.replace(/''/g, "'");
        const decoded = decodeParam(value, name);
        if (decoded instanceof AppError) invalid ??= decoded;
        else params[name] = decoded;
      });
      return invalid ? { kind: 'found', route, params, invalid } : { kind: 'found', route, params };
    }
    if (allowed.size > 0 && api) return { kind: 'method_not_allowed', allowed: [...allowed].sort(), api };
    return { kind: 'not_found' };
  }

  /** The internal path the validator routes: `/<api>/<operationId>/<param>...`. */
  internalPath(route: RouteOperation, params: Record<string, string>): string {
    return `/${route.api}/${route.operationId}${route.paramNames.map((n) => `/${encodeURIComponent(params[n] ?? '')}`).join('')}`;
  }

  /**
   * A copy of one contract whose paths are the internal paths, for the validator. Operations,
   * parameters and components are untouched, so validation is exactly the contract's.
   */
  validatorDocument(api: Api): ValidatorDocument {
    const cached = this.validatorDocs.get(api);
    if (cached) return cached;
    const doc = lenientQueries(this.docs[api]);
    const paths: Record<string, PathItemObject> = {};
    for (const route of this.operations.filter((r) => r.api === api)) {
      // The route's template is one of the document's paths.
      const item = deref(doc, doc.paths![route.template]!);
      paths[this.internalTemplate(route)] = {
        ...(item.parameters ? { parameters: item.parameters } : {}),
        [route.method.toLowerCase()]: item[route.method.toLowerCase()],
      };
    }
    const { webhooks: _webhooks, 'x-generated': _generated, servers: _servers, ...rest } = doc;
    const built = { ...rest, servers: [{ url: `/${api}` }], paths };
    this.validatorDocs.set(api, built);
    return built;
  }

  /** The template of an operation's internal path within its contract: `/<operationId>/{param}...`. */
  internalTemplate(route: RouteOperation): string {
    return `/${route.operationId}${route.paramNames.map((n) => `/{${n}}`).join('')}`;
  }
}

/**
 * A copy of a contract whose query parameters accept reserved characters unencoded: merchants
 * write `?email=ana@example.com` and `$filter=status eq 'Paid'`, and refusing that would help
 * nobody. Everything else about the parameters is unchanged.
 */
function lenientQueries(doc: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(doc);
  const visit = (params: unknown) => {
    if (!Array.isArray(params)) return;
    for (const p of params)
      if (p && typeof p === 'object' && (p as Record<string, unknown>).in === 'query') (p as Record<string, unknown>).allowReserved = true;
  };
  visit(Object.values(copy.components?.parameters ?? {}));
  for (const item of Object.values(copy.paths ?? {})) {
    visit(item.parameters);
    for (const method of METHODS) visit(item[method]?.parameters);
  }
  return copy;
}

/** The first two segments of a path or template, lower-case, each up to an OData `(`: `/v1/Invoice(5)` → `v1/invoice`. */
function routeKey(path: string): string {
  const [, first = '', second = ''] = path.split('/', 3);
  const cut = (segment: string) => {
    const paren = segment.indexOf('(');
    return (paren === -1 ? segment : segment.slice(0, paren)).toLowerCase();
  };
  return `${cut(first)}/${cut(second)}`;
}

/** Clients may percent-encode the OData punctuation; match on the plain characters. */
function normalizePath(rawPath: string): string {
  return rawPath.replace(/%(27|28|29|3D|2C)/gi, (m) => decodeURIComponent(m));
}

/** The decoded parameter, or the error to answer (in the operation's error shape) when it is not valid percent-encoding. */
function decodeParam(value: string, name: string): string | AppError {
  try {
    return decodeURIComponent(value);
  } catch {
    return new AppError('parameter_invalid', { param: name, message: `The path parameter ${name} is not validly percent-encoded.` });
  }
}
