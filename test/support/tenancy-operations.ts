// The tenancy matrix's operations (test/platform/tenancy.test.ts): every implemented operation of
// both contracts that takes an id in its path, with who may call it and the error shape it
// documents for each status, read from the bundled contracts.
import { implementedOperations } from '../../server/api/registry.js';
import { deref } from '../../server/openapi/document.js';
import { docs } from './contract.js';

export type Shape = 'envelope' | 'error';
export interface IdOperation {
  /** The Commerce interface's operations take the secret key in `x-api-key`. */
  api: 'checkout' | 'commerce';
  operationId: string;
  method: string;
  template: string;
  /** Accepts a secret key (else only a publishable key with the client secret). */
  secretKey: boolean;
  /** Accepts a publishable key with the session's X-Client-Secret. */
  clientSecret: boolean;
  /** Accepts the client secret alone. */
  clientSecretAlone: boolean;
  /** Test-mode only (tag Test Helpers): a live key is refused with 403 before the id is looked at. */
  testOnly: boolean;
  /** The error shape the contract documents for a status. */
  shapeOf(status: number): Shape;
  /** Whether the ids match the path parameters' documented patterns (a test helper's `cs_test_…`); else the contract's 400. */
  idsMatchPattern(params: Record<string, string | number>): boolean;
}

/** Every implemented operation of both contracts with an id in its path (but the PUBLIC Commerce ones, reached by public identifiers). */
export function idOperations(): IdOperation[] {
  return [...idOperationsOf('checkout'), ...idOperationsOf('commerce')];
}

function idOperationsOf(api: IdOperation['api']): IdOperation[] {
  const contract = docs[api];
  const resolve = (node: unknown) => deref(contract, node);
  const implemented = new Set(implementedOperations());
  const found: IdOperation[] = [];
  for (const [template, item] of Object.entries<any>(contract.paths)) {
    if (!template.includes('{')) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op?.operationId || !implemented.has(op.operationId)) continue;
      const security: string[][] = (op.security ?? contract.security).map((alt: object) => Object.keys(alt));
      // A PUBLIC Commerce operation is reached by a public identifier: nobody's tenant.
      if (api === 'commerce' && security.length === 0) continue;
      const has = (...s: string[]) => security.some((alt) => alt.length === s.length && s.every((x) => alt.includes(x)));
      found.push({
        api,
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        secretKey: has('secretKey') || has('apiKey'),
        clientSecret: has('publishableKey', 'clientSecret'),
        clientSecretAlone: has('clientSecret'),
        testOnly: (op.tags ?? []).includes('Test Helpers'),
        shapeOf(status: number) {
          const schema = resolve(resolve(op.responses[String(status)])?.content?.['application/json']?.schema);
          if (!schema) throw new Error(`${op.operationId} documents no ${status}`);
          return schema.required?.includes('success') ? 'envelope' : 'error';
        },
        idsMatchPattern(params) {
          const declared = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve).filter((p: any) => p.in === 'path');
          return declared.every((p: any) => !resolve(p.schema)?.pattern || new RegExp(resolve(p.schema).pattern).test(String(params[p.name])));
        },
      });
    }
  }
  return found;
}

/** The operation's path with its ids; parameters the path does not name go to the query string. */
export function pathOf(op: IdOperation, params: Record<string, string | number>): string {
  const used = new Set<string>();
  const path = op.template.replace(/\{(\w+)\}/g, (_, name: string) => {
    used.add(name);
    return encodeURIComponent(String(params[name] ?? `{${name}}`));
  });
  const query = Object.entries(params).filter(([name]) => !used.has(name));
  return query.length === 0 ? path : `${path}?${new URLSearchParams(query.map(([k, v]) => [k, String(v)])).toString()}`;
}
