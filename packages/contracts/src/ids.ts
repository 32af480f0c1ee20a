import { z } from 'zod';

/** Public ID prefixes: the prefix plus the 32 lowercase hex digits of the row's UUIDv7. */
export const ID_PREFIX = {
  customer: 'cus',
  product: 'prod',
  price: 'price',
  invoice: 'in',
  invoiceItem: 'ii',
  subscription: 'sub',
  subscriptionItem: 'si',
  webhookEndpoint: 'we',
  event: 'evt',
  deliveryAttempt: 'att',
  apiKey: 'key',
  workspace: 'ws',
  payment: 'pay',
  bankStatement: 'bst',
  bankStatementEntry: 'bse',
  message: 'msg',
  invoiceAttachment: 'att',
  testClock: 'clock',
} as const;
export type IdKind = keyof typeof ID_PREFIX;

const DASHED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX32 = /^[0-9a-f]{32}$/;

/** `cus_0190f3e2...` from a dashed UUID. */
export const toPublicId = (kind: IdKind, uuid: string): string =>
  `${ID_PREFIX[kind]}_${uuid.replaceAll('-', '').toLowerCase()}`;

/**
 * The dashed UUID behind a public ID of this kind, or behind a dashed UUID itself;
 * undefined for anything else (another kind's prefix, wrong length, not hex).
 */
export const parsePublicId = (kind: IdKind, input: string): string | undefined => {
  if (DASHED_UUID.test(input)) return input.toLowerCase();
  const prefix = `${ID_PREFIX[kind]}_`;
  if (!input.startsWith(prefix)) return undefined;
  const hex = input.slice(prefix.length);
  if (!HEX32.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** The `id` path parameter: any string; one that names nothing is a 404, not a 400. */
export const IdPathParams = z.strictObject({
  id: z.string().max(100).describe('Prefixed public ID or the dashed UUID.'),
});

/** What `parsePublicId` takes for one kind, as a pattern the document can state. */
export const idPattern = (kind: IdKind): RegExp => new RegExp(`^(?:${ID_PREFIX[kind]}_[0-9a-f]{32}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})$`);

/**
 * An ID in a request body or list filter: the prefixed form or the dashed UUID, parsed to the UUID.
 * A malformed value or another resource's prefix is a 400.
 */
export const idReference = (kind: IdKind) =>
  z
    .string()
    .regex(idPattern(kind), `must be a ${ID_PREFIX[kind]}_ ID or a UUID`)
    .transform((value, ctx) => {
      const uuid = parsePublicId(kind, value);
      if (uuid === undefined) {
        ctx.addIssue({ code: 'custom', message: `must be a ${ID_PREFIX[kind]}_ ID or a UUID` });
        return z.NEVER;
      }
      return uuid;
    })
    .meta({ description: `A \`${ID_PREFIX[kind]}_\` ID or the dashed UUID.`, example: `${ID_PREFIX[kind]}_0190f3e2c1b27a8e9d1f3c4b5a697887` });
