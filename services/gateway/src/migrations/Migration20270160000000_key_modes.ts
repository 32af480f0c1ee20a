import { Migration } from '@mikro-orm/migrations';

/**
 * Test mode: each key is live or test, and idempotency records belong to a data space (a
 * workspace's live or test data, data-space.ts) rather than to a workspace row: a test space's id
 * is no workspace's, so the foreign key goes; the records keep their column and unique key.
 */
export class Migration20270160000000_key_modes extends Migration {
  override name = 'Migration20270160000000_key_modes';

  override up(): void {
    this.addSql(`alter table gateway.api_keys add column mode text not null default 'live' constraint api_keys_mode_check check (mode in ('live', 'test'))`);
    this.addSql('alter table gateway.idempotency_records drop constraint idempotency_records_workspace_id_fkey');
  }
}
