// `node bench/keyed-change.ts`: a keyed pay as billing writes it, per change: CPU of this process,
// CPU of the PostgreSQL backend, wall time. `transaction`: the change and the record of its answer
// in a transaction (begin, change, record, commit), as runKeyedWrite writes a keyed write;
// `statement`: both in one statement (changeWhileStatus with an outcome), as pay and void do.
// Alternating over rounds, medians of the rounds, on the benchmark's PostgreSQL. Not part of
// `npm run bench`: it measured that choice.
import { randomUUID } from 'node:crypto';
import type { CreateInvoiceBody } from '@invoicing/contracts';
import { ensureDatabaseExists, KeyedWrites, migrateDatabase } from '@invoicing/service-kit';
import { makeEnvelope } from '@invoicing/service-kit/events/make-envelope';
import { entityColumns, sqlOf } from '@invoicing/service-kit/typed-sql';
import { openLocalDatabase } from '../deploy/local/local-database.ts';
import { BILLING_SCHEMA, openBillingDatabase, type BillingDatabase } from '../services/billing/src/database.ts';
import { newDraft } from '../services/billing/src/modules/invoices/invoice.domain.ts';
import { InvoiceEntity, type InvoiceRow } from '../services/billing/src/modules/invoices/invoice.entity.ts';
import { invoiceRepository } from '../services/billing/src/modules/invoices/invoice.repository.ts';
import { loadBenchSettings } from './config.ts';
import { readStat } from './proc.ts';

const PER_ROUND = 300;
const ROUNDS = 7;
const WORKSPACE = randomUUID();
const { settings, inherited } = loadBenchSettings();
const server = await openLocalDatabase(settings, inherited);
const url = new URL(server.url);
url.pathname = `/keyed_${Date.now()}`;
await ensureDatabaseExists(url.toString());
const orm = await openBillingDatabase(url.toString(), 1);
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
try {
  await migrateDatabase(orm, BILLING_SCHEMA, url.toString());
  const now = new Date();
  const total = PER_ROUND * (ROUNDS + 1) * 2;
  const rows: InvoiceRow[] = Array.from({ length: total }, (_, index) => ({
    ...newDraft(WORKSPACE, { customer: randomUUID(), items: [] } as CreateInvoiceBody, { customerName: 'Müller', currency: 'EUR', today: '2026-11-26', now }),
    status: 'open',
    total: 11_900,
    amountDue: 11_900,
    number: `INV/${index}`,
    numberFormat: 'INV/{SEQ:1}',
    numberPeriod: '',
    numberSequence: index + 1,
    finalizedAt: now,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await sqlOf<BillingDatabase>(orm.em.fork()).insertInto('invoices').values(rows.slice(i, i + 500).map((row) => entityColumns(orm.em, InvoiceEntity, row))).execute();
  }
  const writes = new KeyedWrites({ orm, schema: BILLING_SCHEMA, ttlHours: 24 });
  const em = orm.em.fork();
  const [{ pid }] = (await em.getConnection().execute('select pg_backend_pid() as pid')) as [{ pid: number }];
  const invoices = invoiceRepository(orm.em);
  let next = 0;
  const change = () => {
    const invoice = rows[next++]!;
    const paid = { ...invoice, status: 'paid' as const, paidAt: now, amountDue: 0, amountPaid: invoice.total, updatedAt: now };
    const entry = { id: randomUUID(), invoiceId: invoice.id, workspaceId: WORKSPACE, type: 'paid', occurredAt: now, keyId: null, requestId: 'r', details: {} };
    const event = makeEnvelope({ id: randomUUID(), workspace_id: WORKSPACE });
    const claim = { workspaceId: WORKSPACE, key: randomUUID(), fingerprint: 'f'.repeat(64) };
    const outcome = { status: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify({ data: { id: invoice.id, note: 'x'.repeat(1500) } }) };
    return { change: { invoice: paid, properties: ['status', 'paidAt', 'amountDue', 'amountPaid', 'updatedAt'] as const, whileStatus: 'open' as const, entry: entry as never, event }, claim, outcome };
  };
  const shapes = {
    transaction: async () => {
      const { change: c, claim, outcome } = change();
      await orm.em.transactional(async () => {
        await invoices.changeWhileStatus(c);
        await writes.record(claim, outcome);
      });
    },
    statement: async () => {
      const { change: c, claim, outcome } = change();
      await invoices.changeWhileStatus({ ...c, outcome: { writes, claim, outcome } });
    },
  };
  const samples: Record<string, { node: number; backend: number; wall: number }[]> = { transaction: [], statement: [] };
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (const name of (round % 2 ? ['statement', 'transaction'] : ['transaction', 'statement']) as (keyof typeof shapes)[]) {
      const before = readStat(pid)!.cpuSeconds;
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < PER_ROUND; i += 1) await shapes[name]();
      const wall = (performance.now() - started) / PER_ROUND;
      const used = process.cpuUsage(cpu);
      if (round > 0) samples[name]!.push({ node: (used.user + used.system) / 1000 / PER_ROUND, backend: ((readStat(pid)!.cpuSeconds - before) * 1000) / PER_ROUND, wall });
    }
  }
  for (const [name, runs] of Object.entries(samples)) {
    console.log(`${name.padEnd(12)} node ${median(runs.map((r) => r.node)).toFixed(3)} ms, backend ${median(runs.map((r) => r.backend)).toFixed(3)} ms, wall ${median(runs.map((r) => r.wall)).toFixed(3)} ms`);
  }
} finally {
  await orm.close();
  await server.stop();
}
