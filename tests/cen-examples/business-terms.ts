import { createHash } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';

/**
 * The EN 16931 semantic model read back out of an e-invoice: UBL 2.1 `Invoice` or UN/CEFACT CII
 * D16B `CrossIndustryInvoice` → one flat map from a business-term path to its value, so that two
 * documents (a CEN example and our export of it, or the UBL and CII forms of one example) can be
 * compared term by term.
 *
 * Paths: a term of the document (or of a group that occurs once) by its own number (`BT-1`,
 * `BT-31`); a term inside a repeating group with the group's index (`BG-20[0]/BT-92`,
 * `BG-25[2]/BT-129`, `BG-25[0]/BG-27[1]/BT-136`); a repeating term with its own index (`BT-29[1]`);
 * an attribute of a term as the standard numbers it (`BT-29-1[1]` the scheme of `BT-29[1]`,
 * `BT-130` the unit of `BT-129`).
 * Values: amounts, quantities and percentages as exact canonical decimal strings (no trailing
 * zeros, so "1000.00" and "1000" are one value), dates as YYYY-MM-DD, codes and texts as written
 * (white space collapsed), an attached document (BT-125) as `sha256:<hex of its decoded bytes>`.
 * Syntax bindings: EN 16931-3-2 (UBL) and EN 16931-3-3 (CII).
 */
export type BusinessTerms = Map<string, string>;
export type Syntax = 'ubl' | 'cii';

interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Element[];
  text: string;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const toElement = (name: string, node: OrderedNode): Element => {
  const element: Element = { name, attributes: node[':@'] ?? {}, children: [], text: '' };
  for (const child of (node[name] as OrderedNode[] | undefined) ?? []) {
    const childName = Object.keys(child).find((key) => key !== ':@');
    if (childName === undefined) continue;
    if (childName === '#text') element.text += String(child['#text']);
    else element.children.push(toElement(childName, child));
  }
  return element;
};

/** The document element of an XML text. */
const parseRoot = (xml: string | Buffer): Element => {
  const nodes = parser.parse(typeof xml === 'string' ? xml : xml.toString('utf8')) as OrderedNode[];
  for (const node of nodes) {
    const name = Object.keys(node).find((key) => key !== ':@');
    if (name !== undefined && name !== '?xml' && name !== '#text' && name !== '#comment') return toElement(name, node);
  }
  throw new Error('not an XML document: no root element');
};

/** The elements at a slash-separated path of local names below `from`. */
const all = (from: Element | undefined, path: string): Element[] => {
  let current = from ? [from] : [];
  for (const step of path.split('/')) current = current.flatMap((element) => element.children.filter((child) => child.name === step));
  return current;
};
const one = (from: Element | undefined, path: string): Element | undefined => all(from, path)[0];
const text = (from: Element | undefined, path?: string): string | undefined => {
  const element = path === undefined ? from : one(from, path);
  const value = element?.text.trim();
  return value === undefined || value === '' ? undefined : value;
};
const attribute = (from: Element | undefined, name: string): string | undefined => {
  const value = from?.attributes[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** "1000.00" → "1000", "+0.50" → "0.5", "-0.0" → "0": one spelling per value, exact (no floating point). */
export const canonicalDecimal = (value: string): string => {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(value.trim());
  if (!match) return value.trim();
  const [, sign, whole, fraction = ''] = match;
  const integer = (whole ?? '').replace(/^0+(?=\d)/, '') || '0';
  const decimals = fraction.replace(/0+$/, '');
  const body = decimals ? `${integer}.${decimals}` : integer;
  return sign === '-' && body !== '0' ? `-${body}` : body;
};

/** CII dates: format 102 is CCYYMMDD; UBL dates are already YYYY-MM-DD. */
const ciiDate = (element: Element | undefined): string | undefined => {
  const value = text(element);
  if (value === undefined) return undefined;
  return /^\d{8}$/.test(value) ? `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}` : value;
};

/** BT-8: UBL states the VAT point date code in UNTDID 2005, CII in UNTDID 2475; both map onto the 2005 codes here. */
const CII_TAX_POINT_CODES: Record<string, string> = { '5': '3', '29': '35', '72': '432' };

const sha256Of = (base64: string): string => `sha256:${createHash('sha256').update(Buffer.from(base64.replace(/\s+/g, ''), 'base64')).digest('hex')}`;

class TermWriter {
  readonly terms: BusinessTerms;
  private readonly prefix: string;
  constructor(terms: BusinessTerms = new Map(), prefix = '') {
    this.terms = terms;
    this.prefix = prefix;
  }
  /** A text or code: runs of white space (line breaks and indentation of a pretty-printed document) count as one space. */
  put(term: string, value: string | undefined): void {
    const normalized = value?.replace(/\s+/g, ' ').trim();
    if (normalized !== undefined && normalized !== '') this.terms.set(`${this.prefix}${term}`, normalized);
  }
  amount(term: string, value: string | undefined): void {
    this.put(term, value === undefined ? undefined : canonicalDecimal(value));
  }
  /** A writer for one occurrence of a repeating group: its terms land under `BG-xx[i]/`. */
  group(name: string, index: number): TermWriter {
    return new TermWriter(this.terms, `${this.prefix}${name}[${index}]/`);
  }
}

interface AddressTerms {
  line1: string;
  line2: string;
  line3: string;
  city: string;
  postcode: string;
  subdivision: string;
  country: string;
}
const SELLER_ADDRESS: AddressTerms = { line1: 'BT-35', line2: 'BT-36', line3: 'BT-162', city: 'BT-37', postcode: 'BT-38', subdivision: 'BT-39', country: 'BT-40' };
const BUYER_ADDRESS: AddressTerms = { line1: 'BT-50', line2: 'BT-51', line3: 'BT-163', city: 'BT-52', postcode: 'BT-53', subdivision: 'BT-54', country: 'BT-55' };
const TAX_REPRESENTATIVE_ADDRESS: AddressTerms = { line1: 'BT-64', line2: 'BT-65', line3: 'BT-164', city: 'BT-66', postcode: 'BT-67', subdivision: 'BT-68', country: 'BT-69' };
const DELIVERY_ADDRESS: AddressTerms = { line1: 'BT-75', line2: 'BT-76', line3: 'BT-165', city: 'BT-77', postcode: 'BT-78', subdivision: 'BT-79', country: 'BT-80' };

// ---------------------------------------------------------------- UBL 2.1 (EN 16931-3-2)

const ublAddress = (out: TermWriter, address: Element | undefined, terms: AddressTerms): void => {
  out.put(terms.line1, text(address, 'StreetName'));
  out.put(terms.line2, text(address, 'AdditionalStreetName'));
  out.put(terms.line3, text(address, 'AddressLine/Line'));
  out.put(terms.city, text(address, 'CityName'));
  out.put(terms.postcode, text(address, 'PostalZone'));
  out.put(terms.subdivision, text(address, 'CountrySubentity'));
  out.put(terms.country, text(address, 'Country/IdentificationCode'));
};

const ublVatAndTaxRegistration = (party: Element | undefined): { vat?: string; other?: string } => {
  const schemes = all(party, 'PartyTaxScheme');
  const vat = schemes.find((scheme) => text(scheme, 'TaxScheme/ID') === 'VAT');
  const other = schemes.find((scheme) => text(scheme, 'TaxScheme/ID') !== 'VAT');
  return { vat: text(vat, 'CompanyID'), other: text(other, 'CompanyID') };
};

const ublAllowanceCharge = (out: TermWriter, element: Element, terms: string[], withTax: boolean): void => {
  const [amount, base, percent, category, rate, reason, code] = terms as [string, string, string, string, string, string, string];
  out.amount(amount, text(element, 'Amount'));
  out.amount(base, text(element, 'BaseAmount'));
  out.amount(percent, text(element, 'MultiplierFactorNumeric'));
  if (withTax) {
    out.put(category, text(element, 'TaxCategory/ID'));
    out.amount(rate, text(element, 'TaxCategory/Percent'));
  }
  out.put(reason, text(element, 'AllowanceChargeReason'));
  out.put(code, text(element, 'AllowanceChargeReasonCode'));
};

const DOCUMENT_ALLOWANCE = ['BT-92', 'BT-93', 'BT-94', 'BT-95', 'BT-96', 'BT-97', 'BT-98'];
const DOCUMENT_CHARGE = ['BT-99', 'BT-100', 'BT-101', 'BT-102', 'BT-103', 'BT-104', 'BT-105'];
const LINE_ALLOWANCE = ['BT-136', 'BT-137', 'BT-138', '', '', 'BT-139', 'BT-140'];
const LINE_CHARGE = ['BT-141', 'BT-142', 'BT-143', '', '', 'BT-144', 'BT-145'];

const isCharge = (element: Element, path: string): boolean => text(element, path) === 'true';

const extractUbl = (root: Element, embedded: Map<number, string>): BusinessTerms => {
  const out = new TermWriter();
  const currency = text(root, 'DocumentCurrencyCode');
  const taxCurrency = text(root, 'TaxCurrencyCode');
  out.put('BT-1', text(root, 'ID'));
  out.put('BT-2', text(root, 'IssueDate'));
  out.put('BT-3', text(root, 'InvoiceTypeCode'));
  out.put('BT-5', currency);
  out.put('BT-6', taxCurrency);
  out.put('BT-7', text(root, 'TaxPointDate'));
  out.put('BT-8', text(root, 'InvoicePeriod/DescriptionCode'));
  out.put('BT-9', text(root, 'DueDate'));
  out.put('BT-10', text(root, 'BuyerReference'));
  out.put('BT-11', text(root, 'ProjectReference/ID'));
  out.put('BT-12', text(root, 'ContractDocumentReference/ID'));
  out.put('BT-13', text(root, 'OrderReference/ID'));
  out.put('BT-14', text(root, 'OrderReference/SalesOrderID'));
  out.put('BT-15', text(root, 'ReceiptDocumentReference/ID'));
  out.put('BT-16', text(root, 'DespatchDocumentReference/ID'));
  out.put('BT-17', text(root, 'OriginatorDocumentReference/ID'));
  const references = all(root, 'AdditionalDocumentReference');
  const objectReference = references.find((reference) => text(reference, 'DocumentTypeCode') === '130');
  out.put('BT-18', text(objectReference, 'ID'));
  out.put('BT-18-1', attribute(one(objectReference, 'ID'), 'schemeID'));
  out.put('BT-19', text(root, 'AccountingCost'));
  out.put('BT-20', text(root, 'PaymentTerms/Note'));
  all(root, 'Note').forEach((note, index) => out.group('BG-1', index).put('BT-22', text(note)));
  out.put('BT-23', text(root, 'ProfileID'));
  out.put('BT-24', text(root, 'CustomizationID'));
  all(root, 'BillingReference/InvoiceDocumentReference').forEach((reference, index) => {
    const group = out.group('BG-3', index);
    group.put('BT-25', text(reference, 'ID'));
    group.put('BT-26', text(reference, 'IssueDate'));
  });

  const seller = one(root, 'AccountingSupplierParty/Party');
  out.put('BT-27', text(seller, 'PartyLegalEntity/RegistrationName'));
  out.put('BT-28', text(seller, 'PartyName/Name'));
  all(seller, 'PartyIdentification/ID')
    .filter((id) => attribute(id, 'schemeID') !== 'SEPA')
    .forEach((id, index) => {
      out.put(`BT-29[${index}]`, text(id));
      out.put(`BT-29-1[${index}]`, attribute(id, 'schemeID'));
    });
  out.put('BT-30', text(seller, 'PartyLegalEntity/CompanyID'));
  out.put('BT-30-1', attribute(one(seller, 'PartyLegalEntity/CompanyID'), 'schemeID'));
  const sellerTax = ublVatAndTaxRegistration(seller);
  out.put('BT-31', sellerTax.vat);
  out.put('BT-32', sellerTax.other);
  out.put('BT-33', text(seller, 'PartyLegalEntity/CompanyLegalForm'));
  out.put('BT-34', text(seller, 'EndpointID'));
  out.put('BT-34-1', attribute(one(seller, 'EndpointID'), 'schemeID'));
  ublAddress(out, one(seller, 'PostalAddress'), SELLER_ADDRESS);
  out.put('BT-41', text(seller, 'Contact/Name'));
  out.put('BT-42', text(seller, 'Contact/Telephone'));
  out.put('BT-43', text(seller, 'Contact/ElectronicMail'));

  const buyer = one(root, 'AccountingCustomerParty/Party');
  out.put('BT-44', text(buyer, 'PartyLegalEntity/RegistrationName'));
  out.put('BT-45', text(buyer, 'PartyName/Name'));
  out.put('BT-46', text(buyer, 'PartyIdentification/ID'));
  out.put('BT-46-1', attribute(one(buyer, 'PartyIdentification/ID'), 'schemeID'));
  out.put('BT-47', text(buyer, 'PartyLegalEntity/CompanyID'));
  out.put('BT-47-1', attribute(one(buyer, 'PartyLegalEntity/CompanyID'), 'schemeID'));
  out.put('BT-48', ublVatAndTaxRegistration(buyer).vat);
  out.put('BT-49', text(buyer, 'EndpointID'));
  out.put('BT-49-1', attribute(one(buyer, 'EndpointID'), 'schemeID'));
  ublAddress(out, one(buyer, 'PostalAddress'), BUYER_ADDRESS);
  out.put('BT-56', text(buyer, 'Contact/Name'));
  out.put('BT-57', text(buyer, 'Contact/Telephone'));
  out.put('BT-58', text(buyer, 'Contact/ElectronicMail'));

  const payee = one(root, 'PayeeParty');
  out.put('BT-59', text(payee, 'PartyName/Name'));
  const payeeId = all(payee, 'PartyIdentification/ID').find((id) => attribute(id, 'schemeID') !== 'SEPA');
  out.put('BT-60', text(payeeId));
  out.put('BT-60-1', attribute(payeeId, 'schemeID'));
  out.put('BT-61', text(payee, 'PartyLegalEntity/CompanyID'));
  out.put('BT-61-1', attribute(one(payee, 'PartyLegalEntity/CompanyID'), 'schemeID'));

  const representative = one(root, 'TaxRepresentativeParty');
  out.put('BT-62', text(representative, 'PartyName/Name'));
  out.put('BT-63', ublVatAndTaxRegistration(representative).vat);
  ublAddress(out, one(representative, 'PostalAddress'), TAX_REPRESENTATIVE_ADDRESS);

  const delivery = one(root, 'Delivery');
  out.put('BT-70', text(delivery, 'DeliveryParty/PartyName/Name'));
  out.put('BT-71', text(delivery, 'DeliveryLocation/ID'));
  out.put('BT-71-1', attribute(one(delivery, 'DeliveryLocation/ID'), 'schemeID'));
  out.put('BT-72', text(delivery, 'ActualDeliveryDate'));
  out.put('BT-73', text(root, 'InvoicePeriod/StartDate'));
  out.put('BT-74', text(root, 'InvoicePeriod/EndDate'));
  ublAddress(out, one(delivery, 'DeliveryLocation/Address'), DELIVERY_ADDRESS);

  const means = all(root, 'PaymentMeans');
  out.put('BT-81', text(means[0], 'PaymentMeansCode'));
  out.put('BT-82', attribute(one(means[0], 'PaymentMeansCode'), 'name'));
  out.put('BT-83', means.map((entry) => text(entry, 'PaymentID')).find((id) => id !== undefined));
  means
    .flatMap((entry) => all(entry, 'PayeeFinancialAccount'))
    .forEach((account, index) => {
      const group = out.group('BG-17', index);
      group.put('BT-84', text(account, 'ID'));
      group.put('BT-85', text(account, 'Name'));
      group.put('BT-86', text(account, 'FinancialInstitutionBranch/ID'));
    });
  const card = means.map((entry) => one(entry, 'CardAccount')).find((account) => account !== undefined);
  out.put('BT-87', text(card, 'PrimaryAccountNumberID'));
  out.put('BT-88', text(card, 'HolderName'));
  const mandate = means.map((entry) => one(entry, 'PaymentMandate')).find((entry) => entry !== undefined);
  out.put('BT-89', text(mandate, 'ID'));
  const creditorId = [...all(seller, 'PartyIdentification/ID'), ...all(payee, 'PartyIdentification/ID')].find((id) => attribute(id, 'schemeID') === 'SEPA');
  out.put('BT-90', text(creditorId));
  out.put('BT-91', text(mandate, 'PayerFinancialAccount/ID'));

  const documentAllowanceCharges = all(root, 'AllowanceCharge');
  documentAllowanceCharges
    .filter((entry) => !isCharge(entry, 'ChargeIndicator'))
    .forEach((entry, index) => ublAllowanceCharge(out.group('BG-20', index), entry, DOCUMENT_ALLOWANCE, true));
  documentAllowanceCharges
    .filter((entry) => isCharge(entry, 'ChargeIndicator'))
    .forEach((entry, index) => ublAllowanceCharge(out.group('BG-21', index), entry, DOCUMENT_CHARGE, true));

  const totals = one(root, 'LegalMonetaryTotal');
  out.amount('BT-106', text(totals, 'LineExtensionAmount'));
  out.amount('BT-107', text(totals, 'AllowanceTotalAmount'));
  out.amount('BT-108', text(totals, 'ChargeTotalAmount'));
  out.amount('BT-109', text(totals, 'TaxExclusiveAmount'));
  const taxTotals = all(root, 'TaxTotal');
  const taxIn = (code: string | undefined) => taxTotals.find((total) => attribute(one(total, 'TaxAmount'), 'currencyID') === code);
  const documentTax = taxIn(currency) ?? taxTotals.find((total) => one(total, 'TaxSubtotal') !== undefined);
  out.amount('BT-110', text(documentTax, 'TaxAmount'));
  if (taxCurrency !== undefined && taxCurrency !== currency) out.amount('BT-111', text(taxIn(taxCurrency), 'TaxAmount'));
  out.amount('BT-112', text(totals, 'TaxInclusiveAmount'));
  out.amount('BT-113', text(totals, 'PrepaidAmount'));
  out.amount('BT-114', text(totals, 'PayableRoundingAmount'));
  out.amount('BT-115', text(totals, 'PayableAmount'));

  all(documentTax, 'TaxSubtotal').forEach((subtotal, index) => {
    const group = out.group('BG-23', index);
    group.amount('BT-116', text(subtotal, 'TaxableAmount'));
    group.amount('BT-117', text(subtotal, 'TaxAmount'));
    group.put('BT-118', text(subtotal, 'TaxCategory/ID'));
    group.amount('BT-119', text(subtotal, 'TaxCategory/Percent'));
    group.put('BT-120', text(subtotal, 'TaxCategory/TaxExemptionReason'));
    group.put('BT-121', text(subtotal, 'TaxCategory/TaxExemptionReasonCode'));
  });

  references
    .filter((reference) => !['130', '50'].includes(text(reference, 'DocumentTypeCode') ?? ''))
    .forEach((reference, index) => {
      const group = out.group('BG-24', index);
      group.put('BT-122', text(reference, 'ID'));
      group.put('BT-123', text(reference, 'DocumentDescription'));
      group.put('BT-124', text(reference, 'Attachment/ExternalReference/URI'));
      const binary = one(reference, 'Attachment/EmbeddedDocumentBinaryObject');
      if (binary && text(binary)) embedded.set(index, binary.text.replace(/\s+/g, ''));
      group.put('BT-125', binary && text(binary) ? sha256Of(text(binary)!) : undefined);
      group.put('BT-125-1', attribute(binary, 'mimeCode'));
      group.put('BT-125-2', attribute(binary, 'filename'));
    });

  all(root, 'InvoiceLine').forEach((line, index) => {
    const group = out.group('BG-25', index);
    group.put('BT-126', text(line, 'ID'));
    group.put('BT-127', text(line, 'Note'));
    const objectId = all(line, 'DocumentReference').find((reference) => text(reference, 'DocumentTypeCode') === '130');
    group.put('BT-128', text(objectId, 'ID'));
    group.put('BT-128-1', attribute(one(objectId, 'ID'), 'schemeID'));
    group.amount('BT-129', text(line, 'InvoicedQuantity'));
    group.put('BT-130', attribute(one(line, 'InvoicedQuantity'), 'unitCode'));
    group.amount('BT-131', text(line, 'LineExtensionAmount'));
    group.put('BT-132', text(line, 'OrderLineReference/LineID'));
    group.put('BT-133', text(line, 'AccountingCost'));
    group.put('BT-134', text(line, 'InvoicePeriod/StartDate'));
    group.put('BT-135', text(line, 'InvoicePeriod/EndDate'));
    const lineAllowanceCharges = all(line, 'AllowanceCharge');
    lineAllowanceCharges
      .filter((entry) => !isCharge(entry, 'ChargeIndicator'))
      .forEach((entry, allowance) => ublAllowanceCharge(group.group('BG-27', allowance), entry, LINE_ALLOWANCE, false));
    lineAllowanceCharges
      .filter((entry) => isCharge(entry, 'ChargeIndicator'))
      .forEach((entry, charge) => ublAllowanceCharge(group.group('BG-28', charge), entry, LINE_CHARGE, false));
    const price = one(line, 'Price');
    group.amount('BT-146', text(price, 'PriceAmount'));
    group.amount('BT-147', text(price, 'AllowanceCharge/Amount'));
    group.amount('BT-148', text(price, 'AllowanceCharge/BaseAmount'));
    group.amount('BT-149', text(price, 'BaseQuantity'));
    group.put('BT-150', attribute(one(price, 'BaseQuantity'), 'unitCode'));
    const item = one(line, 'Item');
    group.put('BT-151', text(item, 'ClassifiedTaxCategory/ID'));
    group.amount('BT-152', text(item, 'ClassifiedTaxCategory/Percent'));
    group.put('BT-153', text(item, 'Name'));
    group.put('BT-154', text(item, 'Description'));
    group.put('BT-155', text(item, 'SellersItemIdentification/ID'));
    group.put('BT-156', text(item, 'BuyersItemIdentification/ID'));
    group.put('BT-157', text(item, 'StandardItemIdentification/ID'));
    group.put('BT-157-1', attribute(one(item, 'StandardItemIdentification/ID'), 'schemeID'));
    all(item, 'CommodityClassification/ItemClassificationCode').forEach((code, classification) => {
      group.put(`BT-158[${classification}]`, text(code));
      group.put(`BT-158-1[${classification}]`, attribute(code, 'listID'));
      group.put(`BT-158-2[${classification}]`, attribute(code, 'listVersionID'));
    });
    group.put('BT-159', text(item, 'OriginCountry/IdentificationCode'));
    all(item, 'AdditionalItemProperty').forEach((property, attributeIndex) => {
      const attributeGroup = group.group('BG-32', attributeIndex);
      attributeGroup.put('BT-160', text(property, 'Name'));
      attributeGroup.put('BT-161', text(property, 'Value'));
    });
  });
  return out.terms;
};

// ---------------------------------------------------------------- CII D16B (EN 16931-3-3)

const ciiAddress = (out: TermWriter, address: Element | undefined, terms: AddressTerms): void => {
  out.put(terms.line1, text(address, 'LineOne'));
  out.put(terms.line2, text(address, 'LineTwo'));
  out.put(terms.line3, text(address, 'LineThree'));
  out.put(terms.city, text(address, 'CityName'));
  out.put(terms.postcode, text(address, 'PostcodeCode'));
  out.put(terms.subdivision, text(address, 'CountrySubDivisionName'));
  out.put(terms.country, text(address, 'CountryID'));
};

const ciiTaxRegistration = (party: Element | undefined, scheme: 'VA' | 'FC'): string | undefined =>
  text(all(party, 'SpecifiedTaxRegistration/ID').find((id) => attribute(id, 'schemeID') === scheme));

/** A party's identifiers: `ID` (no scheme) and `GlobalID` (with its scheme), in that order. */
const ciiIdentifiers = (party: Element | undefined): Element[] => [...all(party, 'ID'), ...all(party, 'GlobalID')];

const ciiContact = (out: TermWriter, party: Element | undefined, [name, phone, email]: [string, string, string]): void => {
  const contact = one(party, 'DefinedTradeContact');
  out.put(name, text(contact, 'PersonName') ?? text(contact, 'DepartmentName'));
  out.put(phone, text(contact, 'TelephoneUniversalCommunication/CompleteNumber'));
  out.put(email, text(contact, 'EmailURIUniversalCommunication/URIID'));
};

const ciiAllowanceCharge = (out: TermWriter, element: Element, terms: string[], withTax: boolean): void => {
  const [amount, base, percent, category, rate, reason, code] = terms as [string, string, string, string, string, string, string];
  out.amount(amount, text(element, 'ActualAmount'));
  out.amount(base, text(element, 'BasisAmount'));
  out.amount(percent, text(element, 'CalculationPercent'));
  if (withTax) {
    out.put(category, text(element, 'CategoryTradeTax/CategoryCode'));
    out.amount(rate, text(element, 'CategoryTradeTax/RateApplicablePercent'));
  }
  out.put(reason, text(element, 'Reason'));
  out.put(code, text(element, 'ReasonCode'));
};

const extractCii = (root: Element, embedded: Map<number, string>): BusinessTerms => {
  const out = new TermWriter();
  const document = one(root, 'ExchangedDocument');
  const transaction = one(root, 'SupplyChainTradeTransaction');
  const agreement = one(transaction, 'ApplicableHeaderTradeAgreement');
  const delivery = one(transaction, 'ApplicableHeaderTradeDelivery');
  const settlement = one(transaction, 'ApplicableHeaderTradeSettlement');
  const currency = text(settlement, 'InvoiceCurrencyCode');
  const taxCurrency = text(settlement, 'TaxCurrencyCode');
  const taxes = all(settlement, 'ApplicableTradeTax');
  const terms = one(settlement, 'SpecifiedTradePaymentTerms');

  out.put('BT-1', text(document, 'ID'));
  out.put('BT-2', ciiDate(one(document, 'IssueDateTime/DateTimeString')));
  out.put('BT-3', text(document, 'TypeCode'));
  out.put('BT-5', currency);
  out.put('BT-6', taxCurrency);
  out.put('BT-7', ciiDate(taxes.map((tax) => one(tax, 'TaxPointDate/DateString')).find((date) => date !== undefined)));
  const dueDateType = taxes.map((tax) => text(tax, 'DueDateTypeCode')).find((code) => code !== undefined);
  out.put('BT-8', dueDateType === undefined ? undefined : (CII_TAX_POINT_CODES[dueDateType] ?? dueDateType));
  out.put('BT-9', ciiDate(one(terms, 'DueDateDateTime/DateTimeString')));
  out.put('BT-10', text(agreement, 'BuyerReference'));
  out.put('BT-11', text(agreement, 'SpecifiedProcuringProject/ID'));
  out.put('BT-12', text(agreement, 'ContractReferencedDocument/IssuerAssignedID'));
  out.put('BT-13', text(agreement, 'BuyerOrderReferencedDocument/IssuerAssignedID'));
  out.put('BT-14', text(agreement, 'SellerOrderReferencedDocument/IssuerAssignedID'));
  out.put('BT-15', text(delivery, 'ReceivingAdviceReferencedDocument/IssuerAssignedID'));
  out.put('BT-16', text(delivery, 'DespatchAdviceReferencedDocument/IssuerAssignedID'));
  const references = all(agreement, 'AdditionalReferencedDocument');
  out.put('BT-17', text(references.find((reference) => text(reference, 'TypeCode') === '50'), 'IssuerAssignedID'));
  const objectReference = references.find((reference) => text(reference, 'TypeCode') === '130');
  out.put('BT-18', text(objectReference, 'IssuerAssignedID'));
  out.put('BT-18-1', text(objectReference, 'ReferenceTypeCode'));
  out.put('BT-19', text(settlement, 'ReceivableSpecifiedTradeAccountingAccount/ID'));
  out.put('BT-20', text(terms, 'Description'));
  all(document, 'IncludedNote').forEach((note, index) => {
    const group = out.group('BG-1', index);
    group.put('BT-21', text(note, 'SubjectCode'));
    group.put('BT-22', text(note, 'Content'));
  });
  const context = one(root, 'ExchangedDocumentContext');
  out.put('BT-23', text(context, 'BusinessProcessSpecifiedDocumentContextParameter/ID'));
  out.put('BT-24', text(context, 'GuidelineSpecifiedDocumentContextParameter/ID'));
  all(settlement, 'InvoiceReferencedDocument').forEach((reference, index) => {
    const group = out.group('BG-3', index);
    group.put('BT-25', text(reference, 'IssuerAssignedID'));
    group.put('BT-26', ciiDate(one(reference, 'FormattedIssueDateTime/DateTimeString')));
  });

  const seller = one(agreement, 'SellerTradeParty');
  out.put('BT-27', text(seller, 'Name'));
  out.put('BT-28', text(seller, 'SpecifiedLegalOrganization/TradingBusinessName'));
  ciiIdentifiers(seller).forEach((id, index) => {
    out.put(`BT-29[${index}]`, text(id));
    out.put(`BT-29-1[${index}]`, attribute(id, 'schemeID'));
  });
  out.put('BT-30', text(seller, 'SpecifiedLegalOrganization/ID'));
  out.put('BT-30-1', attribute(one(seller, 'SpecifiedLegalOrganization/ID'), 'schemeID'));
  out.put('BT-31', ciiTaxRegistration(seller, 'VA'));
  out.put('BT-32', ciiTaxRegistration(seller, 'FC'));
  out.put('BT-33', text(seller, 'Description'));
  out.put('BT-34', text(seller, 'URIUniversalCommunication/URIID'));
  out.put('BT-34-1', attribute(one(seller, 'URIUniversalCommunication/URIID'), 'schemeID'));
  ciiAddress(out, one(seller, 'PostalTradeAddress'), SELLER_ADDRESS);
  ciiContact(out, seller, ['BT-41', 'BT-42', 'BT-43']);

  const buyer = one(agreement, 'BuyerTradeParty');
  out.put('BT-44', text(buyer, 'Name'));
  out.put('BT-45', text(buyer, 'SpecifiedLegalOrganization/TradingBusinessName'));
  const buyerId = ciiIdentifiers(buyer)[0];
  out.put('BT-46', text(buyerId));
  out.put('BT-46-1', attribute(buyerId, 'schemeID'));
  out.put('BT-47', text(buyer, 'SpecifiedLegalOrganization/ID'));
  out.put('BT-47-1', attribute(one(buyer, 'SpecifiedLegalOrganization/ID'), 'schemeID'));
  out.put('BT-48', ciiTaxRegistration(buyer, 'VA'));
  out.put('BT-49', text(buyer, 'URIUniversalCommunication/URIID'));
  out.put('BT-49-1', attribute(one(buyer, 'URIUniversalCommunication/URIID'), 'schemeID'));
  ciiAddress(out, one(buyer, 'PostalTradeAddress'), BUYER_ADDRESS);
  ciiContact(out, buyer, ['BT-56', 'BT-57', 'BT-58']);

  const payee = one(settlement, 'PayeeTradeParty');
  out.put('BT-59', text(payee, 'Name'));
  const payeeId = ciiIdentifiers(payee)[0];
  out.put('BT-60', text(payeeId));
  out.put('BT-60-1', attribute(payeeId, 'schemeID'));
  out.put('BT-61', text(payee, 'SpecifiedLegalOrganization/ID'));
  out.put('BT-61-1', attribute(one(payee, 'SpecifiedLegalOrganization/ID'), 'schemeID'));

  const representative = one(agreement, 'SellerTaxRepresentativeTradeParty');
  out.put('BT-62', text(representative, 'Name'));
  out.put('BT-63', ciiTaxRegistration(representative, 'VA'));
  ciiAddress(out, one(representative, 'PostalTradeAddress'), TAX_REPRESENTATIVE_ADDRESS);

  const shipTo = one(delivery, 'ShipToTradeParty');
  out.put('BT-70', text(shipTo, 'Name'));
  const locationId = ciiIdentifiers(shipTo)[0];
  out.put('BT-71', text(locationId));
  out.put('BT-71-1', attribute(locationId, 'schemeID'));
  out.put('BT-72', ciiDate(one(delivery, 'ActualDeliverySupplyChainEvent/OccurrenceDateTime/DateTimeString')));
  out.put('BT-73', ciiDate(one(settlement, 'BillingSpecifiedPeriod/StartDateTime/DateTimeString')));
  out.put('BT-74', ciiDate(one(settlement, 'BillingSpecifiedPeriod/EndDateTime/DateTimeString')));
  ciiAddress(out, one(shipTo, 'PostalTradeAddress'), DELIVERY_ADDRESS);

  const means = all(settlement, 'SpecifiedTradeSettlementPaymentMeans');
  out.put('BT-81', text(means[0], 'TypeCode'));
  out.put('BT-82', text(means[0], 'Information'));
  out.put('BT-83', text(settlement, 'PaymentReference'));
  means
    .filter((entry) => one(entry, 'PayeePartyCreditorFinancialAccount') !== undefined)
    .forEach((entry, index) => {
      const group = out.group('BG-17', index);
      const account = one(entry, 'PayeePartyCreditorFinancialAccount');
      group.put('BT-84', text(account, 'IBANID') ?? text(account, 'ProprietaryID'));
      group.put('BT-85', text(account, 'AccountName'));
      group.put('BT-86', text(entry, 'PayeeSpecifiedCreditorFinancialInstitution/BICID'));
    });
  const card = means.map((entry) => one(entry, 'ApplicableTradeSettlementFinancialCard')).find((entry) => entry !== undefined);
  out.put('BT-87', text(card, 'ID'));
  out.put('BT-88', text(card, 'CardholderName'));
  out.put('BT-89', text(terms, 'DirectDebitMandateID'));
  out.put('BT-90', text(settlement, 'CreditorReferenceID'));
  out.put('BT-91', means.map((entry) => text(entry, 'PayerPartyDebtorFinancialAccount/IBANID')).find((iban) => iban !== undefined));

  const documentAllowanceCharges = all(settlement, 'SpecifiedTradeAllowanceCharge');
  documentAllowanceCharges
    .filter((entry) => !isCharge(entry, 'ChargeIndicator/Indicator'))
    .forEach((entry, index) => ciiAllowanceCharge(out.group('BG-20', index), entry, DOCUMENT_ALLOWANCE, true));
  documentAllowanceCharges
    .filter((entry) => isCharge(entry, 'ChargeIndicator/Indicator'))
    .forEach((entry, index) => ciiAllowanceCharge(out.group('BG-21', index), entry, DOCUMENT_CHARGE, true));

  const totals = one(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  out.amount('BT-106', text(totals, 'LineTotalAmount'));
  out.amount('BT-107', text(totals, 'AllowanceTotalAmount'));
  out.amount('BT-108', text(totals, 'ChargeTotalAmount'));
  out.amount('BT-109', text(totals, 'TaxBasisTotalAmount'));
  const taxTotals = all(totals, 'TaxTotalAmount');
  const taxIn = (code: string | undefined) => taxTotals.find((total) => attribute(total, 'currencyID') === code);
  out.amount('BT-110', text(taxIn(currency) ?? taxTotals.find((total) => attribute(total, 'currencyID') === undefined)));
  if (taxCurrency !== undefined && taxCurrency !== currency) out.amount('BT-111', text(taxIn(taxCurrency)));
  out.amount('BT-112', text(totals, 'GrandTotalAmount'));
  out.amount('BT-113', text(totals, 'TotalPrepaidAmount'));
  out.amount('BT-114', text(totals, 'RoundingAmount'));
  out.amount('BT-115', text(totals, 'DuePayableAmount'));

  taxes.forEach((tax, index) => {
    const group = out.group('BG-23', index);
    group.amount('BT-116', text(tax, 'BasisAmount'));
    group.amount('BT-117', text(tax, 'CalculatedAmount'));
    group.put('BT-118', text(tax, 'CategoryCode'));
    group.amount('BT-119', text(tax, 'RateApplicablePercent'));
    group.put('BT-120', text(tax, 'ExemptionReason'));
    group.put('BT-121', text(tax, 'ExemptionReasonCode'));
  });

  references
    .filter((reference) => text(reference, 'TypeCode') === '916')
    .forEach((reference, index) => {
      const group = out.group('BG-24', index);
      group.put('BT-122', text(reference, 'IssuerAssignedID'));
      group.put('BT-123', text(reference, 'Name'));
      group.put('BT-124', text(reference, 'URIID'));
      const binary = one(reference, 'AttachmentBinaryObject');
      if (binary && text(binary)) embedded.set(index, binary.text.replace(/\s+/g, ''));
      group.put('BT-125', binary && text(binary) ? sha256Of(text(binary)!) : undefined);
      group.put('BT-125-1', attribute(binary, 'mimeCode'));
      group.put('BT-125-2', attribute(binary, 'filename'));
    });

  all(transaction, 'IncludedSupplyChainTradeLineItem').forEach((line, index) => {
    const group = out.group('BG-25', index);
    const lineDocument = one(line, 'AssociatedDocumentLineDocument');
    const lineAgreement = one(line, 'SpecifiedLineTradeAgreement');
    const lineSettlement = one(line, 'SpecifiedLineTradeSettlement');
    const product = one(line, 'SpecifiedTradeProduct');
    group.put('BT-126', text(lineDocument, 'LineID'));
    group.put('BT-127', text(lineDocument, 'IncludedNote/Content'));
    const objectId = all(lineSettlement, 'AdditionalReferencedDocument').find((reference) => text(reference, 'TypeCode') === '130');
    group.put('BT-128', text(objectId, 'IssuerAssignedID'));
    group.put('BT-128-1', text(objectId, 'ReferenceTypeCode'));
    const quantity = one(line, 'SpecifiedLineTradeDelivery/BilledQuantity');
    group.amount('BT-129', text(quantity));
    group.put('BT-130', attribute(quantity, 'unitCode'));
    group.amount('BT-131', text(lineSettlement, 'SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount'));
    group.put('BT-132', text(lineAgreement, 'BuyerOrderReferencedDocument/LineID'));
    group.put('BT-133', text(lineSettlement, 'ReceivableSpecifiedTradeAccountingAccount/ID'));
    group.put('BT-134', ciiDate(one(lineSettlement, 'BillingSpecifiedPeriod/StartDateTime/DateTimeString')));
    group.put('BT-135', ciiDate(one(lineSettlement, 'BillingSpecifiedPeriod/EndDateTime/DateTimeString')));
    const lineAllowanceCharges = all(lineSettlement, 'SpecifiedTradeAllowanceCharge');
    lineAllowanceCharges
      .filter((entry) => !isCharge(entry, 'ChargeIndicator/Indicator'))
      .forEach((entry, allowance) => ciiAllowanceCharge(group.group('BG-27', allowance), entry, LINE_ALLOWANCE, false));
    lineAllowanceCharges
      .filter((entry) => isCharge(entry, 'ChargeIndicator/Indicator'))
      .forEach((entry, charge) => ciiAllowanceCharge(group.group('BG-28', charge), entry, LINE_CHARGE, false));
    const net = one(lineAgreement, 'NetPriceProductTradePrice');
    const gross = one(lineAgreement, 'GrossPriceProductTradePrice');
    group.amount('BT-146', text(net, 'ChargeAmount'));
    group.amount('BT-147', text(gross, 'AppliedTradeAllowanceCharge/ActualAmount'));
    group.amount('BT-148', text(gross, 'ChargeAmount'));
    const baseQuantity = one(net, 'BasisQuantity') ?? one(gross, 'BasisQuantity');
    group.amount('BT-149', text(baseQuantity));
    group.put('BT-150', attribute(baseQuantity, 'unitCode'));
    group.put('BT-151', text(lineSettlement, 'ApplicableTradeTax/CategoryCode'));
    group.amount('BT-152', text(lineSettlement, 'ApplicableTradeTax/RateApplicablePercent'));
    group.put('BT-153', text(product, 'Name'));
    group.put('BT-154', text(product, 'Description'));
    group.put('BT-155', text(product, 'SellerAssignedID'));
    group.put('BT-156', text(product, 'BuyerAssignedID'));
    group.put('BT-157', text(product, 'GlobalID'));
    group.put('BT-157-1', attribute(one(product, 'GlobalID'), 'schemeID'));
    all(product, 'DesignatedProductClassification/ClassCode').forEach((code, classification) => {
      group.put(`BT-158[${classification}]`, text(code));
      group.put(`BT-158-1[${classification}]`, attribute(code, 'listID'));
      group.put(`BT-158-2[${classification}]`, attribute(code, 'listVersionID'));
    });
    group.put('BT-159', text(product, 'OriginTradeCountry/ID'));
    all(product, 'ApplicableProductCharacteristic').forEach((characteristic, attributeIndex) => {
      const attributeGroup = group.group('BG-32', attributeIndex);
      attributeGroup.put('BT-160', text(characteristic, 'Description'));
      attributeGroup.put('BT-161', text(characteristic, 'Value'));
    });
  });
  return out.terms;
};

/** The syntax of a document, from its root element. */
export const syntaxOf = (xml: string | Buffer): Syntax | 'ubl-credit-note' => {
  const root = parseRoot(xml).name;
  if (root === 'Invoice') return 'ubl';
  if (root === 'CreditNote') return 'ubl-credit-note';
  if (root === 'CrossIndustryInvoice') return 'cii';
  throw new Error(`not an EN 16931 invoice: root element ${root}`);
};

/**
 * Every business term of a UBL 2.1 Invoice or a CII D16B CrossIndustryInvoice. `embedded`, when
 * given, receives the base64 content of each embedded document (BT-125) by its BG-24 index.
 */
export const extractBusinessTerms = (xml: string | Buffer, embedded: Map<number, string> = new Map()): BusinessTerms => {
  const root = parseRoot(xml);
  if (root.name === 'Invoice') return extractUbl(root, embedded);
  if (root.name === 'CrossIndustryInvoice') return extractCii(root, embedded);
  throw new Error(`cannot read business terms of a ${root.name} (only UBL Invoice and CII CrossIndustryInvoice)`);
};

/** The business term a path ends in, without group indexes or keys: `BG-25[2]/BG-27[0]/BT-136` → `BG-25/BG-27/BT-136`. */
export const termOf = (path: string): string => path.replace(/\[[^\]]*\]/g, '');

export interface TermDifference {
  path: string;
  expected: string | undefined;
  actual: string | undefined;
}

/** Every path whose values differ (missing on one side included), sorted by path. */
export const diffBusinessTerms = (expected: BusinessTerms, actual: BusinessTerms): TermDifference[] =>
  [...new Set([...expected.keys(), ...actual.keys()])]
    .filter((path) => expected.get(path) !== actual.get(path))
    .sort(comparePaths)
    .map((path) => ({ path, expected: expected.get(path), actual: actual.get(path) }));

/** Orders `BT-2` before `BT-10` and `BG-25[2]` before `BG-25[10]`. */
export const comparePaths = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });
