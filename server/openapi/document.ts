// Reading a bundled OpenAPI document: local `$ref`s and JSON pointers. Used by the route table,
// the conformance suite's validator and the tests, so that all read the contract the same way.

type Json = Record<string, any>;

/** Escapes one JSON-pointer segment (`/v1/plans` → `~1v1~1plans`). */
export const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows local `$ref`s (`#/components/...`) until it reaches a node that is not a reference. */
export function deref(doc: Json, node: any): any {
  let current = node;
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`Only local references are supported in a bundled document: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((acc: any, key) => acc?.[key], doc);
    if (current === undefined) throw new Error(`Unresolved reference ${ref}`);
  }
  return current;
}
