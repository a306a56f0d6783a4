import { readFileSync } from 'node:fs';
import { deref } from '../../server/openapi/document.js';

type Json = Record<string, any>;

/** The bundled contract of one interface, as the mock serves it. */
export function bundled(api: 'checkout' | 'commerce'): Json {
  return JSON.parse(readFileSync(new URL(`../../generated/${api}.openapi.json`, import.meta.url), 'utf8'));
}

/**
 * The example body the contract documents for an operation's response: the first named
 * example of `status` (or of the first 2xx), which is what Prism answers by default.
 */
export function documentedExample(doc: Json, method: string, path: string, status?: string): unknown {
  const op = deref(doc, doc.paths[path])?.[method.toLowerCase()];
  if (!op) throw new Error(`no operation ${method} ${path}`);
  const code = status ?? Object.keys(op.responses).find((c) => c.startsWith('2'));
  const response = deref(doc, op.responses[code!]);
  const media = response.content?.['application/json'];
  if (!media) throw new Error(`${method} ${path} ${code} has no JSON body`);
  if (media.example !== undefined) return media.example;
  const first = Object.values<any>(media.examples ?? {})[0];
  return deref(doc, first)?.value;
}

/** The first named example of an operation's request body. */
export function documentedRequest(doc: Json, method: string, path: string): any {
  const op = deref(doc, doc.paths[path])?.[method.toLowerCase()];
  const media = deref(doc, op.requestBody).content['application/json'];
  if (media.example !== undefined) return media.example;
  return deref(doc, Object.values<any>(media.examples ?? {})[0])?.value;
}

/** Finds a concrete value for a path parameter in the operation's examples, or a fallback. */
export function pathParamExample(doc: Json, path: string, name: string, fallback: string | number): any {
  const item = deref(doc, doc.paths[path]);
  const params = [...(item.parameters ?? []), ...Object.values<any>(item).flatMap((op: any) => op?.parameters ?? [])];
  for (const p of params.map((x: any) => deref(doc, x))) {
    if (p?.in === 'path' && p.name === name) {
      if (p.example !== undefined) return p.example;
      const ex = Object.values<any>(p.examples ?? {})[0];
      if (ex) return deref(doc, ex).value;
      if (p.schema?.examples?.[0] !== undefined) return p.schema.examples[0];
    }
  }
  return fallback;
}
