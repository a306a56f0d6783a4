// The database Kysely is typed with. Each table's type lives with the module that owns it
// (server/db/table-owners.ts): that module's `*.tables.ts` adds its tables to this interface by
// declaration merging (`declare module '…/db/schema.js'`). So db/, on the lowest layer, imports
// none of the modules above it, and every statement still sees every table.

/** Every table, for Kysely: filled by the modules' `*.tables.ts`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the modules declare its members
export interface Database {}
