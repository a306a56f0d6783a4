// Request (and, outside production, response) validation against the contract, with one
// express-openapi-validator instance per operation. The pipeline has already matched the
// operation (routes.ts), so the validator is handed a document with that operation alone: it
// never scans every route with a regular expression on each request, as one instance per contract
// would. Each instance is built on the operation's first request and kept for the process: every
// app of a process (the tests start dozens) shares it, since they read the same contracts.
import type { RequestHandler } from 'express';
import { chain as validatorChain } from './chain.js';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiDocument } from '../openapi/document.js';
import type { RouteOperation, RouteTable } from './routes.js';
import { cacheValidatorRouteMatchers } from './route-matcher-cache.js';
import { compileSpecSchemaOnDemand } from './validator-spec-schema.js';

type Components = NonNullable<OpenApiDocument['components']>;
type ValidatorOptions = Parameters<typeof OpenApiValidator.middleware>[0];

/** The `#/components/...` references reachable from `node`, followed through the components themselves. */
function reachableComponents(doc: OpenApiDocument, node: unknown): Components {
  const components: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/') && !seen.has(child)) {
        seen.add(child);
        const [section, name] = child
          .slice('#/components/'.length)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
        const target = doc.components?.[section!]?.[name!];
        if (target !== undefined) {
          (components[section!] ??= {})[name!] = target;
          visit(target);
        }
      } else visit(child);
    }
  };
  visit(node);
  return components;
}

/** A document holding one operation at its internal path, with the components it uses and nothing else. */
function operationDocument(routes: RouteTable, route: RouteOperation): OpenApiDocument {
  const doc = routes.validatorDocument(route.api);
  const key = routes.internalTemplate(route);
  // Every operation of the contract is at its internal path there.
  const item = doc.paths[key]!;
  return { ...doc, paths: { [key]: item }, components: reachableComponents(doc, item) };
}

/**
 * The validators built so far, by the contracts they were built from (the record `loadContracts`
 * reads once per process) and then by operation and whether responses are checked. Building one
 * (compiling its schemas) costs a hundred times a request, so no app builds one twice.
 */
const builtValidators = new WeakMap<object, Map<string, RequestHandler>>();

/** Validates each request against its operation (matched earlier in the pipeline), and its response when `validateResponses`. */
export function validateAgainstContract(routes: RouteTable, validateResponses: boolean): RequestHandler {
  // The validator's own costs, mended on the module it loads (each file says why).
  cacheValidatorRouteMatchers();
  compileSpecSchemaOnDemand();
  let validators = builtValidators.get(routes.docs);
  if (!validators) builtValidators.set(routes.docs, (validators = new Map<string, RequestHandler>()));
  const validatorOf = (route: RouteOperation): RequestHandler => {
    const key = `${route.operationId} ${validateResponses ? 'responses' : 'requests'}`;
    let chain = validators.get(key);
    if (!chain) {
      chain = validatorChain(
        OpenApiValidator.middleware({
          // The contract is a valid OpenAPI document; its type here describes only what Till reads of it.
          apiSpec: operationDocument(routes, route) as unknown as ValidatorOptions['apiSpec'],
          // Parameters are always coerced from text; a JSON body must carry the right types itself.
          validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
          validateResponses: validateResponses ? { removeAdditional: false } : false,
          validateSecurity: false,
          // No operation takes multipart bodies: no multer step (and no second Ajv) per operation.
          fileUploader: false,
          validateApiSpec: false,
          // OpenAPI 3.1 lets a $ref carry sibling keywords; inline everything for Ajv.
          $refParser: { mode: 'dereference' },
          useRequestUrl: true,
          ignoreUndocumented: true,
        }) as unknown as RequestHandler[],
      );
      validators.set(key, chain);
    }
    return chain;
  };
  return (req, res, next) => validatorOf(req.till.route!)(req, res, next);
}
