import { Migration } from '@mikro-orm/migrations';

/** Workspaces, API keys (hashes only) and idempotency records, plus the NOTIFY that evicts cached keys. */
export class Migration20261123000000_initial extends Migration {
  override name = 'Migration20261123000000_initial';

  override up(): void {
    this.addSql(`
      create table gateway.workspaces (
        id uuid primary key,
        slug text not null,
        created timestamptz not null default now(),
        constraint workspaces_slug_unique unique (slug)
      )`);
    this.addSql(`
      create table gateway.api_keys (
        id uuid primary key,
        workspace_id uuid not null references gateway.workspaces (id),
        key_hash text not null,
        scopes text[] not null,
        created timestamptz not null default now(),
        revoked_at timestamptz
      )`);
    this.addSql('create index api_keys_workspace_id_index on gateway.api_keys (workspace_id)');
    this.addSql(`
      create table gateway.idempotency_records (
        id uuid primary key,
        workspace_id uuid not null references gateway.workspaces (id),
        key text not null,
        fingerprint text not null,
        state text not null check (state in ('in_flight', 'completed')),
        lock_token uuid,
        locked_until timestamptz,
        response_status smallint,
        response_headers jsonb,
        response_body bytea,
        created_at timestamptz not null default now(),
        completed_at timestamptz,
        constraint idempotency_records_workspace_key_unique unique (workspace_id, key)
      )`);
    this.addSql('create index idempotency_records_created_at_index on gateway.idempotency_records (created_at)');
    // Every gateway process caches keys in memory; a change made anywhere (the operator command,
    // plain SQL) is announced on commit so that each process evicts it at once.
    this.addSql(`
      create function gateway.notify_api_key_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify('gateway_api_key_changed', coalesce(new.id, old.id)::text);
        return null;
      end
      $$`);
    this.addSql(`
      create trigger api_keys_changed after insert or update or delete on gateway.api_keys
      for each row execute function gateway.notify_api_key_changed()`);
  }
}
