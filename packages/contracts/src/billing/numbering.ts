import { z } from 'zod';
import { dataOf, Livemode, Timestamp } from '../common.ts';
import { defineOperation } from '../operation.ts';

/** A run of sequence values that no invoice holds although the counter passed them. */
export const NumberGap = z
  .object({
    first_sequence: z.int(),
    last_sequence: z.int(),
    first_number: z.string(),
    last_number: z.string(),
    count: z.int(),
  })
  .meta({ id: 'NumberGap' });

/** One series (format and period) as recounted from the invoices that hold its numbers. */
export const NumberSeries = z
  .object({
    object: z.literal('number_series'),
    livemode: Livemode,
    format: z.string(),
    period: z.string().nullable().describe('`2026`, `2026-11`, or null for a format without a period.'),
    issued: z.int().describe('Invoices holding a number of this series.'),
    first_number: z.string().nullable(),
    last_number: z.string().nullable(),
    last_sequence: z.int().describe('The counter: the last sequence value taken.'),
    next_number: z.string().describe('The number the next finalization in this series would take (nothing is reserved).'),
    gaps: z.array(NumberGap).describe('Sequence values up to the counter that no invoice holds; always empty unless rows were removed.'),
  })
  .meta({ id: 'NumberSeries' });
export type NumberSeries = z.infer<typeof NumberSeries>;

export const Numbering = z
  .object({
    object: z.literal('numbering'),
    livemode: Livemode,
    number_format: z.string().describe('The format finalization uses now.'),
    timezone: z.string(),
    current_period: z.string().nullable(),
    next_number: z.string().describe('The number a finalization now would take (nothing is reserved).'),
    gap_free: z.boolean(),
    series: z.array(NumberSeries).describe('Every series ever used, newest period first.'),
  })
  .meta({
    id: 'Numbering',
    examples: [
      {
        object: 'numbering',
        livemode: true,
        number_format: 'INV-{YYYY}-{SEQ:4}',
        timezone: 'Europe/Berlin',
        current_period: '2026',
        next_number: 'INV-2026-0043',
        gap_free: true,
        series: [
          { object: 'number_series', livemode: true, format: 'INV-{YYYY}-{SEQ:4}', period: '2026', issued: 42, first_number: 'INV-2026-0001', last_number: 'INV-2026-0042', last_sequence: 42, next_number: 'INV-2026-0043', gaps: [] },
        ],
      },
    ],
  });
export type Numbering = z.infer<typeof Numbering>;

export const CHAIN_BREAK_REASONS = ['snapshot_mismatch', 'chain_mismatch', 'missing_number', 'counter_mismatch'] as const;

export const ChainBreak = z
  .object({
    format: z.string(),
    period: z.string().nullable(),
    sequence: z.int(),
    number: z.string(),
    invoice: z.string().nullable().describe('`in_` ID of the invoice where the chain breaks; null when the number has no invoice.'),
    reason: z.enum(CHAIN_BREAK_REASONS).meta({ id: 'ChainBreakReason' }).describe(
      '`snapshot_mismatch`: the invoice no longer hashes to its snapshot_sha256 (edited); `chain_mismatch`: its chain_sha256 does not follow from the previous invoice (edited or removed); `missing_number`: no invoice holds this number (removed); `counter_mismatch`: the series counter disagrees with the invoices.',
    ),
  })
  .meta({ id: 'ChainBreak' });
export type ChainBreak = z.infer<typeof ChainBreak>;

export const NumberingVerification = z
  .object({
    object: z.literal('numbering_verification'),
    livemode: Livemode,
    verified: z.boolean().describe('True when every series recounts without a gap and every hash recomputes.'),
    series_checked: z.int(),
    invoices_checked: z.int(),
    first_break: ChainBreak.nullable(),
    checked_at: Timestamp,
  })
  .meta({ id: 'NumberingVerification' });
export type NumberingVerification = z.infer<typeof NumberingVerification>;

const tag = 'Numbering';
const service = 'billing';

export const retrieveNumbering = defineOperation({
  operationId: 'retrieveNumbering',
  summary: 'Invoice number series: issued counts, next numbers and gaps',
  description: 'Recounts every series from the invoices themselves. There must never be a gap.',
  tag, service, method: 'GET', path: '/api/v1/numbering', scope: 'invoices:read', idempotency: 'none',
  responses: { 200: { description: 'The numbering report.', schema: dataOf(Numbering) } },
});

export const verifyNumbering = defineOperation({
  operationId: 'verifyNumbering',
  summary: 'Recompute every finalized invoice’s hash chain',
  description:
    'Recomputes snapshot_sha256 from each finalized invoice and chain_sha256 along each series, and reports the first break: any edit or deletion of a finalized invoice shows up here.',
  tag, service, method: 'GET', path: '/api/v1/numbering/verify', scope: 'invoices:read', idempotency: 'none',
  responses: { 200: { description: 'The verification result.', schema: dataOf(NumberingVerification) } },
});

export const numberingOperations = [retrieveNumbering, verifyNumbering];
