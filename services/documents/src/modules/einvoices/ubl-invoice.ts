import type { Address } from '@invoicing/contracts';
import { amountOf, percentOf, priceOf } from './einvoice-amounts.domain.ts';
import { isVatIdentifier, partyIdentity, type EInvoice, type EInvoiceParty, type EInvoiceProfile } from './einvoice.domain.ts';
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

/**
 * VAT identifier (BT-31/BT-48) when the tax ID has a country prefix and VAT applies; otherwise the
 * seller's tax ID is its tax registration (BT-32) and a buyer's is left out (EN 16931 has no other place for it).
 */
const partyTaxSchemes = (party: EInvoiceParty, role: 'seller' | 'buyer', vatApplies: boolean): XmlNode[] => {
  if (party.taxId === null) return [];
  if (vatApplies && isVatIdentifier(party.taxId)) return [{ 'cbc:CompanyID': party.taxId.replace(/\s+/g, ''), 'cac:TaxScheme': { 'cbc:ID': 'VAT' } }];
  return role === 'seller' ? [{ 'cbc:CompanyID': party.taxId, 'cac:TaxScheme': { 'cbc:ID': 'TAX' } }] : [];
};

const party = (einvoice: EInvoice, role: 'seller' | 'buyer'): XmlNode => {
  const { party: who, vatApplies, sellerIdentifier, contact } = partyIdentity(einvoice, role);
  const endpoint = who.electronicAddress;
  return {
    'cbc:EndpointID': optional(endpoint?.value, (value) => ({ '@schemeID': endpoint!.scheme, '#': value })),
    'cac:PartyIdentification': optional(sellerIdentifier, (value) => ({ 'cbc:ID': value })),
    'cac:PostalAddress': postalAddress(who.address),
    'cac:PartyTaxScheme': partyTaxSchemes(who, role, vatApplies),
    'cac:PartyLegalEntity': { 'cbc:RegistrationName': who.name ?? '' },
    'cac:Contact': contact ? { 'cbc:Name': optional(contact.name), 'cbc:Telephone': optional(contact.phone), 'cbc:ElectronicMail': optional(contact.email) } : undefined,
  };
};

const taxCategory = (category: string, rate: number, exemptionReason: string | null, element: 'cac:TaxCategory' | 'cac:ClassifiedTaxCategory'): XmlNode => ({
  'cbc:ID': category,
  // A line of category O carries no rate (BR-O-05); its breakdown shows 0, which XRechnung requires (BR-DE-14).
  'cbc:Percent': category === 'O' && element === 'cac:ClassifiedTaxCategory' ? undefined : percentOf(rate),
  'cbc:TaxExemptionReason': element === 'cac:TaxCategory' ? optional(exemptionReason) : undefined,
  'cac:TaxScheme': { 'cbc:ID': 'VAT' },
});

/** The invoice as UBL 2.1 (`Invoice`), for the core standard or XRechnung. */
export const writeUblInvoice = (einvoice: EInvoice, profile: EInvoiceProfile): Buffer => {
  const { currency } = einvoice;
  const account = einvoice.seller.paymentAccount;
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
      'cbc:BuyerReference': optional(einvoice.buyerReference),
      'cac:OrderReference': optional(einvoice.purchaseOrder, (order) => ({ 'cbc:ID': order })),
      'cac:AccountingSupplierParty': { 'cac:Party': party(einvoice, 'seller') },
      'cac:AccountingCustomerParty': { 'cac:Party': party(einvoice, 'buyer') },
      'cac:Delivery': {
        'cbc:ActualDeliveryDate': einvoice.deliveryDate,
        // An intra-community supply names the country it was delivered to (BR-IC-12).
        'cac:DeliveryLocation': delivery ? { 'cac:Address': postalAddress(delivery) } : undefined,
      },
      'cac:PaymentMeans': account
        ? {
            'cbc:PaymentMeansCode': CREDIT_TRANSFER,
            'cbc:PaymentID': einvoice.paymentReference,
            'cac:PayeeFinancialAccount': {
              'cbc:ID': account.iban,
              'cbc:Name': optional(account.name),
              'cac:FinancialInstitutionBranch': optional(account.bic, (bic) => ({ 'cbc:ID': bic })),
            },
          }
        : undefined,
      'cac:PaymentTerms': optional(einvoice.paymentTerms, (terms) => ({ 'cbc:Note': terms })),
      'cac:TaxTotal': {
        'cbc:TaxAmount': money(einvoice.totals.taxTotal, currency),
        'cac:TaxSubtotal': einvoice.taxGroups.map((group) => ({
          'cbc:TaxableAmount': money(group.taxableAmount, currency),
          'cbc:TaxAmount': money(group.taxAmount, currency),
          'cac:TaxCategory': taxCategory(group.category, group.rate, group.exemptionReason, 'cac:TaxCategory'),
        })),
      },
      'cac:LegalMonetaryTotal': {
        'cbc:LineExtensionAmount': money(einvoice.totals.lineNetTotal, currency),
        'cbc:TaxExclusiveAmount': money(einvoice.totals.lineNetTotal, currency),
        'cbc:TaxInclusiveAmount': money(einvoice.totals.total, currency),
        'cbc:PayableAmount': money(einvoice.totals.amountDue, currency),
      },
      'cac:InvoiceLine': einvoice.lines.map((line) => ({
        'cbc:ID': String(line.position),
        'cbc:InvoicedQuantity': { '@unitCode': line.unitCode, '#': String(line.quantity) },
        'cbc:LineExtensionAmount': money(line.netAmount, currency),
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
          'cac:ClassifiedTaxCategory': taxCategory(line.taxCategory, line.taxRate, null, 'cac:ClassifiedTaxCategory'),
        },
        'cac:Price': { 'cbc:PriceAmount': { '@currencyID': currency, '#': priceOf(line.unitAmount, currency) } },
      })),
    },
  });
};
