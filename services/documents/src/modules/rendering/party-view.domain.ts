import addressFormatter from '@fragaria/address-formatter';
import { DEFAULT_LOCALE, type Address, type Invoice } from '@invoicing/contracts';
import { fieldsFrom, nonBlank, type FieldView, type Writer } from './view-writer.domain.ts';

// The parties the invoice names: the seller, the buyer it is billed to and the seller's tax
// representative, each with its address as the post of its country expects it.

export interface PartyView {
  name: string | null;
  addressLines: string[];
  vatId: string | null;
  email: string | null;
  /** What else identifies the party: the seller's trading name and registration number, the buyer's identifier and contact. */
  details: FieldView[];
}

/**
 * The address as the post of its country expects it (OpenCage's per-country templates, through
 * `@fragaria/address-formatter`): "80331 München" in Germany, "London / SW1A 2AA" in Britain,
 * "Springfield, IL 62701" in the US. `line2` (an apartment, c/o) follows the street line; the
 * country's name, in the document's language, ends the address.
 */
export const addressLinesOf = (address: Address, locale: string = DEFAULT_LOCALE): string[] => {
  const street = nonBlank(address.line1);
  const formatted = addressFormatter.format(
    {
      ...(street ? { road: street } : {}),
      ...(nonBlank(address.city) ? { city: nonBlank(address.city)! } : {}),
      ...(nonBlank(address.state) ? { state: nonBlank(address.state)! } : {}),
      ...(nonBlank(address.postal_code) ? { postcode: nonBlank(address.postal_code)! } : {}),
      ...(nonBlank(address.country) ? { countryCode: nonBlank(address.country)!.toUpperCase() } : {}),
    },
    { output: 'array', appendCountry: false },
  );
  const lines = formatted.map((line) => line.trim()).filter((line) => line !== '');
  const extra = nonBlank(address.line2);
  if (extra) lines.splice(street ? 1 : 0, 0, extra);
  const country = nonBlank(address.country);
  if (country) lines.push(new Intl.DisplayNames(locale, { type: 'region', fallback: 'code' }).of(country.toUpperCase()) ?? country);
  return lines;
};

export const taxRepresentativeOf = (invoice: Invoice, lang: string): PartyView | null => {
  const representative = invoice.business_snapshot?.tax_representative;
  if (!representative) return null;
  return { name: representative.name, addressLines: addressLinesOf(representative.address, lang), vatId: nonBlank(representative.tax_id), email: null, details: [] };
};

/** The seller and the buyer print alike: their name, address, VAT id, email and what else identifies them. */
const partyOf = (
  name: string | null,
  party: { address: Address; tax_id: string | null; email: string | null },
  details: FieldView[],
  lang: string,
): PartyView => ({ name, addressLines: addressLinesOf(party.address, lang), vatId: nonBlank(party.tax_id), email: nonBlank(party.email), details });

export const sellerOf = (business: NonNullable<Invoice['business_snapshot']>, lang: string, { t }: Writer): PartyView =>
  partyOf(
    nonBlank(business.business_name),
    business,
    fieldsFrom([
      [t('trading_name'), business.trading_name],
      [t('registration_id'), business.registration_id],
    ]),
    lang,
  );

export const billToOf = (customer: NonNullable<Invoice['customer_snapshot']>, lang: string, { t }: Writer): PartyView =>
  partyOf(
    customer.name,
    customer,
    fieldsFrom([
      [t('customer_identifier'), customer.identifier],
      [t('contact'), customer.contact_name],
    ]),
    lang,
  );
