// The bundled contracts (generated/*.openapi.json) as the contract tests read them: both documents,
// and every operation with its method, path and path item.
import { readFileSync } from 'node:fs';
import { deref } from '../../server/openapi/document.js';

export type Json = Record<string, any>;
export type Api = 'checkout' | 'commerce';

/** The text of a bundled contract. */
export const contractText = (api: Api): string => readFileSync(new URL(`../../generated/${api}.openapi.json`, import.meta.url), 'utf8');
export const docs: Record<Api, Json> = { checkout: JSON.parse(contractText('checkout')), commerce: JSON.parse(contractText('commerce')) };
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export interface Op {
  api: Api;
  method: string;
  path: string;
  op: Json;
  pathItem: Json;
}

export function operations(api: Api): Op[] {
  const doc = docs[api];
  const out: Op[] = [];
  for (const [path, rawItem] of Object.entries<Json>(doc.paths ?? {})) {
    const pathItem = deref(doc, rawItem);
    for (const method of METHODS) {
      if (pathItem[method]) out.push({ api, method: method.toUpperCase(), path, op: pathItem[method], pathItem });
    }
  }
  return out;
}
export const allOps = [...operations('checkout'), ...operations('commerce')];
export const label = (o: Op) => `${o.api} ${o.method} ${o.path}`;
