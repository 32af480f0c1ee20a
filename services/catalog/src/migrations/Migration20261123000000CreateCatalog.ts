import { Migration } from '@mikro-orm/migrations';

/**
 * Customers, products and prices. Every row carries its workspace; every list reads an index on
 * (workspace_id, created desc, id desc), so keyset pages never sort or scan. Free-text search uses
 * pg_trgm GIN indexes, which serve `ILIKE '%…%'`.
 */
// Without the pending list, a freshly inserted row is in the index proper at once, and the planner
// does not price a search as a scan of a long pending list (it would pick a sequential scan).
// Catalog rows are written rarely and searched often, so slower inserts are the better trade.
const GIN_OPTIONS = 'with (fastupdate = off)';

export class Migration20261123000000CreateCatalog extends Migration {
  override async up(): Promise<void> {
    // pg_trgm is per database and may already exist (another service, or an operator) in any schema;
    // services migrating at the same start-up may race to create it, and the loser carries on.
    await this.execute(`
      do $$ begin
        create extension if not exists pg_trgm with schema public;
      exception when unique_violation or duplicate_object then null;
      end $$`);
    const [extension] = await this.execute(
      `select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`,
    );
    const trgm = `"${String(extension?.schema ?? 'public')}".gin_trgm_ops`;

    this.addSql(`
      create table catalog.customers (
        id uuid primary key,
        workspace_id uuid not null,
        name text not null,
        email text,
        phone text,
        tax_id text,
        address jsonb not null,
        deleted boolean not null default false,
        created timestamptz(3) not null
      )`);
    this.addSql('create index customers_newest_first on catalog.customers (workspace_id, created desc, id desc)');
    this.addSql(`create index customers_name_trgm on catalog.customers using gin (name ${trgm}) ${GIN_OPTIONS}`);
    this.addSql(`create index customers_email_trgm on catalog.customers using gin (email ${trgm}) ${GIN_OPTIONS}`);
    this.addSql(`create index customers_tax_id_trgm on catalog.customers using gin (tax_id ${trgm}) ${GIN_OPTIONS}`);

    this.addSql(`
      create table catalog.products (
        id uuid primary key,
        workspace_id uuid not null,
        name text not null check (char_length(name) between 1 and 200),
        description text check (char_length(description) <= 500),
        images jsonb not null default '[]',
        active boolean not null default true,
        created timestamptz(3) not null,
        updated timestamptz(3) not null,
        -- target of the prices foreign key, which keeps a price and its product in one workspace
        constraint products_workspace_id_id unique (workspace_id, id)
      )`);
    this.addSql('create index products_newest_first on catalog.products (workspace_id, created desc, id desc)');
    this.addSql(`create index products_name_trgm on catalog.products using gin (name ${trgm}) ${GIN_OPTIONS}`);
    this.addSql(`create index products_description_trgm on catalog.products using gin (description ${trgm}) ${GIN_OPTIONS}`);

    this.addSql(`
      create table catalog.prices (
        id uuid primary key,
        workspace_id uuid not null,
        product_id uuid not null,
        nickname text,
        unit_amount bigint not null check (unit_amount between 0 and 9007199254740991),
        currency char(3) not null check (currency ~ '^[A-Z]{3}$'),
        type text not null check (type in ('one_time', 'recurring')),
        recurring_interval text check (recurring_interval in ('day', 'week', 'month', 'year')),
        recurring_interval_count smallint check (recurring_interval_count between 1 and 52),
        tax_rate numeric(7, 4) not null default 0 check (tax_rate between 0 and 100),
        active boolean not null default true,
        created timestamptz(3) not null,
        constraint prices_product_fk foreign key (workspace_id, product_id) references catalog.products (workspace_id, id),
        constraint prices_recurring_matches_type check (
          (recurring_interval is null) = (recurring_interval_count is null)
          and (type = 'recurring') = (recurring_interval is not null)
        )
      )`);
    this.addSql('create index prices_newest_first on catalog.prices (workspace_id, created desc, id desc)');
    this.addSql('create index prices_of_product_newest_first on catalog.prices (workspace_id, product_id, created desc, id desc)');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists catalog.prices');
    this.addSql('drop table if exists catalog.products');
    this.addSql('drop table if exists catalog.customers');
  }
}
