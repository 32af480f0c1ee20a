import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parsePublicId } from '@invoicing/contracts';
import pg from 'pg';
import { megabytes, ms } from '../format.ts';
import { totalCpu } from '../process-meter.ts';
import { listProcesses, processTree } from '../proc.ts';
import { copyDraft } from '../seed-invoices.ts';
import type { BenchSection } from '../section.ts';

/** The figure (#21): importing a statement of 10,000 entries, its time and billing's peak memory. */
const ENTRIES = 10_000;
const MATCHED = 5_000;
const UNMATCHED = 3_000;
const DEBITS = ENTRIES - MATCHED - UNMATCHED;

/** Billing's process among this benchmark's descendants, found by its command line (other runs on the machine have their own). */
const billingPid = (): number => {
  for (const { pid } of processTree(process.pid, listProcesses())) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('services/billing/src/main.ts')) return pid;
    } catch {
      // Gone meanwhile.
    }
  }
  throw new Error('billing is not running');
};

/** VmHWM (the highest RSS since it started, or since the last reset) and VmRSS of a process, in bytes. */
const memoryOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { peakRss: kib('VmHWM'), rss: kib('VmRSS') };
};

/** Resets the process's peak RSS to its current RSS (`5` to clear_refs, Linux 4.0 and later; root or the owner). */
const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

const entry = (index: number, amount: string, remittance: string, indicator: 'CRDT' | 'DBIT') =>
  `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${indicator}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-01-15</Dt></BookgDt><AcctSvcrRef>BENCH-${index}</AcctSvcrRef>` +
  `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>E2E-${index}</EndToEndId></Refs>` +
  `<RltdPties><Dbtr><Pty><Nm>Kunde ${index} GmbH</Nm></Pty></Dbtr></RltdPties><RmtInf><Ustrd>${remittance}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n`;

/** A camt.053.001.08 of 10,000 entries: a credit paying each open invoice in full (its number as people type it), unmatched credits, and debits. */
const statementOf = (numbers: readonly string[], amount: string, account: string) => {
  const entries: string[] = [];
  for (let index = 0; index < ENTRIES; index += 1) {
    if (index < MATCHED) entries.push(entry(index, amount, `Invoice ${numbers[index]!.toLowerCase().replaceAll('-', ' ')} thank you`, 'CRDT'));
    else if (index < MATCHED + UNMATCHED) entries.push(entry(index, '12.34', `Order ${index} no invoice named`, 'CRDT'));
    else entries.push(entry(index, '99.00', `Supplier payment ${index}`, 'DBIT'));
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-01-15T18:00:00</CreDtTm></GrpHdr><Stmt><Id>BENCH-1</Id>` +
    `<Acct><Id><IBAN>${account}</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-01-15</Dt></Dt></Bal>\n${entries.join('')}</Stmt></BkToCstmrStmt></Document>\n`;
};

/**
 * POST /api/v1/bank_statements through the gateway with a camt.053.001.08 of 10,000 entries
 * (5,000 paying as many open invoices, 3,000 naming none, 2,000 debits): the time of the import
 * (schema check, read, duplicate claims, matching, 5,000 payments and 10,000 events in one
 * transaction) and billing's peak RSS meanwhile (VmHWM, reset before the import); then the same
 * statement again, every credit a duplicate.
 */
export const bankStatementImport: BenchSection = {
  name: 'statements',
  services: ['catalog', 'billing'],
  // One request does all the work: the gateway waits for it.
  env: { UPSTREAM_TIMEOUT_MS: '300000' },
  run: async (context) => {
    const minted = await context.mintKey(`bench-statements-${randomUUID().slice(0, 8)}`, 'all');
    const call = async (method: string, path: string, body: unknown) => {
      const response = await fetch(`${context.gatewayUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${minted.key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as { data: { id: string; total: number } };
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
      return json.data;
    };
    await call('PATCH', '/api/v1/account', { business_name: 'Benchmark Studio GmbH', default_currency: 'EUR', address: { city: 'Köln', country: 'DE' } });
    const customer = await call('POST', '/api/v1/customers', { name: 'Müller & Söhne GmbH' });
    const template = await call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'Consulting', unit_amount: 11_900 }] });
    context.progress(`opening ${MATCHED} invoices with SQL`);
    await copyDraft(context.databaseUrl, parsePublicId('invoice', template.id)!, MATCHED - 1, { newestAt: new Date(Date.now() - 60_000) });
    const client = new pg.Client({ connectionString: context.databaseUrl });
    await client.connect();
    // As finalization leaves them, but for the hash chain, which the import neither reads nor changes.
    const { rows } = await client
      .query<{ number: string }>(
        `with numbered as (select id, row_number() over (order by created_at, id) as n from billing.invoices where workspace_id = $1)
         update billing.invoices i set status = 'open', number = 'BENCH-' || lpad(numbered.n::text, 6, '0'), number_format = 'BENCH-{SEQ:6}', number_period = '',
           number_sequence = numbered.n, amount_due = i.total, finalized_at = now()
         from numbered where i.id = numbered.id returning i.number`,
        [minted.workspace_id],
      )
      .finally(() => client.end());
    const numbers = rows.map((row) => row.number).sort();
    const xml = statementOf(numbers, (template.total / 100).toFixed(2), 'DE89370400440532013000');
    const pid = billingPid();
    const upload = async () => {
      const started = performance.now();
      const response = await fetch(`${context.gatewayUrl}/api/v1/bank_statements`, { method: 'POST', headers: { authorization: `Bearer ${minted.key}`, 'content-type': 'application/xml' }, body: xml });
      const body = (await response.json()) as { data: { matched_count: number; unmatched_count: number; entries: { data: { status: string }[] } } };
      const seconds = (performance.now() - started) / 1000;
      if (response.status !== 201) throw new Error(`the import answered ${response.status}: ${JSON.stringify(body).slice(0, 500)}`);
      return { seconds, body: body.data };
    };

    const idle = memoryOf(pid);
    resetPeak(pid);
    context.progress(`importing a statement of ${ENTRIES.toLocaleString('en-US')} entries (${megabytes(Buffer.byteLength(xml))})`);
    const first = await context.meter.window(upload);
    const afterFirst = memoryOf(pid);
    if (first.value.body.matched_count !== MATCHED || first.value.body.unmatched_count !== UNMATCHED) {
      throw new Error(`matched ${first.value.body.matched_count} and left ${first.value.body.unmatched_count} unmatched, not ${MATCHED} and ${UNMATCHED}`);
    }
    resetPeak(pid);
    context.progress('importing it again: every credit a duplicate');
    const again = await context.meter.window(upload);
    const afterAgain = memoryOf(pid);
    const duplicates = again.value.body.entries.data.filter((each) => each.status === 'duplicate').length;
    if (duplicates !== MATCHED + UNMATCHED) throw new Error(`the second import found ${duplicates} duplicates, not ${MATCHED + UNMATCHED}`);

    const cpu = (window: typeof first) => `${(window.cpu['billing'] ?? Number.NaN).toFixed(2)} s billing, ${totalCpu(window.cpu).toFixed(2)} s all`;
    return {
      serverErrors: 0,
      targets: [],
      tables: [
        {
          title: `POST /api/v1/bank_statements through the gateway: a camt.053.001.08 of ${ENTRIES.toLocaleString('en-US')} entries (${megabytes(Buffer.byteLength(xml))}), ${MATCHED.toLocaleString('en-US')} paying open invoices`,
          columns: ['import', 'time', 'CPU', 'billing peak RSS (VmHWM)', 'billing RSS after', 'outcome'],
          rows: [
            ['first', ms(first.value.seconds * 1000), cpu(first), megabytes(afterFirst.peakRss), megabytes(afterFirst.rss), `${first.value.body.matched_count} matched, ${first.value.body.unmatched_count} unmatched, ${DEBITS} ignored`],
            ['the same again', ms(again.value.seconds * 1000), cpu(again), megabytes(afterAgain.peakRss), megabytes(afterAgain.rss), `${duplicates} duplicates, nothing paid`],
          ],
          notes: [
            `Billing's RSS before the first import: ${megabytes(idle.rss)}. Peak RSS is the kernel's VmHWM of billing's process (/proc/<pid>/status), reset before each import (clear_refs 5), so it is that import's peak; xmllint's WebAssembly heap lives in a worker thread of the same process and is included.`,
            'The time is the whole request through the gateway: the XSD check, reading the document, claiming 8,000 duplicate keys, matching, 5,000 payments with 10,000 events (invoice.payment_recorded and invoice.paid) and the answer of 10,000 entries.',
          ],
        },
      ],
    };
  },
};
