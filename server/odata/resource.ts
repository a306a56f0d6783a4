// A resource declares, once, the fields an OData list exposes: the wire name, its column, its
// type, and what a caller may do with it. The engine accepts nothing that is not declared here.

/** An enum field: the wire values, and how one becomes the stored value (identity if absent). */
export interface EnumType {
  enum: readonly string[];
  toDb?: (wire: string) => string | number;
  /** Other stored values that read as a wire value too (the wire shows two stored states as one word). */
  alsoStoredAs?: Readonly<Record<string, readonly string[]>>;
}

/** The value types a field can have; each decides which literals it accepts. */
export type FieldType = 'int' | 'decimal' | 'string' | 'boolean' | 'datetime' | 'guid' | EnumType;

/** One field of a resource. `filter`, `sort` and `select` default to true. */
export interface FieldSpec {
  column: string;
  type: FieldType;
  /** The column may hold NULL (comparisons then stay two-valued, as OData says). */
  nullable?: boolean;
  filter?: boolean;
  sort?: boolean;
  select?: boolean;
}

export interface ResourceSpec {
  /** The table name or alias that qualifies columns (needed when the caller joins). */
  table?: string;
  /** The wire name of the unique key: every ordering ends with it so pages are stable. */
  key: string;
  /** The direction of the key when `$orderby` is absent or does not name it. Default `desc` (newest first). */
  keyDirection?: 'asc' | 'desc';
  fields: Record<string, FieldSpec>;
  /** The navigations `$expand` may name. */
  expand?: readonly string[];
  /** Page size when `$top` is absent (25) and its maximum (100). */
  defaultTop?: number;
  maxTop?: number;
}

/** A declared resource, with its defaults filled in. */
export interface Resource {
  table: string | undefined;
  key: string;
  keyDirection: 'asc' | 'desc';
  fields: Record<string, Required<Omit<FieldSpec, 'nullable'>> & { nullable: boolean }>;
  expand: readonly string[];
  defaultTop: number;
  maxTop: number;
}

export type Field = Resource['fields'][string];

/** Declares a resource; throws at startup (a programming error) when the key is not a field. */
export function defineResource(spec: ResourceSpec): Resource {
  if (!Object.hasOwn(spec.fields, spec.key)) throw new Error(`OData resource key ${spec.key} is not one of its fields.`);
  const fields: Resource['fields'] = {};
  for (const [name, f] of Object.entries(spec.fields)) {
    fields[name] = { column: f.column, type: f.type, nullable: f.nullable ?? false, filter: f.filter ?? true, sort: f.sort ?? true, select: f.select ?? true };
  }
  return {
    table: spec.table,
    key: spec.key,
    keyDirection: spec.keyDirection ?? 'desc',
    fields,
    expand: spec.expand ?? [],
    defaultTop: spec.defaultTop ?? 25,
    maxTop: spec.maxTop ?? 100,
  };
}

/** The declared field of a wire name, or undefined (never an inherited property). */
export function fieldOf(resource: Resource, name: string): Field | undefined {
  return Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined;
}

/** The qualified column name of a field. */
export function columnOf(resource: Resource, field: Field): string {
  return resource.table ? `${resource.table}.${field.column}` : field.column;
}
