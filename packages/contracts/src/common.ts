import { z } from 'zod';
import { COUNTRY_CODES, isCountryCode } from './countries.ts';
import { documentCaseInsensitiveEnum, inputJsonSchemaOf, referenceComponent } from './schema-documentation.ts';

/** The component name a schema was registered under (`.meta({ id })`), if any. */
const idOf = (schema: z.ZodType): string | undefined => z.globalRegistry.get(schema)?.id;

/**
 * One envelope per item schema, so each is one named component of the document (`InvoiceData`,
 * `InvoicePage`) that every operation returning it references, rather than a copy per operation.
 */
const envelopes = new WeakMap<z.ZodType, { data?: z.ZodType; page?: z.ZodType }>();
const envelopeOf = <E extends z.ZodType>(item: z.ZodType, kind: 'data' | 'page', make: () => E, suffix: string): E => {
  const known = envelopes.get(item) ?? {};
  envelopes.set(item, known);
  if (known[kind]) return known[kind] as E;
  const id = idOf(item);
  const made = id ? (make().meta({ id: `${id}${suffix}` }) as unknown as E) : make();
  known[kind] = made;
  return made;
};

/** Success envelope of a single resource. */
export const dataOf = <T extends z.ZodType>(item: T) => envelopeOf(item, 'data', () => z.object({ data: item }), 'Data');

/** Success envelope of a list page; `next_cursor` is null on the last page. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  envelopeOf(item, 'page', () => z.object({ data: z.array(item), next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.') }), 'Page');

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `cursor` and `limit`, shared by every list endpoint. */
export const PageQuery = z.strictObject({
  cursor: z.string().max(512).optional().describe('The `next_cursor` of the previous page; omit for the first page.'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(DEFAULT_PAGE_SIZE)
    .describe(`Page size, 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.`),
});

/**
 * A boolean query parameter: a query string carries text, so the server takes the words `true` and
 * `false`, which is how generated clients write a boolean. The document says `boolean`, so they
 * offer one.
 */
export const BooleanQuery = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .meta({
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      delete jsonSchema.enum;
      jsonSchema.type = 'boolean';
    },
  });

/** Free-text search (`q`): partial and case-insensitive. */
/** Text that trims to at least one character: the document's pattern for a required text field. */
export const NOT_BLANK = '\\S';

export const SearchQuery = z.string().trim().min(1).max(200).meta({ pattern: NOT_BLANK }).describe('Free-text search, partial and case-insensitive.');

/** Which data an object is: live, or test mode's (made with a test key, `inv_test_…`), which live keys never see. */
export const Livemode = z.boolean().describe('True for live data; false for test mode data, made and seen only with a test key (`inv_test_…`).');

export const METADATA_KEYS_MAX = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_VALUE_MAX = 500;

const MetadataKey = z.string().min(1, 'a metadata key is not empty').max(METADATA_KEY_MAX);
const atMostKeys = (metadata: Record<string, string>): boolean => Object.keys(metadata).length <= METADATA_KEYS_MAX;
const TOO_MANY_KEYS = { message: `at most ${METADATA_KEYS_MAX} keys` };

/** decisions.md "metadata": the client's own string pairs on an object, `{}` when none. */
export const Metadata = z
  .record(z.string(), z.string())
  .describe(`Your own key-value pairs: up to ${METADATA_KEYS_MAX} keys (at most ${METADATA_KEY_MAX} characters) with string values (at most ${METADATA_VALUE_MAX}); \`{}\` when none.`)
  .meta({ id: 'Metadata' });
export type Metadata = z.infer<typeof Metadata>;

/** Metadata as sent on create and update: merged by key into what the object has; a key sent as "" is removed. */
export const MetadataInput = z
  .record(MetadataKey, z.string().max(METADATA_VALUE_MAX))
  .refine(atMostKeys, TOO_MANY_KEYS)
  .describe(
    `Up to ${METADATA_KEYS_MAX} keys (at most ${METADATA_KEY_MAX} characters) with string values (at most ${METADATA_VALUE_MAX}). Merged by key into the object's metadata: a key sent as "" is removed, keys not sent stay. More than ${METADATA_KEYS_MAX} keys after the merge is a 400.`,
  )
  .meta({ id: 'MetadataInput', maxProperties: METADATA_KEYS_MAX, example: { order_id: '6735' } });
export type MetadataInput = z.infer<typeof MetadataInput>;

/**
 * The `metadata[key]=value` filter of a list (deepObject): only objects whose metadata holds every
 * pair. A list query's shape takes it with `...MetadataFilterQuery.shape`. Fastify's parser leaves
 * `metadata[key]` a flat key: `gatherMetadataQuery` folds those into this object before validation
 * (service-kit's `registerOperation` does, for every list that takes it).
 */
export const MetadataFilterQuery = z.strictObject({
  metadata: z
    .record(MetadataKey, z.string().min(1, 'a metadata value to filter on is not empty').max(METADATA_VALUE_MAX))
    .refine(atMostKeys, TOO_MANY_KEYS)
    .optional()
    .meta({
      description: 'Only objects whose metadata has every pair given, such as `metadata[order_id]=6735` (several pairs: all must match).',
      maxProperties: METADATA_KEYS_MAX,
      param: { style: 'deepObject', explode: true },
      example: { order_id: '6735' },
    }),
});

const METADATA_PARAMETER = /^metadata\[(.*)\]$/s;

/**
 * A parsed query string with its `metadata[key]` parameters gathered into one `metadata` object,
 * as the list query schemas take them. Anything else is left as it came, so a malformed filter
 * (`metadata=x`, a key sent twice, `metadata[a]` beside `metadata=x`) fails their validation.
 */
export const gatherMetadataQuery = (query: unknown): unknown => {
  if (typeof query !== 'object' || query === null) return query;
  const parameters = Object.entries(query).map(([name, value]) => ({ name, key: METADATA_PARAMETER.exec(name)?.[1], value }));
  if (!parameters.some(({ key }) => key !== undefined) || 'metadata' in query) return query;
  return {
    ...Object.fromEntries(parameters.filter(({ key }) => key === undefined).map(({ name, value }) => [name, value])),
    // fromEntries makes each key an own property, `__proto__` included.
    metadata: Object.fromEntries(parameters.filter(({ key }) => key !== undefined).map(({ key, value }) => [key, value])),
  };
};

/** An ISO 8601 datetime in UTC with milliseconds. */
export const Timestamp = z.iso.datetime().meta({ example: '2026-11-22T10:00:00.000Z' });

/** A calendar date, `YYYY-MM-DD`. */
export const CalendarDate = z.iso.date().meta({ example: '2026-11-22' });

/** A span of whole days, both ends included, as EN 16931 states periods (BG-14, BG-26). */
export const Period = z
  .object({ start: CalendarDate.describe('First day.'), end: CalendarDate.describe('Last day, included.') })
  .meta({ id: 'Period' });
export type Period = z.infer<typeof Period>;

export const PeriodInput = z
  .strictObject({ start: CalendarDate.describe('First day.'), end: CalendarDate.describe('Last day, included; not before `start`.') })
  .refine((period) => period.start <= period.end, { message: 'end must not be before start', path: ['end'] })
  .meta({ id: 'PeriodInput' });

/**
 * A monetary amount: an integer in the currency's minor unit, never above Number.MAX_SAFE_INTEGER.
 * z.int() holds that bound itself (and documents it as `maximum`); repeating it with .max() would
 * report one value above it twice.
 */
export const MinorAmount = z.int().min(0);

/**
 * The body of an action that takes no fields (finalize, rotate a public link): the object exists
 * so that a body with fields is refused like anywhere else, instead of being ignored.
 */
export const NoFieldsBody = z
  .strictObject({})
  .describe('No fields: send no body, or `{}`. Any field is refused (400, `unknown field`).')
  .meta({ id: 'NoFieldsBody', examples: [{}] });

/** The note every optional text field carries in the reference. */
export const OPTIONAL_TEXT_RULE = 'Trimmed; an empty string or null means no value (on update it clears the field).';

/**
 * An optional text field of a body, on create and update alike. Surrounding whitespace is trimmed,
 * and text that is then empty means "no value": it becomes null, as null itself does, since a
 * field without a value is null (decisions.md) and never an empty string. A value that remains
 * must pass `format` (an email address, a country code), which may also transform it.
 * `tooLong` replaces the generic message for a value above `max`, where the format says it better.
 */
export const optionalText = <Out = string>(max: number, options: { format?: z.ZodType<Out, string>; tooLong?: string } = {}) => {
  const text = z
    .string()
    .trim()
    .max(max, options.tooLong)
    .nullable()
    .transform((value) => (value === '' ? null : value))
    .pipe((options.format ?? z.string()).nullable() as z.ZodType<Out | null, string | null>);
  return text.meta({ description: OPTIONAL_TEXT_RULE, ...(options.format ? { override: documentFormat(options.format, max) } : {}) });
};

/**
 * The reference shows what a formatted field takes: a value in its format, "" or null. Rendered
 * as is, it would show the input side of the trim alone, a plain string.
 */
const documentFormat = (format: z.ZodType, max: number) => {
  const id = z.globalRegistry.get(format)?.id;
  const formatted = id ? referenceComponent(id, format) : { ...inputJsonSchemaOf(format), maxLength: max };
  return ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    jsonSchema.anyOf = [formatted, { const: '' }, { type: 'null' }];
  };
};

export const EMAIL_MAX = 254;

/**
 * An email address whose domain is a host name: labels of 1 to 63 letters, digits and hyphens,
 * neither starting nor ending with a hyphen, and a top-level label of letters. Zod's default
 * pattern lets `billing@acme-.example` and 64+ character labels through, which then reach
 * e-invoices as electronic addresses that no mail server takes.
 */
export const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
export const EmailAddress = () => z.email({ pattern: EMAIL_PATTERN });
export const isEmailAddress = (value: string): boolean => EmailAddress().safeParse(value).success;

/** An optional email address: a valid address, or "" / null for none. */
export const optionalEmail = () => optionalText(EMAIL_MAX, { format: EmailAddress() }).meta({ description: `An email address. ${OPTIONAL_TEXT_RULE}` });

const COUNTRY_CODE_RULE = 'must be an ISO 3166-1 alpha-2 country code';
export const CountryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, COUNTRY_CODE_RULE)
  .transform((code) => code.toUpperCase())
  .refine(isCountryCode, COUNTRY_CODE_RULE)
  .meta({
    id: 'CountryCode',
    description: 'An assigned ISO 3166-1 alpha-2 country code. Listed uppercase; the server also accepts it in lower or mixed case and returns it uppercase.',
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => documentCaseInsensitiveEnum(jsonSchema, COUNTRY_CODES),
  });

export const Address = z
  .object({
    line1: z.string().max(200).nullable(),
    line2: z.string().max(200).nullable(),
    city: z.string().max(200).nullable(),
    state: z.string().max(200).nullable(),
    postal_code: z.string().max(40).nullable(),
    country: z.string().nullable().describe('ISO 3166-1 alpha-2, uppercase.'),
  })
  .meta({ id: 'Address' });
export type Address = z.infer<typeof Address>;

/** Address as sent by clients: every key optional; on update only the keys sent change. */
export const AddressInput = z
  .strictObject({
    line1: optionalText(200).optional(),
    line2: optionalText(200).optional(),
    city: optionalText(200).optional(),
    state: optionalText(200).optional(),
    postal_code: optionalText(40).optional(),
    country: optionalText(2, { format: CountryCode, tooLong: COUNTRY_CODE_RULE })
      .optional()
      .meta({ description: `ISO 3166-1 alpha-2, any case; returned uppercase. ${OPTIONAL_TEXT_RULE}` }),
  })
  .meta({ id: 'AddressInput' });
export type AddressInput = z.infer<typeof AddressInput>;

/**
 * Electronic address schemes (EN 16931 BT-34 / BT-49 `schemeID`): the EAS code list, four-digit
 * codes such as `0204` (Leitweg-ID) or `9930` (German VAT number), and its letter codes, `EM`
 * (an email address) among them.
 */
const ELECTRONIC_ADDRESS_SCHEME_RULE = 'must be an EAS code: four digits such as 0204 or 9930, or one of EM, AN, AQ, AS, AU';
export const ElectronicAddressScheme = z
  .string()
  .regex(/^(\d{4}|[Aa][NnQqSsUu]|[Ee][Mm])$/, ELECTRONIC_ADDRESS_SCHEME_RULE)
  .transform((code) => code.toUpperCase());

/** The scheme of an email address, which an electronic address without a scheme is. */
export const EMAIL_ADDRESS_SCHEME = 'EM';
export const ELECTRONIC_ADDRESS_MAX = 254;

export const optionalElectronicAddress = () =>
  optionalText(ELECTRONIC_ADDRESS_MAX).meta({
    description: `Where e-invoices are delivered (EN 16931 BT-34 for the seller, BT-49 for the buyer): an email address unless \`electronic_address_scheme\` names another scheme. ${OPTIONAL_TEXT_RULE}`,
    example: 'invoices@example.com',
  });

export const optionalElectronicAddressScheme = () =>
  optionalText(4, { format: ElectronicAddressScheme, tooLong: ELECTRONIC_ADDRESS_SCHEME_RULE }).meta({
    description: `EAS code of \`electronic_address\`, any case, returned uppercase: \`0204\` for a Leitweg-ID, \`9930\` for a German VAT number, \`EM\` for email; null means email. ${OPTIONAL_TEXT_RULE}`,
    example: '0204',
  });

/**
 * Why an electronic address and its scheme do not fit together, or null. Checked on the stored
 * result of a write (either may come in another request): without a scheme, or with `EM`, the
 * address must be an email address.
 */
export const electronicAddressProblem = (address: string | null | undefined, scheme: string | null | undefined): string | null => {
  if (address == null) return null;
  if ((scheme == null || scheme === EMAIL_ADDRESS_SCHEME) && !isEmailAddress(address)) {
    return 'must be an email address unless electronic_address_scheme names another scheme (such as 0204 for a Leitweg-ID)';
  }
  return null;
};
