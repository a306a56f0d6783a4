// The two interfaces the suite checks. A leaf module: the validator and the shared shapes
// (types.ts) both need it, and neither imports the other through it.
export type Api = 'checkout' | 'commerce';
