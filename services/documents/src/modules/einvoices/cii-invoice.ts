import type { Address } from '@invoicing/contracts';
import { amountOf, compactDate, percentOf, priceOf } from './einvoice-amounts.domain.ts';
import { isVatIdentifier, partyIdentity, type EInvoice, type EInvoiceParty, type EInvoiceProfile } from './einvoice.domain.ts';
import { CREDIT_TRANSFER, DISCOUNT_REASON_CODE, INVOICE_TYPE_CODE, SPECIFICATION_IDS, XRECHNUNG_BUSINESS_PROCESS } from './ubl-invoice.ts';
import { optional, serializeXml, type XmlNode } from './xml-tree.ts';

// CII writes amounts without a currency attribute, except the VAT total (BT-110): CEN's
// CII-DT-031 forbids one anywhere else, line allowances included.
const amount = (minor: number, currency: string): string => amountOf(minor, currency);

const date = (isoDate: string): XmlNode => ({ 'udt:DateTimeString': { '@format': '102', '#': compactDate(isoDate) } });

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

const tradeParty = (einvoice: EInvoice, role: 'seller' | 'buyer'): XmlNode => {
  const { party: who, vatApplies, sellerIdentifier, contact } = partyIdentity(einvoice, role);
  const endpoint = who.electronicAddress;
  return {
    'ram:ID': optional(sellerIdentifier),
    'ram:Name': who.name ?? '',
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

/**
 * The invoice as UN/CEFACT CII D16B (`CrossIndustryInvoice`), for the core standard or XRechnung.
 * Elements stay within the Factur-X EN 16931 profile, so the same XML goes into the Factur-X PDF.
 */
export const writeCiiInvoice = (einvoice: EInvoice, profile: EInvoiceProfile): Buffer => {
  const { currency } = einvoice;
  const account = einvoice.seller.paymentAccount;
  const delivery = einvoice.lines.some((line) => line.taxCategory === 'K') ? einvoice.buyer.address : null;
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
          'ram:AssociatedDocumentLineDocument': { 'ram:LineID': String(line.position) },
          'ram:SpecifiedTradeProduct': { 'ram:Name': line.description },
          'ram:SpecifiedLineTradeAgreement': { 'ram:NetPriceProductTradePrice': { 'ram:ChargeAmount': priceOf(line.unitAmount, currency) } },
          'ram:SpecifiedLineTradeDelivery': { 'ram:BilledQuantity': { '@unitCode': line.unitCode, '#': String(line.quantity) } },
          'ram:SpecifiedLineTradeSettlement': {
            'ram:ApplicableTradeTax': {
              'ram:TypeCode': 'VAT',
              'ram:CategoryCode': line.taxCategory,
              'ram:RateApplicablePercent': line.taxCategory === 'O' ? undefined : percentOf(line.taxRate),
            },
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
          'ram:BuyerOrderReferencedDocument': optional(einvoice.purchaseOrder, (order) => ({ 'ram:IssuerAssignedID': order })),
        },
        // Always written, even where EN 16931 has no delivery term to fill: the CII schema requires the element.
        'ram:ApplicableHeaderTradeDelivery': {
          'ram:ShipToTradeParty': delivery ? { 'ram:PostalTradeAddress': postalAddress(delivery) } : undefined,
          'ram:ActualDeliverySupplyChainEvent': { 'ram:OccurrenceDateTime': date(einvoice.deliveryDate) },
        },
        'ram:ApplicableHeaderTradeSettlement': {
          'ram:PaymentReference': account ? einvoice.paymentReference : undefined,
          'ram:InvoiceCurrencyCode': currency,
          'ram:SpecifiedTradeSettlementPaymentMeans': account
            ? {
                'ram:TypeCode': CREDIT_TRANSFER,
                'ram:PayeePartyCreditorFinancialAccount': { 'ram:IBANID': account.iban, 'ram:AccountName': optional(account.name) },
                'ram:PayeeSpecifiedCreditorFinancialInstitution': optional(account.bic, (bic) => ({ 'ram:BICID': bic })),
              }
            : undefined,
          'ram:ApplicableTradeTax': einvoice.taxGroups.map((group) => ({
            'ram:CalculatedAmount': amount(group.taxAmount, currency),
            'ram:TypeCode': 'VAT',
            'ram:ExemptionReason': optional(group.exemptionReason),
            'ram:BasisAmount': amount(group.taxableAmount, currency),
            'ram:CategoryCode': group.category,
            // 0 for category O as well: XRechnung requires the rate in every breakdown (BR-DE-14).
            'ram:RateApplicablePercent': percentOf(group.rate),
          })),
          'ram:SpecifiedTradePaymentTerms':
            einvoice.paymentTerms || einvoice.dueDate
              ? { 'ram:Description': optional(einvoice.paymentTerms), 'ram:DueDateDateTime': optional(einvoice.dueDate, date) }
              : undefined,
          'ram:SpecifiedTradeSettlementHeaderMonetarySummation': {
            'ram:LineTotalAmount': amount(einvoice.totals.lineNetTotal, currency),
            'ram:TaxBasisTotalAmount': amount(einvoice.totals.lineNetTotal, currency),
            'ram:TaxTotalAmount': { '@currencyID': currency, '#': amount(einvoice.totals.taxTotal, currency) },
            'ram:GrandTotalAmount': amount(einvoice.totals.total, currency),
            'ram:DuePayableAmount': amount(einvoice.totals.amountDue, currency),
          },
        },
      },
    },
  });
};
