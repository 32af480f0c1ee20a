import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints, the event log, deliveries (one per event and endpoint, the unit the worker
 * claims) and their attempts (the history the API lists). Lists read (workspace_id, created desc,
 * id desc) indexes; the worker reads a partial index of pending deliveries by due time.
 */
export class Migration20261124000000CreateNotifications extends Migration {
  override async up(): Promise<void> {
    // Time-ordered keys for rows made inside SQL (deliveries fanned out by one INSERT ... SELECT),
    // like those the service makes: PostgreSQL 15 has no uuidv7().
    this.addSql(`
      create function notifications.uuid_v7() returns uuid language sql volatile as $$
        select encode(
          set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
            placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
            from 1 for 6), 52, 1), 53, 1),
          'hex')::uuid
      $$`);

    this.addSql(`
      create table notifications.webhook_endpoints (
        id uuid primary key,
        workspace_id uuid not null,
        url text not null check (char_length(url) <= 2048),
        enabled_events text[] not null check (cardinality(enabled_events) >= 1),
        description text,
        status text not null check (status in ('enabled', 'disabled')),
        disabled_reason text check (disabled_reason in ('requested', 'gone', 'failing')),
        disabled_at timestamptz(3),
        failing_since timestamptz(3),
        -- AES-256-GCM sealed, bound to the row id; never the plain secret
        secret text not null,
        previous_secret text,
        previous_secret_expires_at timestamptz(3),
        created timestamptz(3) not null,
        updated timestamptz(3) not null,
        constraint webhook_endpoints_disabled_has_reason check ((status = 'disabled') = (disabled_reason is not null and disabled_at is not null))
      )`);
    this.addSql('create index webhook_endpoints_newest_first on notifications.webhook_endpoints (workspace_id, created desc, id desc)');
    this.addSql(`create index webhook_endpoints_enabled on notifications.webhook_endpoints (workspace_id) where status = 'enabled'`);

    this.addSql(`
      create table notifications.events (
        -- the envelope id on the bus, so a redelivered message finds its row taken
        id uuid primary key,
        workspace_id uuid not null,
        type text not null,
        created timestamptz(3) not null,
        data jsonb not null,
        received_at timestamptz(3) not null default now()
      )`);
    this.addSql('create index events_newest_first on notifications.events (workspace_id, created desc, id desc)');
    this.addSql('create index events_of_type_newest_first on notifications.events (workspace_id, type, created desc, id desc)');
    this.addSql('create index events_oldest_first on notifications.events (created)');

    this.addSql(`
      create table notifications.deliveries (
        id uuid primary key default notifications.uuid_v7(),
        event_id uuid not null references notifications.events (id) on delete cascade,
        endpoint_id uuid not null references notifications.webhook_endpoints (id) on delete cascade,
        trigger text not null check (trigger in ('event', 'replay', 'redeliver')),
        state text not null default 'pending' check (state in ('pending', 'succeeded', 'failed', 'cancelled')),
        attempts integer not null default 0,
        next_attempt_at timestamptz(3),
        -- who holds the delivery while sending it; its result counts only under the same lease
        lease uuid,
        created timestamptz(3) not null default now(),
        finished_at timestamptz(3),
        constraint deliveries_pending_is_scheduled check ((state = 'pending') = (next_attempt_at is not null))
      )`);
    // The event itself reaches each endpoint once, however often the bus redelivers it.
    this.addSql(`create unique index deliveries_once_per_event_and_endpoint on notifications.deliveries (event_id, endpoint_id) where trigger = 'event'`);
    this.addSql(`create index deliveries_due on notifications.deliveries (next_attempt_at) where state = 'pending'`);
    this.addSql(`create index deliveries_pending_of_endpoint on notifications.deliveries (endpoint_id) where state = 'pending'`);
    this.addSql('create index deliveries_of_event on notifications.deliveries (event_id)');

    this.addSql(`
      create table notifications.delivery_attempts (
        id uuid primary key default notifications.uuid_v7(),
        -- no foreign key to the delivery or endpoint: the history outlives a deleted endpoint
        delivery_id uuid not null,
        event_id uuid not null references notifications.events (id) on delete cascade,
        endpoint_id uuid not null,
        url text not null,
        trigger text not null,
        attempt integer not null,
        attempted_at timestamptz(3) not null,
        succeeded boolean not null,
        status_code integer,
        latency_ms integer not null,
        response_body text,
        error text,
        next_attempt_at timestamptz(3)
      )`);
    this.addSql('create index delivery_attempts_of_event_newest_first on notifications.delivery_attempts (event_id, attempted_at desc, id desc)');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists notifications.delivery_attempts');
    this.addSql('drop table if exists notifications.deliveries');
    this.addSql('drop table if exists notifications.events');
    this.addSql('drop table if exists notifications.webhook_endpoints');
    this.addSql('drop function if exists notifications.uuid_v7()');
  }
}
