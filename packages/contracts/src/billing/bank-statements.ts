import { z } from 'zod';
import { CalendarDate, dataOf, Livemode, PageQuery, pageOf, Timestamp } from '../common.ts';
import { idReference, IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';

/** The largest bank statement taken (decisions.md): 10 MB; larger is a 413. */
export const BANK_STATEMENT_MAX_BYTES = 10 * 1024 * 1024;
export const BANK_STATEMENT_CONTENT_TYPE = 'application/xml';

export const BANK_STATEMENT_ENTRY_STATUSES = ['matched', 'unmatched', 'duplicate', 'ignored'] as const;
export const BankStatementEntryStatus = z.enum(BANK_STATEMENT_ENTRY_STATUSES).meta({ id: 'BankStatementEntryStatus' });
export type BankStatementEntryStatus = z.infer<typeof BankStatementEntryStatus>;

export const BankStatementEntry = z
  .object({
    id: z.string().meta({ example: 'bse_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('bank_statement_entry'),
    livemode: Livemode,
    booking_date: CalendarDate.nullable(),
    amount: z.int().describe('Minor units of `currency`, always positive; `credit_debit` tells the direction.'),
    currency: z.string(),
    credit_debit: z.enum(['credit', 'debit']),
    remittance_information: z.string().nullable().describe('The remittance lines (structured references and unstructured text), joined by spaces.'),
    counterparty_name: z.string().nullable().describe('Who sent (credit) or received (debit) the money.'),
    bank_reference: z.string().nullable().describe('The bank’s reference of the transaction (AcctSvcrRef).'),
    status: BankStatementEntryStatus.describe(
      '`matched`: a payment was recorded for it; `unmatched`: a credit no invoice could take (assign it by hand); `duplicate`: imported before, recorded nothing; `ignored`: not money received (a debit, an entry not booked, or a reversal of an earlier entry: `RvslInd`).',
    ),
    invoice: z.string().nullable().describe('`in_` ID of the invoice it paid.'),
    payment: z.string().nullable().describe('`pay_` ID of the payment it recorded.'),
  })
  .meta({ id: 'BankStatementEntry' });
export type BankStatementEntry = z.infer<typeof BankStatementEntry>;

const statementFields = {
  id: z.string().meta({ example: 'bst_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
  object: z.literal('bank_statement'),
  livemode: Livemode,
  account_iban: z.string().nullable().describe('The account the statement is of (its IBAN, or the other identification the bank gave).'),
  from: CalendarDate.nullable(),
  to: CalendarDate.nullable(),
  matched_count: z.int(),
  unmatched_count: z.int(),
  created: Timestamp,
};

export const BankStatement = z
  .object({ ...statementFields, entries: z.object({ object: z.literal('list'), data: z.array(BankStatementEntry) }) })
  .meta({ id: 'BankStatement' });
export type BankStatement = z.infer<typeof BankStatement>;

export const BankStatementSummary = z.object(statementFields).meta({ id: 'BankStatementSummary' });
export type BankStatementSummary = z.infer<typeof BankStatementSummary>;

export const BankStatementBody = z
  .string()
  .describe(
    `An ISO 20022 camt.053 or camt.054 document of version 001.02, 001.04 or 001.08, sent with \`Content-Type: ${BANK_STATEMENT_CONTENT_TYPE}\`, at most 10 MB. It is checked against the ISO 20022 schema of its version; a document type definition (DOCTYPE) is refused.`,
  )
  .meta({
    id: 'BankStatementBody',
    examples: [
      `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>STMT-2026-11-20</MsgId><CreDtTm>2026-11-20T18:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>STMT-2026-11-20-1</Id>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
      <Ntry>
        <Amt Ccy="EUR">1190.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>2026-11-20</Dt></BookgDt><AcctSvcrRef>TRF-0001</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Müller GmbH</Nm></Pty></Dbtr></RltdPties><RmtInf><Ustrd>Invoice INV/2026/0001</Ustrd></RmtInf></TxDtls></NtryDtls>
      </Ntry>
    </Stmt>
  </BkToCstmrStmt>
</Document>
`,
    ],
  });

export const BankStatementEntryPathParams = z.strictObject({
  id: z.string().max(100).describe('`bst_` ID.'),
  entry_id: z.string().max(100).describe('`bse_` ID.'),
});

export const MatchBankStatementEntryBody = z
  .strictObject({ invoice: idReference('invoice').describe('`in_` ID of an open or overdue invoice in the entry’s currency with `amount_remaining` ≥ the entry’s amount.') })
  .meta({ id: 'MatchBankStatementEntryBody' });
export type MatchBankStatementEntryBody = z.infer<typeof MatchBankStatementEntryBody>;

const tag = 'Bank statements';
const service = 'billing';

export const importBankStatement = defineOperation({
  operationId: 'importBankStatement',
  summary: 'Import a bank statement (camt.053 or camt.054) and match its credits to invoices',
  description:
    'Each credit entry (each transaction of a batch booking) whose remittance information holds an open or overdue invoice’s `remittance_reference` or number (also as people type it: spaces, no separators, any case), in the invoice’s currency, for at most its `amount_remaining`, records a payment (`method: "bank_transfer"`, `payment_reference`: the bank’s reference) and is `matched`; other credits are `unmatched`; debits, entries not booked and reversals are `ignored`. A credit imported before (the same account and bank reference, or without one the same date, amount and remittance information) is `duplicate` and records nothing, also when the same statement is imported several times at once. A document that is not a readable camt.053/054, or not valid against its ISO 20022 schema, is a 400 naming what is wrong, and nothing is recorded.',
  tag, service, method: 'POST', path: '/api/v1/bank_statements', scope: 'payments:write', idempotency: 'optional',
  body: BankStatementBody,
  bodyContentType: BANK_STATEMENT_CONTENT_TYPE,
  bodyLimitBytes: BANK_STATEMENT_MAX_BYTES,
  responses: { 201: { description: 'The statement imported, with every entry and what became of it.', schema: dataOf(BankStatement) } },
});

export const listBankStatements = defineOperation({
  operationId: 'listBankStatements',
  summary: 'List imported bank statements, newest first',
  tag, service, method: 'GET', path: '/api/v1/bank_statements', scope: 'invoices:read', idempotency: 'none',
  query: PageQuery,
  responses: { 200: { description: 'A page of statements, without their entries.', schema: pageOf(BankStatementSummary) } },
});

export const retrieveBankStatement = defineOperation({
  operationId: 'retrieveBankStatement',
  summary: 'Retrieve a bank statement with its entries',
  tag, service, method: 'GET', path: '/api/v1/bank_statements/:id', scope: 'invoices:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The statement with every entry.', schema: dataOf(BankStatement) } },
});

export const matchBankStatementEntry = defineOperation({
  operationId: 'matchBankStatementEntry',
  summary: 'Assign an unmatched statement entry to an invoice by hand',
  description:
    'Records the entry’s payment on the invoice under the same rules as an import (open or overdue, same currency, at most `amount_remaining`: 400 otherwise). An entry that is not `unmatched` is a 409 `invalid_state`.',
  tag, service, method: 'POST', path: '/api/v1/bank_statements/:id/entries/:entry_id/match', scope: 'payments:write', idempotency: 'optional',
  params: BankStatementEntryPathParams,
  body: MatchBankStatementEntryBody,
  responses: { 200: { description: 'The entry, now matched.', schema: dataOf(BankStatementEntry) } },
});

export const bankStatementOperations = [importBankStatement, listBankStatements, retrieveBankStatement, matchBankStatementEntry];
