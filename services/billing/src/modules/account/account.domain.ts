import {
  DEFAULT_CURRENCY,
  DEFAULT_NUMBER_FORMAT,
  DEFAULT_TIMEZONE,
  type Account,
  type Address,
  type AddressInput,
  type BusinessSnapshot,
  type UpdateAccountBody,
} from '@invoicing/contracts';
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

/** The fields a PATCH changes; omitted fields keep their values. */
export const accountChanges = (current: AccountRow, patch: UpdateAccountBody, now: Date): Partial<AccountRow> => ({
  ...(patch.business_name !== undefined ? { businessName: patch.business_name } : {}),
  ...(patch.email !== undefined ? { email: patch.email } : {}),
  ...(patch.address !== undefined ? { address: mergeAddress(current.address, patch.address) } : {}),
  ...(patch.tax_id !== undefined ? { taxId: patch.tax_id } : {}),
  ...(patch.default_currency !== undefined ? { defaultCurrency: patch.default_currency } : {}),
  ...(patch.timezone !== undefined ? { timezone: patch.timezone } : {}),
  ...(patch.number_format !== undefined ? { numberFormat: patch.number_format } : {}),
  ...(patch.payment_instructions !== undefined ? { paymentInstructions: patch.payment_instructions } : {}),
  ...(patch.brand_color !== undefined ? { brandColor: patch.brand_color } : {}),
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
});

/** What finalization freezes of the seller; later edits to the account do not reach it. */
export const businessSnapshotOf = (row: AccountRow): BusinessSnapshot => ({
  business_name: row.businessName ?? null,
  email: row.email ?? null,
  address: row.address,
  tax_id: row.taxId ?? null,
  payment_instructions: row.paymentInstructions ?? null,
  brand_color: row.brandColor ?? null,
});
