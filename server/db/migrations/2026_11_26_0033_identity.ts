import { type Kysely, sql } from 'kysely';

// Merchants, users, roles and restricted keys (issue 16 §4). A merchant's profile gains its
// website, country and default currency, and its places of business. A user is a person's
// membership of one merchant; every merchant's first user is its owner (made on first need).
// A role is a named set of scopes, shared by both modes; a restricted key (`rk_…`) carries one.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE merchants ADD COLUMN website text`.execute(db);
  await sql`ALTER TABLE merchants ADD COLUMN country text NOT NULL DEFAULT 'US'`.execute(db);
  await sql`ALTER TABLE merchants ADD COLUMN default_currency text NOT NULL DEFAULT 'USD'`.execute(db);
  await sql`CREATE TABLE merchant_locations (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    name text NOT NULL,
    address_line1 text NOT NULL,
    address_line2 text,
    city text NOT NULL,
    region text,
    postal_code text,
    country text NOT NULL,
    phone text,
    is_primary boolean NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX merchant_locations_one_primary ON merchant_locations (merchant_id) WHERE is_primary`.execute(db);
  await sql`CREATE TABLE users (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    email text NOT NULL,
    first_name text,
    last_name text,
    is_owner boolean NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX users_one_owner ON users (merchant_id) WHERE is_owner`.execute(db);
  await sql`CREATE TABLE roles (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    name text NOT NULL,
    description text,
    scopes text[] NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX roles_name ON roles (merchant_id, lower(name))`.execute(db);
  await sql`ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_kind_check`.execute(db);
  await sql`ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('secret', 'publishable', 'restricted'))`.execute(db);
  await sql`ALTER TABLE api_keys ADD COLUMN role_id integer REFERENCES roles (id) ON DELETE CASCADE`.execute(db);
  await sql`ALTER TABLE api_keys ADD COLUMN description text`.execute(db);
  await sql`ALTER TABLE api_keys ADD CONSTRAINT api_keys_restricted_role CHECK ((kind = 'restricted') = (role_id IS NOT NULL))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM api_keys WHERE kind = 'restricted'`.execute(db);
  await sql`ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_restricted_role`.execute(db);
  await sql`ALTER TABLE api_keys DROP COLUMN IF EXISTS description`.execute(db);
  await sql`ALTER TABLE api_keys DROP COLUMN IF EXISTS role_id`.execute(db);
  await sql`ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_kind_check`.execute(db);
  await sql`ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('secret', 'publishable'))`.execute(db);
  await sql`DROP TABLE IF EXISTS roles`.execute(db);
  await sql`DROP TABLE IF EXISTS users`.execute(db);
  await sql`DROP TABLE IF EXISTS merchant_locations`.execute(db);
  await sql`ALTER TABLE merchants DROP COLUMN IF EXISTS default_currency`.execute(db);
  await sql`ALTER TABLE merchants DROP COLUMN IF EXISTS country`.execute(db);
  await sql`ALTER TABLE merchants DROP COLUMN IF EXISTS website`.execute(db);
}
