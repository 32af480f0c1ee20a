import type { Address } from '@invoicing/contracts';
import { amountOf, compactDate, percentOf, priceOf, quantityOf } from './einvoice-amounts.domain.ts';
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
import { DISCOUNT_REASON_CODE, INVOICE_TYPE_CODE, isOne, SPECIFICATION_IDS, XRECHNUNG_BUSINESS_PROCESS } from './ubl-invoice.ts';
import { optional, serializeXml, type XmlNode } from './xml-tree.ts';

// CII writes amounts without a currency attribute, except the VAT total (BT-110): CEN's
// CII-DT-031 forbids one anywhere else, line allowances included.
const amount = (minor: number, currency: string): string => amountOf(minor, currency);

const date = (isoDate: string): XmlNode => ({ 'udt:DateTimeString': { '@format': '102', '#': compactDate(isoDate) } });

/** The invoicing period (BG-14) or a line's (BG-26): both days, included. */
const period = (of: EInvoicePeriod | null): XmlNode | undefined => (of ? { 'ram:StartDateTime': date(of.start), 'ram:EndDateTime': date(of.end) } : undefined);

const postalAddress = (address: Address): XmlNode => ({
  'ram:PostcodeCode': optional(address.postal_code),
  'ram:LineOne': optional(address.line1),
  'ram:LineTwo': optional(address.line2),
  'ram:CityName': optional(address.city),
  'ram:CountryID': address.country ?? '',
  'ram:CountrySubDivisionName': optional(address.state),
});

const taxRegistrations = (party: EInvoiceParty, role: 'seller' | 'buyer', vatApplies: boolean): XmlNode[] => {
  if (party.taxId === null) return [];
  if (vatApplies && isVatIdentifier(party.taxId)) return [{ 'ram:ID': { '@schemeID': 'VA', '#': party.taxId.replace(/\s+/g, '') } }];
  return role === 'seller' ? [{ 'ram:ID': { '@schemeID': 'FC', '#': party.taxId } }] : [];
};

/** An identifier with a scheme is a global identifier in CII (`GlobalID`); without one, the party's own (`ID`). */
const partyIds = (id: SchemedId | null): { 'ram:ID'?: string; 'ram:GlobalID'?: XmlNode } =>
  id === null ? {} : id.scheme ? { 'ram:GlobalID': { '@schemeID': id.scheme, '#': id.value } } : { 'ram:ID': id.value };

const tradeParty = (einvoice: EInvoice, role: 'seller' | 'buyer'): XmlNode => {
  const { party: who, vatApplies, sellerIdentifier, contact } = partyIdentity(einvoice, role);
  const endpoint = who.electronicAddress;
  const { seller } = einvoice;
  const ids = role === 'seller' ? partyIds(sellerIdentifier === null ? null : { value: sellerIdentifier, scheme: null }) : partyIds(einvoice.buyer.identifier);
  const legalOrganization =
    role === 'seller' && (seller.legalRegistrationId || seller.tradingName)
      ? {
          'ram:ID': seller.legalRegistrationId ? schemedId(seller.legalRegistrationId) : undefined,
          'ram:TradingBusinessName': optional(seller.tradingName),
        }
      : undefined;
  return {
    'ram:ID': ids['ram:ID'],
    'ram:GlobalID': ids['ram:GlobalID'],
    'ram:Name': who.name ?? '',
    'ram:Description': role === 'seller' ? optional(seller.legalInfo) : undefined,
    'ram:SpecifiedLegalOrganization': legalOrganization,
    'ram:DefinedTradeContact': contact
      ? {
          'ram:PersonName': optional(contact.name),
          'ram:TelephoneUniversalCommunication': optional(contact.phone, (phone) => ({ 'ram:CompleteNumber': phone })),
          'ram:EmailURIUniversalCommunication': optional(contact.email, (email) => ({ 'ram:URIID': email })),
        }
      : undefined,
    'ram:PostalTradeAddress': postalAddress(who.address),
    'ram:URIUniversalCommunication': optional(endpoint?.value, (value) => ({ 'ram:URIID': { '@schemeID': endpoint!.scheme, '#': value } })),
    'ram:SpecifiedTaxRegistration': taxRegistrations(who, role, vatApplies),
  };
};

const schemedId = (id: SchemedId): XmlNode => (id.scheme ? { '@schemeID': id.scheme, '#': id.value } : { '#': id.value });

/** BG-11: the seller's tax representative, always with its VAT identifier (BR-56). */
const taxRepresentativeParty = (einvoice: EInvoice): XmlNode | undefined => {
  const representative = einvoice.taxRepresentative;
  if (!representative) return undefined;
  return {
    'ram:Name': representative.name,
    'ram:PostalTradeAddress': postalAddress(representative.address),
    'ram:SpecifiedTaxRegistration': { 'ram:ID': { '@schemeID': 'VA', '#': representative.vatId.replace(/\s+/g, '') } },
  };
};

/** BG-10: paid to someone other than the seller. */
const payeeParty = (einvoice: EInvoice): XmlNode | undefined => {
  const { payee } = einvoice;
  if (!payee) return undefined;
  return {
    'ram:ID': optional(payee.identifier),
    'ram:Name': payee.name,
    'ram:SpecifiedLegalOrganization': optional(payee.legalRegistrationId, (id) => ({ 'ram:ID': id })),
  };
};

/** One entry per account; the one payment means text of the invoice (BT-82) goes with the first. */
const paymentMeans = (einvoice: EInvoice, means: EInvoicePaymentMeans, index: number): XmlNode => ({
  'ram:TypeCode': means.code,
  'ram:Information': index === 0 ? optional(paymentMeansText(einvoice)) : undefined,
  'ram:ApplicableTradeSettlementFinancialCard': means.card ? { 'ram:ID': means.card.lastDigits, 'ram:CardholderName': optional(means.card.holder) } : undefined,
  'ram:PayerPartyDebtorFinancialAccount': optional(means.directDebit?.debitedIban, (iban) => ({ 'ram:IBANID': iban })),
  'ram:PayeePartyCreditorFinancialAccount': means.account ? { 'ram:IBANID': means.account.iban, 'ram:AccountName': optional(means.account.name) } : undefined,
  'ram:PayeeSpecifiedCreditorFinancialInstitution': optional(means.account?.bic, (bic) => ({ 'ram:BICID': bic })),
});

/** A VAT category of a line or of a document allowance or charge: no rate for category O (BR-O-05, -06, -07). */
const categoryTax = (category: string, rate: number): XmlNode => ({
  'ram:TypeCode': 'VAT',
  'ram:CategoryCode': category,
  'ram:RateApplicablePercent': category === 'O' ? undefined : percentOf(rate),
});

/** A document-level allowance (BG-20) or charge (BG-21). */
const allowanceCharge = (entry: EInvoiceAllowanceCharge, isCharge: boolean, currency: string): XmlNode => ({
  'ram:ChargeIndicator': { 'udt:Indicator': isCharge ? 'true' : 'false' },
  'ram:CalculationPercent': entry.percent === null ? undefined : percentOf(entry.percent),
  'ram:BasisAmount': entry.baseAmount === null ? undefined : amount(entry.baseAmount, currency),
  'ram:ActualAmount': amount(entry.amount, currency),
  'ram:ReasonCode': optional(entry.reasonCode),
  'ram:Reason': optional(entry.reason),
  'ram:CategoryTradeTax': categoryTax(entry.taxCategory, entry.taxRate),
});

/** UNTDID 1001: related document, the code EN 16931 gives a supporting document (BG-24). */
export const SUPPORTING_DOCUMENT_TYPE_CODE = '916';

const additionalDocument = (attachment: EInvoiceAttachment): XmlNode => ({
  'ram:IssuerAssignedID': attachment.id,
  'ram:TypeCode': SUPPORTING_DOCUMENT_TYPE_CODE,
  'ram:Name': optional(attachment.description),
  'ram:AttachmentBinaryObject': { '@mimeCode': attachment.contentType, '@filename': attachment.filename, '#': attachment.content.toString('base64') },
});

/**
 * The invoice as UN/CEFACT CII D16B (`CrossIndustryInvoice`), for the core standard or XRechnung.
 * Elements stay within the Factur-X EN 16931 profile, so the same XML goes into the Factur-X PDF.
 */
export const writeCiiInvoice = (einvoice: EInvoice, profile: EInvoiceProfile): Buffer => {
  const { currency, totals, taxCurrency } = einvoice;
  const delivery = einvoice.lines.some((line) => line.taxCategory === 'K') ? einvoice.buyer.address : null;
  const directDebit = einvoice.paymentMeans.find((means) => means.directDebit)?.directDebit ?? null;
  const mandate = directDebit?.mandateReference ?? null;
  return serializeXml({
    'rsm:CrossIndustryInvoice': {
      '@xmlns:rsm': 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
      '@xmlns:ram': 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
      '@xmlns:qdt': 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
      '@xmlns:udt': 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
      'rsm:ExchangedDocumentContext': {
        'ram:BusinessProcessSpecifiedDocumentContextParameter': profile === 'xrechnung' ? { 'ram:ID': XRECHNUNG_BUSINESS_PROCESS } : undefined,
        'ram:GuidelineSpecifiedDocumentContextParameter': { 'ram:ID': SPECIFICATION_IDS[profile] },
      },
      'rsm:ExchangedDocument': {
        'ram:ID': einvoice.number,
        'ram:TypeCode': INVOICE_TYPE_CODE,
        'ram:IssueDateTime': date(einvoice.issueDate),
        'ram:IncludedNote': einvoice.notes.map((note) => ({ 'ram:Content': note })),
      },
      'rsm:SupplyChainTradeTransaction': {
        'ram:IncludedSupplyChainTradeLineItem': einvoice.lines.map((line) => ({
          'ram:AssociatedDocumentLineDocument': {
            'ram:LineID': String(line.position),
            'ram:IncludedNote': optional(line.note, (note) => ({ 'ram:Content': note })),
          },
          'ram:SpecifiedTradeProduct': {
            'ram:GlobalID': line.standardItemId?.scheme ? schemedId(line.standardItemId) : undefined,
            'ram:SellerAssignedID': optional(line.sellerItemId),
            'ram:Name': line.description,
          },
          'ram:SpecifiedLineTradeAgreement': {
            'ram:NetPriceProductTradePrice': {
              'ram:ChargeAmount': priceOf(line.unitAmount, currency),
              'ram:BasisQuantity': isOne(line.priceBaseQuantity) ? undefined : { '@unitCode': line.unitCode, '#': quantityOf(line.priceBaseQuantity) },
            },
          },
          'ram:SpecifiedLineTradeDelivery': { 'ram:BilledQuantity': { '@unitCode': line.unitCode, '#': quantityOf(line.quantity) } },
          'ram:SpecifiedLineTradeSettlement': {
            'ram:ApplicableTradeTax': categoryTax(line.taxCategory, line.taxRate),
            'ram:BillingSpecifiedPeriod': period(line.period),
            'ram:SpecifiedTradeAllowanceCharge':
              line.discountAmount > 0
                ? {
                    'ram:ChargeIndicator': { 'udt:Indicator': 'false' },
                    'ram:CalculationPercent': line.discountPercent === null ? undefined : percentOf(line.discountPercent),
                    'ram:BasisAmount': amount(line.subtotal, currency),
                    'ram:ActualAmount': amount(line.discountAmount, currency),
                    'ram:ReasonCode': DISCOUNT_REASON_CODE,
                    'ram:Reason': 'Discount',
                  }
                : undefined,
            'ram:SpecifiedTradeSettlementLineMonetarySummation': { 'ram:LineTotalAmount': amount(line.netAmount, currency) },
          },
        })),
        'ram:ApplicableHeaderTradeAgreement': {
          'ram:BuyerReference': optional(einvoice.buyerReference),
          'ram:SellerTradeParty': tradeParty(einvoice, 'seller'),
          'ram:BuyerTradeParty': tradeParty(einvoice, 'buyer'),
          'ram:SellerTaxRepresentativeTradeParty': taxRepresentativeParty(einvoice),
          'ram:BuyerOrderReferencedDocument': optional(einvoice.purchaseOrder, (order) => ({ 'ram:IssuerAssignedID': order })),
          'ram:AdditionalReferencedDocument': einvoice.attachments.map(additionalDocument),
        },
        // Always written, even empty (an invoicing period instead of a delivery date): the CII schema requires the element.
        'ram:ApplicableHeaderTradeDelivery': {
          'ram:ShipToTradeParty': delivery ? { 'ram:PostalTradeAddress': postalAddress(delivery) } : undefined,
          'ram:ActualDeliverySupplyChainEvent': optional(einvoice.deliveryDate, (day) => ({ 'ram:OccurrenceDateTime': date(day) })),
        },
        'ram:ApplicableHeaderTradeSettlement': {
          'ram:CreditorReferenceID': optional(directDebit?.creditorId),
          'ram:PaymentReference': einvoice.paymentMeans.length > 0 ? einvoice.paymentReference : undefined,
          'ram:TaxCurrencyCode': optional(taxCurrency?.code),
          'ram:InvoiceCurrencyCode': currency,
          'ram:PayeeTradeParty': payeeParty(einvoice),
          'ram:SpecifiedTradeSettlementPaymentMeans': einvoice.paymentMeans.map((means, index) => paymentMeans(einvoice, means, index)),
          'ram:ApplicableTradeTax': einvoice.taxGroups.map((group) => ({
            'ram:CalculatedAmount': amount(group.taxAmount, currency),
            'ram:TypeCode': 'VAT',
            'ram:ExemptionReason': optional(group.exemptionReason),
            'ram:BasisAmount': amount(group.taxableAmount, currency),
            'ram:CategoryCode': group.category,
            'ram:ExemptionReasonCode': optional(group.exemptionReasonCode),
            // 0 for category O as well: XRechnung requires the rate in every breakdown (BR-DE-14).
            'ram:RateApplicablePercent': percentOf(group.rate),
          })),
          'ram:BillingSpecifiedPeriod': period(einvoice.invoicePeriod),
          'ram:SpecifiedTradeAllowanceCharge': [
            ...einvoice.allowances.map((allowance) => allowanceCharge(allowance, false, currency)),
            ...einvoice.charges.map((charge) => allowanceCharge(charge, true, currency)),
          ],
          'ram:SpecifiedTradePaymentTerms':
            einvoice.paymentTerms || einvoice.dueDate || mandate
              ? {
                  'ram:Description': optional(einvoice.paymentTerms),
                  'ram:DueDateDateTime': optional(einvoice.dueDate, date),
                  'ram:DirectDebitMandateID': optional(mandate),
                }
              : undefined,
          'ram:SpecifiedTradeSettlementHeaderMonetarySummation': {
            'ram:LineTotalAmount': amount(totals.lineNetTotal, currency),
            'ram:ChargeTotalAmount': einvoice.charges.length > 0 ? amount(totals.chargeTotal, currency) : undefined,
            'ram:AllowanceTotalAmount': einvoice.allowances.length > 0 ? amount(totals.allowanceTotal, currency) : undefined,
            'ram:TaxBasisTotalAmount': amount(totals.taxExclusive, currency),
            // The only amounts with a currency (CII-DT-031): the VAT total, and again in the tax currency (BT-111).
            'ram:TaxTotalAmount': [
              { '@currencyID': currency, '#': amount(totals.taxTotal, currency) },
              ...(taxCurrency ? [{ '@currencyID': taxCurrency.code, '#': amount(taxCurrency.taxTotal, taxCurrency.code) }] : []),
            ],
            'ram:GrandTotalAmount': amount(totals.total, currency),
            'ram:TotalPrepaidAmount': totals.prepaid !== 0 ? amount(totals.prepaid, currency) : undefined,
            'ram:DuePayableAmount': amount(totals.amountDue, currency),
          },
          'ram:InvoiceReferencedDocument': einvoice.precedingInvoice
            ? {
                'ram:IssuerAssignedID': einvoice.precedingInvoice.number,
                'ram:FormattedIssueDateTime': optional(einvoice.precedingInvoice.issueDate, (issued) => ({
                  'qdt:DateTimeString': { '@format': '102', '#': compactDate(issued) },
                })),
              }
            : undefined,
        },
      },
    },
  });
};
