import {
  EMAIL_ADDRESS_SCHEME,
  electronicAddressProblem,
  DEFAULT_CURRENCY,
  DEFAULT_LOCALE,
  DEFAULT_EMAIL_ATTACHMENTS,
  DEFAULT_NUMBER_FORMAT,
  DEFAULT_TIMEZONE,
  type Account,
  type Address,
  type AddressInput,
  type BusinessSnapshot,
  type UpdateAccountBody,
} from '@invoicing/contracts';
import { invalidRequest } from '@invoicing/service-kit/app-error';
import type { AccountRow } from './account.entity.ts';

export const EMPTY_ADDRESS: Address = { line1: null, line2: null, city: null, state: null, postal_code: null, country: null };

/** The settings of a workspace that never saved any: what GET shows and finalization uses. */
export const defaultAccount = (workspaceId: string, now: Date): AccountRow => ({
  workspaceId,
  businessName: null,
  email: null,
  address: EMPTY_ADDRESS,
  taxId: null,
  defaultCurrency: DEFAULT_CURRENCY,
  timezone: DEFAULT_TIMEZONE,
  numberFormat: DEFAULT_NUMBER_FORMAT,
  paymentInstructions: null,
  brandColor: null,
  phone: null,
  contactName: null,
  electronicAddress: null,
  electronicAddressScheme: null,
  paymentAccount: null,
  pdfFormat: 'standard',
  locale: DEFAULT_LOCALE,
  einvoiceRequired: 'none',
  sendOnFinalize: false,
  emailAttachments: [...DEFAULT_EMAIL_ATTACHMENTS],
  reminderDays: [],
  replyTo: null,
  createdAt: now,
  updatedAt: now,
});

/** Only the keys sent change; a key sent as null clears that line. */
export const mergeAddress = (current: Address, sent: AddressInput | undefined): Address => {
  const merged = { ...current };
  for (const key of Object.keys(EMPTY_ADDRESS) as (keyof Address)[]) {
    const value = sent?.[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
};

/**
 * The fields a PATCH changes; omitted fields keep their values. The electronic address is checked
 * with its scheme as they will be stored (either may come alone): 400 on `electronic_address`.
 */
export const accountChanges = (current: AccountRow, patch: UpdateAccountBody, now: Date): Partial<AccountRow> => {
  const changes = settingsChanges(current, patch, now);
  const { electronicAddress, electronicAddressScheme } = { ...current, ...changes };
  const problem = electronicAddressProblem(electronicAddress, electronicAddressScheme);
  if (problem) throw invalidRequest(`electronic_address ${problem}.`, [{ path: 'electronic_address', message: problem }]);
  return changes;
};

const settingsChanges = (current: AccountRow, patch: UpdateAccountBody, now: Date): Partial<AccountRow> => ({
  ...(patch.business_name !== undefined ? { businessName: patch.business_name } : {}),
  ...(patch.email !== undefined ? { email: patch.email } : {}),
  ...(patch.address !== undefined ? { address: mergeAddress(current.address, patch.address) } : {}),
  ...(patch.tax_id !== undefined ? { taxId: patch.tax_id } : {}),
  ...(patch.default_currency !== undefined ? { defaultCurrency: patch.default_currency } : {}),
  ...(patch.timezone !== undefined ? { timezone: patch.timezone } : {}),
  ...(patch.number_format !== undefined ? { numberFormat: patch.number_format } : {}),
  ...(patch.payment_instructions !== undefined ? { paymentInstructions: patch.payment_instructions } : {}),
  ...(patch.brand_color !== undefined ? { brandColor: patch.brand_color } : {}),
  ...(patch.phone !== undefined ? { phone: patch.phone } : {}),
  ...(patch.contact_name !== undefined ? { contactName: patch.contact_name } : {}),
  ...(patch.electronic_address !== undefined ? { electronicAddress: patch.electronic_address } : {}),
  ...(patch.electronic_address_scheme !== undefined ? { electronicAddressScheme: patch.electronic_address_scheme } : {}),
  ...(patch.payment_account !== undefined
    ? { paymentAccount: patch.payment_account && { iban: patch.payment_account.iban, bic: patch.payment_account.bic ?? null, name: patch.payment_account.name ?? null } }
    : {}),
  ...(patch.pdf_format !== undefined ? { pdfFormat: patch.pdf_format } : {}),
  ...(patch.locale !== undefined ? { locale: patch.locale } : {}),
  ...(patch.einvoice_required !== undefined ? { einvoiceRequired: patch.einvoice_required } : {}),
  // E-mail delivery settings.
  ...(patch.send_on_finalize !== undefined ? { sendOnFinalize: patch.send_on_finalize } : {}),
  ...(patch.email_attachments !== undefined ? { emailAttachments: patch.email_attachments } : {}),
  ...(patch.reminder_days !== undefined ? { reminderDays: [...patch.reminder_days].sort((a, b) => a - b) } : {}),
  ...(patch.reply_to !== undefined ? { replyTo: patch.reply_to } : {}),
  updatedAt: now,
});

export const accountView = (row: AccountRow): Account => ({
  object: 'account',
  business_name: row.businessName ?? null,
  email: row.email ?? null,
  address: row.address,
  tax_id: row.taxId ?? null,
  default_currency: row.defaultCurrency,
  timezone: row.timezone,
  number_format: row.numberFormat,
  payment_instructions: row.paymentInstructions ?? null,
  brand_color: row.brandColor ?? null,
  phone: row.phone ?? null,
  contact_name: row.contactName ?? null,
  electronic_address: row.electronicAddress ?? null,
  electronic_address_scheme: row.electronicAddressScheme ?? null,
  payment_account: row.paymentAccount ?? null,
  payment_means: [], // #25 placeholder: parties and payment means
  trading_name: null, // #25 placeholder
  registration_id: null, // #25 placeholder
  registration_id_scheme: null, // #25 placeholder
  legal_info: null, // #25 placeholder
  tax_representative: null, // #25 placeholder
  pdf_format: row.pdfFormat ?? 'standard',
  locale: row.locale,
  einvoice_required: row.einvoiceRequired,
  // E-mail delivery settings.
  send_on_finalize: row.sendOnFinalize ?? false,
  email_attachments: row.emailAttachments ?? [...DEFAULT_EMAIL_ATTACHMENTS],
  reminder_days: row.reminderDays ?? [],
  reply_to: row.replyTo ?? null,
});

/**
 * Where e-invoices reach a party: its electronic address with its scheme, else its email address
 * (scheme `EM`), as decisions.md defaults it; null when it has neither. The scheme is always
 * written out, so an export never has to guess it (BR-62, BR-63).
 */
export const electronicAddressOf = (party: {
  electronicAddress?: string | null | undefined;
  electronicAddressScheme?: string | null | undefined;
  email?: string | null | undefined;
}): { electronic_address: string | null; electronic_address_scheme: string | null } => {
  if (party.electronicAddress != null) return { electronic_address: party.electronicAddress, electronic_address_scheme: party.electronicAddressScheme ?? EMAIL_ADDRESS_SCHEME };
  if (party.email != null) return { electronic_address: party.email, electronic_address_scheme: EMAIL_ADDRESS_SCHEME };
  return { electronic_address: null, electronic_address_scheme: null };
};

/** What finalization freezes of the seller; later edits to the account do not reach it. */
export const businessSnapshotOf = (row: AccountRow): BusinessSnapshot => ({
  business_name: row.businessName ?? null,
  email: row.email ?? null,
  address: row.address,
  tax_id: row.taxId ?? null,
  payment_instructions: row.paymentInstructions ?? null,
  brand_color: row.brandColor ?? null,
  phone: row.phone ?? null,
  contact_name: row.contactName ?? null,
  ...electronicAddressOf(row),
  payment_account: row.paymentAccount ?? null,
  trading_name: null, // #25 placeholder: parties and payment means
  registration_id: null, // #25 placeholder
  registration_id_scheme: null, // #25 placeholder
  legal_info: null, // #25 placeholder
  tax_representative: null, // #25 placeholder
});
