// What the fuzz suite knows about each operation, read from the bundled contracts only
// (generated/*.openapi.json): its parameters, its request body schema and examples, its security
// alternatives, and whether this server implements it. Nothing here is written per operation.
import { implementedOperations } from '../../../server/api/registry.js';
import { loadContracts } from '../../../server/openapi/contracts.js';
import { deref } from '../../../server/openapi/document.js';

export type Json = Record<string, any>;
export type Api = 'checkout' | 'commerce';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface ParamSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  /** The parameter's schema, `$ref`s left in place (the generators resolve them lazily). */
  schema: Json;
  /** In a quoted OData key (`getByReference(code='{code}')`): a quote is written twice. */
  quoted: boolean;
}

export interface FuzzOperation {
  api: Api;
  doc: Json;
  operationId: string;
  method: string;
  template: string;
  params: ParamSpec[];
  body: { required: boolean; schema: Json; examples: unknown[] } | undefined;
  /** Security alternatives, each the scheme names that must all be present; `[]` inside = public. */
  security: string[][];
  implemented: boolean;
  /** The contract documents 501 as its only answer (no success): a 501 is its documented answer even with a handler. */
  documentedNotImplemented: boolean;
  /** The contract documents no success and a 500 (the server-error test helper): a 500 is its documented answer. */
  documentedServerError: boolean;
  /** A list with OData query options (`$filter`, `$orderby`, ...). */
  odata: boolean;
}

function paramsOf(doc: Json, template: string, item: Json, operation: Json): ParamSpec[] {
  const byKey = new Map<string, ParamSpec>();
  for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
    const p = deref(doc, raw);
    if (!['path', 'query', 'header'].includes(p.in)) continue;
    const quoted = p.in === 'path' && template.includes(`'{${p.name}}'`);
    byKey.set(`${p.in}:${p.name}`, { name: p.name, in: p.in, required: Boolean(p.required), schema: p.schema ?? {}, quoted });
  }
  return [...byKey.values()];
}

function bodyOf(doc: Json, operation: Json): FuzzOperation['body'] {
  if (!operation.requestBody) return undefined;
  const requestBody = deref(doc, operation.requestBody);
  const media = requestBody.content?.['application/json'];
  if (!media) return undefined;
  const examples = Object.values<Json>(media.examples ?? {})
    .map((e) => deref(doc, e).value)
    .filter((v) => v !== undefined);
  if (media.example !== undefined) examples.push(media.example);
  return { required: Boolean(requestBody.required), schema: media.schema ?? {}, examples };
}

/** Every operation of both contracts, in document order. */
export function fuzzOperations(): FuzzOperation[] {
  const docs = loadContracts();
  const implemented = new Set(implementedOperations());
  const out: FuzzOperation[] = [];
  for (const api of ['checkout', 'commerce'] as const) {
    const doc = docs[api];
    for (const [template, rawItem] of Object.entries<Json>(doc.paths ?? {})) {
      const item = deref(doc, rawItem);
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const params = paramsOf(doc, template, item, operation);
        out.push({
          api,
          doc,
          operationId: operation.operationId,
          method: method.toUpperCase(),
          template,
          params,
          body: bodyOf(doc, operation),
          security: (operation.security ?? doc.security ?? []).map((req: Json) => Object.keys(req)),
          implemented: implemented.has(operation.operationId),
          documentedNotImplemented:
            Object.keys(operation.responses ?? {}).includes('501') && !Object.keys(operation.responses ?? {}).some((code) => code.startsWith('2')),
          documentedServerError:
            Object.keys(operation.responses ?? {}).includes('500') && !Object.keys(operation.responses ?? {}).some((code) => code.startsWith('2')),
          odata: params.some((p) => p.in === 'query' && p.name.startsWith('$')),
        });
      }
    }
  }
  return out;
}

/** Resolves `$ref`s and merges `allOf` into one schema (properties and required joined). */
export function resolveSchema(doc: Json, schema: unknown): Json {
  const s = deref(doc, schema) ?? {};
  if (!Array.isArray(s.allOf)) return s;
  const merged: Json = { ...s, allOf: undefined, properties: { ...(s.properties ?? {}) }, required: [...(s.required ?? [])] };
  for (const part of s.allOf) {
    const r = resolveSchema(doc, part);
    for (const [k, v] of Object.entries(r)) if (!['properties', 'required'].includes(k) && merged[k] === undefined) merged[k] = v;
    Object.assign(merged.properties, r.properties ?? {});
    merged.required.push(...(r.required ?? []));
  }
  if (Object.keys(merged.properties).length === 0) delete merged.properties;
  return merged;
}

/** The JSON types a schema allows (`type` may be a list in OpenAPI 3.1). */
export function typesOf(schema: Json): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  if (schema.enum) return [...new Set(schema.enum.map((v: unknown) => (v === null ? 'null' : typeof v)))] as string[];
  if (schema.const !== undefined) return [typeof schema.const];
  return [];
}
