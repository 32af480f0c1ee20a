import type { Address } from '@invoicing/contracts';
import { amountOf, percentOf, priceOf, quantityOf } from './einvoice-amounts.domain.ts';
import {
  isVatIdentifier,
  partyIdentity,
  paymentMeansText,
  type EInvoice,
  type EInvoiceAllowanceCharge,
  type EInvoiceAttachment,
  type EInvoiceParty,
  type EInvoicePaymentMeans,
  type EInvoicePeriod,
  type EInvoiceProfile,
  type SchemedId,
} from './einvoice.domain.ts';
import { optional, serializeXml, type XmlNode } from './xml-tree.ts';

/** BT-24 of each profile. */
export const SPECIFICATION_IDS: Record<EInvoiceProfile, string> = {
  en16931: 'urn:cen.eu:en16931:2017',
  xrechnung: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
};
/** BT-23 that XRechnung names (the Peppol billing process). */
export const XRECHNUNG_BUSINESS_PROCESS = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
/** UNTDID 1001: commercial invoice. */
export const INVOICE_TYPE_CODE = '380';
/** UNTDID 4461: SEPA credit transfer. */
export const CREDIT_TRANSFER = '58';
/** UNTDID 5189: discount, the reason of every line allowance. */
export const DISCOUNT_REASON_CODE = '95';

const money = (minor: number, currency: string): XmlNode => ({ '@currencyID': currency, '#': amountOf(minor, currency) });

const postalAddress = (address: Address): XmlNode => ({
  'cbc:StreetName': optional(address.line1),
  'cbc:AdditionalStreetName': optional(address.line2),
  'cbc:CityName': optional(address.city),
  'cbc:PostalZone': optional(address.postal_code),
  'cbc:CountrySubentity': optional(address.state),
  'cac:Country': { 'cbc:IdentificationCode': address.country ?? '' },
});

/** An identifier with its scheme attribute when it has one. */
const schemedId = (id: SchemedId): XmlNode => (id.scheme ? { '@schemeID': id.scheme, '#': id.value } : { '#': id.value });

/**
 * VAT identifier (BT-31/BT-48) when the tax ID has a country prefix and VAT applies; otherwise the
 * seller's tax ID is its tax registration (BT-32) and a buyer's is left out (EN 16931 has no other place for it).
 */
const partyTaxSchemes = (party: EInvoiceParty, role: 'seller' | 'buyer', vatApplies: boolean): XmlNode[] => {
  if (party.taxId === null) return [];
  if (vatApplies && isVatIdentifier(party.taxId)) return [{ 'cbc:CompanyID': party.taxId.replace(/\s+/g, ''), 'cac:TaxScheme': { 'cbc:ID': 'VAT' } }];
  return role === 'seller' ? [{ 'cbc:CompanyID': party.taxId, 'cac:TaxScheme': { 'cbc:ID': 'TAX' } }] : [];
};

/** The seller's SEPA creditor identifier (BT-90) goes with the seller, or with the payee when there is one. */
const creditorIdOf = (einvoice: EInvoice): string | null => einvoice.paymentMeans.find((means) => means.directDebit?.creditorId)?.directDebit?.creditorId ?? null;
const creditorIdentification = (creditorId: string | null): XmlNode[] => (creditorId ? [{ 'cbc:ID': { '@schemeID': 'SEPA', '#': creditorId } }] : []);

const party = (einvoice: EInvoice, role: 'seller' | 'buyer'): XmlNode => {
  const { party: who, vatApplies, sellerIdentifier, contact } = partyIdentity(einvoice, role);
  const endpoint = who.electronicAddress;
  const { seller, buyer } = einvoice;
  const identifications: XmlNode[] =
    role === 'seller'
      ? [
          ...(sellerIdentifier ? [{ 'cbc:ID': sellerIdentifier }] : []),
          ...creditorIdentification(einvoice.payee ? null : creditorIdOf(einvoice)),
        ]
      : buyer.identifier
        ? [{ 'cbc:ID': schemedId(buyer.identifier) }]
        : [];
  return {
    'cbc:EndpointID': optional(endpoint?.value, (value) => ({ '@schemeID': endpoint!.scheme, '#': value })),
    'cac:PartyIdentification': identifications,
    'cac:PartyName': role === 'seller' ? optional(seller.tradingName, (name) => ({ 'cbc:Name': name })) : undefined,
    'cac:PostalAddress': postalAddress(who.address),
    'cac:PartyTaxScheme': partyTaxSchemes(who, role, vatApplies),
    'cac:PartyLegalEntity': {
      'cbc:RegistrationName': who.name ?? '',
      'cbc:CompanyID': role === 'seller' && seller.legalRegistrationId ? schemedId(seller.legalRegistrationId) : undefined,
      'cbc:CompanyLegalForm': role === 'seller' ? optional(seller.legalInfo) : undefined,
    },
    'cac:Contact': contact ? { 'cbc:Name': optional(contact.name), 'cbc:Telephone': optional(contact.phone), 'cbc:ElectronicMail': optional(contact.email) } : undefined,
  };
};

/** BG-10: paid to someone other than the seller. */
const payeeParty = (einvoice: EInvoice): XmlNode | undefined => {
  const { payee } = einvoice;
  if (!payee) return undefined;
  return {
    'cac:PartyIdentification': [...(payee.identifier ? [{ 'cbc:ID': payee.identifier }] : []), ...creditorIdentification(creditorIdOf(einvoice))],
    'cac:PartyName': { 'cbc:Name': payee.name },
    'cac:PartyLegalEntity': optional(payee.legalRegistrationId, (id) => ({ 'cbc:CompanyID': id })),
  };
};

/** BG-11: the seller's tax representative, always with its VAT identifier (BR-56). */
const taxRepresentativeParty = (einvoice: EInvoice): XmlNode | undefined => {
  const representative = einvoice.taxRepresentative;
  if (!representative) return undefined;
  return {
    'cac:PartyName': { 'cbc:Name': representative.name },
    'cac:PostalAddress': postalAddress(representative.address),
    'cac:PartyTaxScheme': { 'cbc:CompanyID': representative.vatId.replace(/\s+/g, ''), 'cac:TaxScheme': { 'cbc:ID': 'VAT' } },
  };
};

/**
 * One entry of the payment instructions (BG-16), one per account. EN 16931 has one payment means
 * text (BT-82) per invoice, so only the first entry names it (UBL-SR-46); each repeats the
 * remittance information (BT-83).
 */
const paymentMeans = (einvoice: EInvoice, means: EInvoicePaymentMeans, index: number): XmlNode => ({
  'cbc:PaymentMeansCode': index === 0 && paymentMeansText(einvoice) ? { '@name': paymentMeansText(einvoice)!, '#': means.code } : means.code,
  'cbc:PaymentID': einvoice.paymentReference,
  // UBL requires a card network; EN 16931 has no term for it.
  'cac:CardAccount': means.card
    ? { 'cbc:PrimaryAccountNumberID': means.card.lastDigits, 'cbc:NetworkID': 'NA', 'cbc:HolderName': optional(means.card.holder) }
    : undefined,
  'cac:PayeeFinancialAccount': means.account
    ? {
        'cbc:ID': means.account.iban,
        'cbc:Name': optional(means.account.name),
        'cac:FinancialInstitutionBranch': optional(means.account.bic, (bic) => ({ 'cbc:ID': bic })),
      }
    : undefined,
  'cac:PaymentMandate':
    means.directDebit && (means.directDebit.mandateReference || means.directDebit.debitedIban)
      ? {
          'cbc:ID': optional(means.directDebit.mandateReference),
          'cac:PayerFinancialAccount': optional(means.directDebit.debitedIban, (iban) => ({ 'cbc:ID': iban })),
        }
      : undefined,
});

/** A VAT category; `exemption` is given for a breakdown (BG-23) only. */
const taxCategory = (category: string, rate: number, exemption: { reason: string | null; code: string | null } | null): XmlNode => ({
  'cbc:ID': category,
  // A line or allowance of category O carries no rate (BR-O-05, -06, -07); its breakdown shows 0, which XRechnung requires (BR-DE-14).
  'cbc:Percent': category === 'O' && exemption === null ? undefined : percentOf(rate),
  'cbc:TaxExemptionReasonCode': optional(exemption?.code),
  'cbc:TaxExemptionReason': optional(exemption?.reason),
  'cac:TaxScheme': { 'cbc:ID': 'VAT' },
});

/** A document-level allowance (BG-20) or charge (BG-21). */
const allowanceCharge = (entry: EInvoiceAllowanceCharge, isCharge: boolean, currency: string): XmlNode => ({
  'cbc:ChargeIndicator': isCharge ? 'true' : 'false',
  'cbc:AllowanceChargeReasonCode': optional(entry.reasonCode),
  'cbc:AllowanceChargeReason': optional(entry.reason),
  'cbc:MultiplierFactorNumeric': entry.percent === null ? undefined : percentOf(entry.percent),
  'cbc:Amount': money(entry.amount, currency),
  'cbc:BaseAmount': entry.baseAmount === null ? undefined : money(entry.baseAmount, currency),
  'cac:TaxCategory': taxCategory(entry.taxCategory, entry.taxRate, null),
});

/** The invoicing period (BG-14) or a line's (BG-26): both days, included. */
const period = (of: EInvoicePeriod | null): XmlNode | undefined => (of ? { 'cbc:StartDate': of.start, 'cbc:EndDate': of.end } : undefined);

/** A supporting document (BG-24) with its content embedded (BT-125). */
const additionalDocument = (attachment: EInvoiceAttachment): XmlNode => ({
  'cbc:ID': attachment.id,
  'cbc:DocumentDescription': optional(attachment.description),
  'cac:Attachment': {
    'cbc:EmbeddedDocumentBinaryObject': { '@mimeCode': attachment.contentType, '@filename': attachment.filename, '#': attachment.content.toString('base64') },
  },
});

/** The invoice as UBL 2.1 (`Invoice`), for the core standard or XRechnung. */
export const writeUblInvoice = (einvoice: EInvoice, profile: EInvoiceProfile): Buffer => {
  const { currency, totals, taxCurrency } = einvoice;
  const delivery = einvoice.lines.some((line) => line.taxCategory === 'K') ? einvoice.buyer.address : null;
  return serializeXml({
    Invoice: {
      '@xmlns': 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
      '@xmlns:cac': 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
      '@xmlns:cbc': 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
      'cbc:CustomizationID': SPECIFICATION_IDS[profile],
      'cbc:ProfileID': profile === 'xrechnung' ? XRECHNUNG_BUSINESS_PROCESS : undefined,
      'cbc:ID': einvoice.number,
      'cbc:IssueDate': einvoice.issueDate,
      'cbc:DueDate': optional(einvoice.dueDate),
      'cbc:InvoiceTypeCode': INVOICE_TYPE_CODE,
      'cbc:Note': einvoice.notes.map((note) => ({ '#': note })),
      'cbc:DocumentCurrencyCode': currency,
      'cbc:TaxCurrencyCode': optional(taxCurrency?.code),
      'cbc:BuyerReference': optional(einvoice.buyerReference),
      'cac:InvoicePeriod': period(einvoice.invoicePeriod),
      'cac:OrderReference': optional(einvoice.purchaseOrder, (order) => ({ 'cbc:ID': order })),
      'cac:BillingReference': einvoice.precedingInvoice
        ? { 'cac:InvoiceDocumentReference': { 'cbc:ID': einvoice.precedingInvoice.number, 'cbc:IssueDate': optional(einvoice.precedingInvoice.issueDate) } }
        : undefined,
      'cac:AdditionalDocumentReference': einvoice.attachments.map(additionalDocument),
      'cac:AccountingSupplierParty': { 'cac:Party': party(einvoice, 'seller') },
      'cac:AccountingCustomerParty': { 'cac:Party': party(einvoice, 'buyer') },
      'cac:PayeeParty': payeeParty(einvoice),
      'cac:TaxRepresentativeParty': taxRepresentativeParty(einvoice),
      'cac:Delivery':
        einvoice.deliveryDate || delivery
          ? {
              'cbc:ActualDeliveryDate': optional(einvoice.deliveryDate),
              // An intra-community supply names the country it was delivered to (BR-IC-12).
              'cac:DeliveryLocation': delivery ? { 'cac:Address': postalAddress(delivery) } : undefined,
            }
          : undefined,
      'cac:PaymentMeans': einvoice.paymentMeans.map((means, index) => paymentMeans(einvoice, means, index)),
      'cac:PaymentTerms': optional(einvoice.paymentTerms, (terms) => ({ 'cbc:Note': terms })),
      'cac:AllowanceCharge': [
        ...einvoice.allowances.map((allowance) => allowanceCharge(allowance, false, currency)),
        ...einvoice.charges.map((charge) => allowanceCharge(charge, true, currency)),
      ],
      'cac:TaxTotal': [
        {
          'cbc:TaxAmount': money(totals.taxTotal, currency),
          'cac:TaxSubtotal': einvoice.taxGroups.map((group) => ({
            'cbc:TaxableAmount': money(group.taxableAmount, currency),
            'cbc:TaxAmount': money(group.taxAmount, currency),
            'cac:TaxCategory': taxCategory(group.category, group.rate, { reason: group.exemptionReason, code: group.exemptionReasonCode }),
          })),
        },
        // The VAT total in the tax currency (BT-111) stands alone, without a breakdown (UBL-SR / BR-53).
        ...(taxCurrency ? [{ 'cbc:TaxAmount': money(taxCurrency.taxTotal, taxCurrency.code) }] : []),
      ],
      'cac:LegalMonetaryTotal': {
        'cbc:LineExtensionAmount': money(totals.lineNetTotal, currency),
        'cbc:TaxExclusiveAmount': money(totals.taxExclusive, currency),
        'cbc:TaxInclusiveAmount': money(totals.total, currency),
        'cbc:AllowanceTotalAmount': einvoice.allowances.length > 0 ? money(totals.allowanceTotal, currency) : undefined,
        'cbc:ChargeTotalAmount': einvoice.charges.length > 0 ? money(totals.chargeTotal, currency) : undefined,
        'cbc:PrepaidAmount': totals.prepaid !== 0 ? money(totals.prepaid, currency) : undefined,
        'cbc:PayableAmount': money(totals.amountDue, currency),
      },
      'cac:InvoiceLine': einvoice.lines.map((line) => ({
        'cbc:ID': String(line.position),
        'cbc:Note': optional(line.note),
        'cbc:InvoicedQuantity': { '@unitCode': line.unitCode, '#': quantityOf(line.quantity) },
        'cbc:LineExtensionAmount': money(line.netAmount, currency),
        'cac:InvoicePeriod': period(line.period),
        'cac:AllowanceCharge':
          line.discountAmount > 0
            ? {
                'cbc:ChargeIndicator': 'false',
                'cbc:AllowanceChargeReasonCode': DISCOUNT_REASON_CODE,
                'cbc:AllowanceChargeReason': 'Discount',
                'cbc:MultiplierFactorNumeric': line.discountPercent === null ? undefined : percentOf(line.discountPercent),
                'cbc:Amount': money(line.discountAmount, currency),
                'cbc:BaseAmount': money(line.subtotal, currency),
              }
            : undefined,
        'cac:Item': {
          'cbc:Name': line.description,
          'cac:SellersItemIdentification': optional(line.sellerItemId, (id) => ({ 'cbc:ID': id })),
          'cac:StandardItemIdentification': line.standardItemId?.scheme ? { 'cbc:ID': schemedId(line.standardItemId) } : undefined,
          'cac:ClassifiedTaxCategory': taxCategory(line.taxCategory, line.taxRate, null),
        },
        'cac:Price': {
          'cbc:PriceAmount': { '@currencyID': currency, '#': priceOf(line.unitAmount, currency) },
          'cbc:BaseQuantity': isOne(line.priceBaseQuantity) ? undefined : { '@unitCode': line.unitCode, '#': quantityOf(line.priceBaseQuantity) },
        },
      })),
    },
  });
};

/** Whether a decimal quantity is exactly 1 (`1`, `1.0000`). */
export const isOne = (quantity: string): boolean => quantityOf(quantity) === '1';
