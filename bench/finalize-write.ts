// `node bench/finalize-write.ts`: the statement that writes a finalize batch's invoices, in the
// shapes it could take, measured per batch on the benchmark's PostgreSQL (embedded, or
// DATABASE_URL): CPU of this process (building, compiling, sending the statement, reading the
// answer), CPU of the PostgreSQL backend that runs it, and wall time. Each batch runs in a
// transaction that is rolled back, so every batch updates the same drafts. The shapes alternate
// over rounds; figures are medians of the rounds. Not part of `npm run bench`: it decided the
// shape of invoice.repository.ts's writeFinalized.
//
//   upsert    insert of whole rows, every one conflicting, `on conflict (id) do update` (the shape before)
//   recordset update … from jsonb_to_recordset($1) of the finalized columns (one parameter)
//   values    update … from (values ($1::uuid, …), …) of the finalized columns (one parameter per value)
import { randomUUID } from 'node:crypto';
import type { CreateInvoiceBody } from '@invoicing/contracts';
import { ensureDatabaseExists, migrateDatabase } from '@invoicing/service-kit';
import { columnsOf, entityColumns, sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { openLocalDatabase } from '../deploy/local/local-database.ts';
import { BILLING_SCHEMA, openBillingDatabase, type BillingDatabase } from '../services/billing/src/database.ts';
import { FINALIZED_PROPERTIES } from '../services/billing/src/modules/invoices/finalization.domain.ts';
import { newDraft } from '../services/billing/src/modules/invoices/invoice.domain.ts';
import { InvoiceEntity, type InvoiceRow } from '../services/billing/src/modules/invoices/invoice.entity.ts';
import { finalizedInvoicesUpdate } from '../services/billing/src/modules/invoices/invoice.repository.ts';
import { loadBenchSettings } from './config.ts';
import { readStat } from './proc.ts';

const BATCH = Number(process.env.WRITE_BATCH ?? 64);
const BATCHES_PER_ROUND = Number(process.env.WRITE_BATCHES ?? 150);
const ROUNDS = Number(process.env.WRITE_ROUNDS ?? 7);
const WORKSPACE = randomUUID();

const draftOf = (index: number, now: Date): InvoiceRow => ({
  ...newDraft(WORKSPACE, { customer: randomUUID(), items: [], days_until_due: 30, notes: `Invoice ${index}` } as CreateInvoiceBody, {
    customerName: 'Müller & Söhne GmbH',
    currency: 'EUR',
    today: '2026-11-26',
    now,
  }),
  ...{ subtotal: 355_200, discountTotal: 37_500, taxableAmount: 317_700, taxTotal: 61_339, total: 379_039 },
});

const address = { line1: 'Königsallee 1', line2: null, city: 'Düsseldorf', state: null, postal_code: '40212', country: 'DE' };
const finalizedOf = (draft: InvoiceRow, sequence: number, now: Date): InvoiceRow => ({
  ...draft,
  status: 'open',
  amountDue: draft.total,
  finalizedAt: now,
  updatedAt: now,
  customerSnapshot: { name: draft.customerName, email: 'buchhaltung@example.de', address, tax_id: 'DE123456789', electronic_address: 'buchhaltung@example.de', electronic_address_scheme: 'EM', buyer_reference: null, identifier: null, identifier_scheme: null, contact_name: null },
  businessSnapshot: {
    name: 'Benchmark Studio GmbH',
    email: null,
    address: { ...address, city: 'Köln', postal_code: '50667' },
    tax_id: null,
    phone: null,
    contact_name: null,
    electronic_address: null,
    electronic_address_scheme: null,
    payment_account: null,
  } as never,
  buyerReference: null,
  deliveryDate: draft.issueDate,
  snapshotVersion: 2,
  publicUrlToken: randomUUID().replaceAll('-', ''),
  number: `INV/2026/${String(sequence).padStart(4, '0')}`,
  numberFormat: 'INV/{YYYY}/{SEQ:4}',
  numberPeriod: '2026',
  numberSequence: sequence,
  snapshotSha256: 'a'.repeat(64),
  chainSha256: 'b'.repeat(64),
});

type Shape = (tx: EntityManager, rows: readonly InvoiceRow[]) => Promise<unknown>;

const upsert: Shape = (tx, rows) =>
  sqlOf<BillingDatabase>(tx)
    .insertInto('invoices')
    .values(rows.map((row) => entityColumns(tx, InvoiceEntity, row)))
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => Object.fromEntries(columnsOf(tx, InvoiceEntity, FINALIZED_PROPERTIES).map((column) => [column, eb.ref(`excluded.${column}` as never)])))
        .whereRef('invoices.workspace_id', '=', 'excluded.workspace_id'),
    )
    .returning('id')
    .execute();

/** The repository's own statement (the batch's write has it as one CTE of several). */
const recordset: Shape = (tx, rows) =>
  finalizedInvoicesUpdate(
    sqlOf<BillingDatabase>(tx),
    tx,
    WORKSPACE,
    rows.map((row) => ({ id: row.id, columns: Object.fromEntries(FINALIZED_PROPERTIES.map((property) => [property, row[property]])) as never })),
  ).execute();

const values: Shape = (tx, rows) => {
  const meta = tx.getMetadata().get(InvoiceEntity);
  const properties = ['id', ...FINALIZED_PROPERTIES] as const;
  const columns = columnsOf(tx, InvoiceEntity, properties);
  const types = properties.map((property) => meta.properties[property].columnTypes[0]!);
  const tuples = rows.map((row) => {
    const data = entityColumns(tx, InvoiceEntity, Object.fromEntries(properties.map((property) => [property, row[property]]))) as Record<string, unknown>;
    return sql`(${sql.join(columns.map((column, index) => sql`${data[column]}::${sql.raw(types[index]!)}`))})`;
  });
  return sqlOf<BillingDatabase>(tx)
    .updateTable('invoices')
    .from(sql`(values ${sql.join(tuples)})`.as<'v'>(sql`${sql.ref('v')}(${sql.join(columns.map((column) => sql.ref(column)))})`))
    .set(Object.fromEntries(FINALIZED_PROPERTIES.map((property, index) => [columns[index + 1]!, sql.ref(`v.${columns[index + 1]!}`)])) as never)
    .whereRef('invoices.id', '=', sql.ref('v.id') as never)
    .where('invoices.workspace_id', '=', WORKSPACE)
    .returning('invoices.id')
    .execute();
};

const SHAPES: Record<string, Shape> = { upsert, recordset, values };

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const { settings, inherited } = loadBenchSettings();
const server = await openLocalDatabase(settings, inherited);
const url = new URL(server.url);
url.pathname = '/invoicing_bench_write';
await ensureDatabaseExists(url.toString());
const orm = await openBillingDatabase(url.toString(), 1);
try {
  await migrateDatabase(orm, BILLING_SCHEMA, url.toString());
  const now = new Date();
  const drafts = Array.from({ length: BATCH }, (_, index) => draftOf(index, now));
  await sqlOf<BillingDatabase>(orm.em.fork())
    .insertInto('invoices')
    .values(drafts.map((draft) => entityColumns(orm.em, InvoiceEntity, draft)))
    .execute();
  const finalized = drafts.map((draft, index) => finalizedOf(draft, index + 1, now));
  const em = orm.em.fork();
  const [{ pid }] = (await em.getConnection().execute('select pg_backend_pid() as pid')) as [{ pid: number }];

  const measure = async (shape: Shape) => {
    let node = 0;
    let wall = 0;
    const backendBefore = readStat(pid)!.cpuSeconds;
    for (let batch = 0; batch < BATCHES_PER_ROUND; batch += 1) {
      await em.begin();
      try {
        const cpu = process.cpuUsage();
        const started = performance.now();
        await shape(em, finalized);
        wall += performance.now() - started;
        const used = process.cpuUsage(cpu);
        node += (used.user + used.system) / 1000;
      } finally {
        await em.rollback();
      }
    }
    // The backend's CPU includes begin and rollback, the same for every shape.
    const backend = ((readStat(pid)!.cpuSeconds - backendBefore) * 1000) / BATCHES_PER_ROUND;
    return { node: node / BATCHES_PER_ROUND, backend, wall: wall / BATCHES_PER_ROUND };
  };

  const samples = new Map<string, { node: number; backend: number; wall: number }[]>();
  for (const [name, shape] of Object.entries(SHAPES)) await measure(shape).then(() => samples.set(name, []));
  for (let round = 0; round < ROUNDS; round += 1) {
    const names = Object.keys(SHAPES);
    for (const name of round % 2 ? names.reverse() : names) samples.get(name)!.push(await measure(SHAPES[name]!));
  }
  console.log(`Writing a finalize batch of ${BATCH} invoices, ms per batch (medians of ${ROUNDS} rounds of ${BATCHES_PER_ROUND} batches)`);
  console.log('shape       this process  PostgreSQL backend  both    wall');
  for (const [name, runs] of samples) {
    const node = median(runs.map((run) => run.node));
    const backend = median(runs.map((run) => run.backend));
    console.log(`${name.padEnd(10)}  ${node.toFixed(2).padStart(12)}  ${backend.toFixed(2).padStart(18)}  ${(node + backend).toFixed(2).padStart(4)}  ${median(runs.map((run) => run.wall)).toFixed(2).padStart(6)}`);
  }
} finally {
  await orm.close();
  await server.stop();
}
