import type { ColumnType } from 'kysely';

/** timestamptz: read as Date, written as Date or ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** numeric: read as an exact decimal string, written as a decimal string. Never a float. */
export type Numeric = ColumnType<string, string, string>;
/** jsonb: read parsed, written as JSON text. */
export type Json<T> = ColumnType<T, string, string>;
