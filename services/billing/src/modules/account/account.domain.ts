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
  type TaxRepresentative,
  type UpdateAccountBody,
} from '@invoicing/contracts';
import { invalidRequest } from '@invoicing/service-kit/app-error';
import type { AccountRow } from './account.entity.ts';
import { paymentAccountOf, paymentMeansOf, withPaymentAccount } from './payment-means.domain.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

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
  paymentMeans: [],
  tradingName: null,
  registrationId: null,
  registrationIdScheme: null,
  legalInfo: null,
  taxRepresentative: null,
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
 * with its scheme as they will be stored (either may come alone): 400 on `electronic_address`;
 * so is the registration identifier with its scheme: 400 on `registration_id_scheme`.
 * `payment_account` edits the first credit transfer of `payment_means`, so the two in one request
 * would contradict each other: 400 on both.
 */
export const accountChanges = (current: AccountRow, patch: UpdateAccountBody, now: Date): Partial<AccountRow> => {
  if (patch.payment_account !== undefined && patch.payment_means !== undefined) {
    const message = 'payment_account is the first credit_transfer entry of payment_means: send one of them';
    throw invalidRequest(`payment_account and payment_means may not be sent together.`, [
      { path: 'payment_account', message },
      { path: 'payment_means', message },
    ]);
  }
  const changes = settingsChanges(current, patch, now);
  const stored = { ...current, ...changes };
  const problem = electronicAddressProblem(stored.electronicAddress, stored.electronicAddressScheme);
  if (problem) throw invalidRequest(`electronic_address ${problem}.`, [{ path: 'electronic_address', message: problem }]);
  if (stored.registrationIdScheme != null && stored.registrationId == null) {
    throw invalidRequest('registration_id_scheme needs a registration_id.', [
      { path: 'registration_id_scheme', message: 'is the scheme of registration_id (BT-30), which is not set: send registration_id with it' },
    ]);
  }
  return changes;
};

const paymentMeansChanges = (current: AccountRow, patch: UpdateAccountBody): Partial<AccountRow> => {
  if (patch.payment_means !== undefined) return { paymentMeans: patch.payment_means.map(paymentMeansOf) };
  if (patch.payment_account !== undefined) return { paymentMeans: withPaymentAccount(current.paymentMeans ?? [], patch.payment_account) };
  return {};
};

const taxRepresentativeOf = (sent: NonNullable<UpdateAccountBody['tax_representative']>): TaxRepresentative => ({
  name: sent.name,
  tax_id: sent.tax_id,
  address: mergeAddress(EMPTY_ADDRESS, sent.address),
});

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
  ...paymentMeansChanges(current, patch),
  ...(patch.trading_name !== undefined ? { tradingName: patch.trading_name } : {}),
  ...(patch.registration_id !== undefined ? { registrationId: patch.registration_id } : {}),
  ...(patch.registration_id_scheme !== undefined ? { registrationIdScheme: patch.registration_id_scheme } : {}),
  ...(patch.legal_info !== undefined ? { legalInfo: patch.legal_info } : {}),
  // Replaced whole: null removes it.
  ...(patch.tax_representative !== undefined ? { taxRepresentative: patch.tax_representative && taxRepresentativeOf(patch.tax_representative) } : {}),
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
  livemode: livemodeOf(row.workspaceId),
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
  payment_account: paymentAccountOf(row.paymentMeans ?? []),
  payment_means: row.paymentMeans ?? [],
  trading_name: row.tradingName ?? null,
  registration_id: row.registrationId ?? null,
  registration_id_scheme: row.registrationIdScheme ?? null,
  legal_info: row.legalInfo ?? null,
  tax_representative: row.taxRepresentative ?? null,
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
  payment_account: paymentAccountOf(row.paymentMeans ?? []),
  trading_name: row.tradingName ?? null,
  registration_id: row.registrationId ?? null,
  registration_id_scheme: row.registrationIdScheme ?? null,
  legal_info: row.legalInfo ?? null,
  tax_representative: row.taxRepresentative ?? null,
});
