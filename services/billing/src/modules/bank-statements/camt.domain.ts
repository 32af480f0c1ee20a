import { isCurrencyCode, minorUnitExponent } from '@invoicing/contracts';
import { AppError, invalidRequest } from '@invoicing/service-kit/app-error';
import { XMLValidator } from 'fast-xml-parser';
import { readXmlTree, type XmlNode } from './xml-tree.ts';

/**
 * Reading ISO 20022 bank-to-customer cash management messages: camt.053 (statements) and camt.054
 * (debit/credit notifications), versions 001.02, 001.04 and 001.08, which share the entry and
 * transaction structure this reads (decisions.md, "Payments and bank statements").
 */
export const SUPPORTED_MESSAGES = ['camt.053.001.02', 'camt.053.001.04', 'camt.053.001.08', 'camt.054.001.02', 'camt.054.001.04', 'camt.054.001.08'] as const;
export type CamtMessage = (typeof SUPPORTED_MESSAGES)[number];

/** No camt document nests deeper than about 15 elements; the parsers never see a deeper one. */
export const XML_NESTING_MAX = 64;

/** One transaction of a statement as billing keeps it: one entry, or one transaction of a batch booking. */
export interface StatementTransaction {
  accountIban: string | null;
  bookingDate: string | null;
  /** Minor units, positive. */
  amount: number;
  currency: string;
  creditDebit: 'credit' | 'debit';
  /** Booked (`BOOK`); pending or information-only entries are not money received. */
  booked: boolean;
  /**
   * The entry undoes an earlier one (`RvslInd` true): a credit that reverses a debit returned to
   * the account is not a customer's payment, and a debit reversing a credit pays nothing back
   * (a payment recorded stays: reversing one is outside the API).
   */
  reversal: boolean;
  remittanceInformation: string | null;
  counterpartyName: string | null;
  bankReference: string | null;
}

export interface ParsedStatement {
  message: CamtMessage;
  accountIban: string | null;
  from: string | null;
  to: string | null;
  transactions: StatementTransaction[];
}

const refuse = (message: string): never => {
  throw invalidRequest(`The body is not a readable camt.053 or camt.054 document: ${message}`, [{ path: 'body', message }]);
};

/**
 * Checks made on the text before any parser reads it: a document type definition (the door to
 * entity expansion, "billion laughs", and to external entities) is refused outright, as camt never
 * has one; and so is nesting deeper than XML_NESTING_MAX, counted over the tags.
 */
export const assertSafeXml = (text: string): void => {
  if (text.trim() === '') refuse('the body is empty');
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) refuse('a document type definition (DOCTYPE or ENTITY) is not allowed');
  let depth = 0;
  const tags = /<(\/?)([^>]*?)(\/?)>/g;
  for (let match = tags.exec(text); match !== null; match = tags.exec(text)) {
    const [, closing, inner, selfClosing] = match;
    if (inner!.startsWith('?') || inner!.startsWith('!')) continue;
    if (closing) depth -= 1;
    else if (!selfClosing) {
      depth += 1;
      if (depth > XML_NESTING_MAX) refuse(`elements nest more than ${XML_NESTING_MAX} levels deep`);
    }
  }
};

/**
 * The document is well-formed XML (after `assertSafeXml`, before the schema check): otherwise a
 * 400 naming the first fault and where it is, such as a download cut short (the elements left
 * open) or a bare `&`, instead of the schema checker's bare "failed to parse".
 */
export const assertWellFormed = (text: string): void => {
  const result = XMLValidator.validate(text);
  if (result === true) return;
  const { code, msg, line, col } = result.err;
  const open = code === 'InvalidXml' && msg.startsWith("Invalid '[") ? [...msg.matchAll(/"([^"]+)"/g)].map(([, name]) => name) : [];
  refuse(open.length > 0 ? `not well-formed XML: the document ends with elements left open (${open.join(' > ')})` : `not well-formed XML at line ${line}, column ${col}: ${msg}`);
};

const NAMESPACE = /xmlns(?::\w+)?\s*=\s*["']urn:iso:std:iso:20022:tech:xsd:(camt\.05\d\.\d{3}\.\d{2})["']/;

/** The camt message and version the document's namespace names; anything else is a 400. */
export const messageOf = (text: string): CamtMessage => {
  const found = NAMESPACE.exec(text.slice(0, 4096))?.[1];
  if (!found) return refuse('no ISO 20022 camt namespace (urn:iso:std:iso:20022:tech:xsd:camt.053… or camt.054…) on the document');
  if (!(SUPPORTED_MESSAGES as readonly string[]).includes(found)) return refuse(`${found} is not supported; supported: ${SUPPORTED_MESSAGES.join(', ')}`);
  return found as CamtMessage;
};

// Elements that may repeat: read as arrays whether they hold one or several.
const REPEATED = new Set(['Stmt', 'Ntfctn', 'Rpt', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd', 'AddtlRmtInf', 'Bal']);

type Node = XmlNode;
const child = (node: unknown, ...path: string[]): unknown => path.reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Node)[key] : undefined), node);
const list = (node: unknown): unknown[] => (Array.isArray(node) ? node : node === undefined ? [] : [node]);
const text = (node: unknown): string | null => {
  if (typeof node === 'string') return node.trim() === '' ? null : node.trim();
  if (node && typeof node === 'object' && '#text' in node) return text((node as Node)['#text']);
  return null;
};
const dateOf = (node: unknown): string | null => {
  const value = text(child(node, 'Dt')) ?? text(child(node, 'DtTm'));
  return value ? value.slice(0, 10) : null;
};

/** A decimal amount as minor units of its currency: exact, never rounded. */
export const toMinorUnits = (amount: string, currency: string): number => {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return refuse(`the amount "${amount}" is not a decimal number`);
  const exponent = minorUnitExponent(currency);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > exponent) return refuse(`the amount ${amount} ${currency} has more decimals than ${currency} has minor units`);
  const minor = Number(`${match[1]}${fraction.padEnd(exponent, '0')}`);
  if (!Number.isSafeInteger(minor)) return refuse(`the amount ${amount} ${currency} is too large`);
  return minor;
};

const amountOf = (node: unknown): { amount: number; currency: string } | null => {
  const value = text(node);
  const currency = (node && typeof node === 'object' ? text((node as Node)['@Ccy']) : null)?.toUpperCase();
  if (value === null || !currency) return null;
  if (!isCurrencyCode(currency)) refuse(`${currency} is not an ISO 4217 currency`);
  return { amount: toMinorUnits(value, currency), currency };
};

/** The party's name: `Nm` directly (001.02, 001.04) or inside `Pty` (001.08). */
const partyName = (party: unknown): string | null => text(child(party, 'Nm')) ?? text(child(party, 'Pty', 'Nm'));

/** Remittance information as people read it: every unstructured line, then each structured reference. */
const remittanceOf = (transaction: unknown): string | null => {
  const information = child(transaction, 'RmtInf');
  const parts = [
    ...list(child(information, 'Ustrd')).map(text),
    ...list(child(information, 'Strd')).flatMap((structured) => [text(child(structured, 'CdtrRefInf', 'Ref')), ...list(child(structured, 'AddtlRmtInf')).map(text)]),
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(' ') : null;
};

const isCredit = (node: unknown): boolean | null => {
  const indicator = text(child(node, 'CdtDbtInd'));
  return indicator === 'CRDT' ? true : indicator === 'DBIT' ? false : null;
};

const accountOf = (report: unknown): string | null => text(child(report, 'Acct', 'Id', 'IBAN')) ?? text(child(report, 'Acct', 'Id', 'Othr', 'Id'));

/** An entry's transactions: itself when it has one transaction or none, each transaction of a batch booking otherwise. */
const transactionsOf = (entry: unknown, accountIban: string | null): StatementTransaction[] => {
  const entryAmount = amountOf(child(entry, 'Amt'));
  if (!entryAmount) return refuse('an entry (Ntry) has no amount with a currency');
  const entryCredit = isCredit(entry);
  if (entryCredit === null) return refuse('an entry (Ntry) has no CdtDbtInd of CRDT or DBIT');
  const status = text(child(entry, 'Sts')) ?? text(child(entry, 'Sts', 'Cd'));
  const booked = status === null || status === 'BOOK';
  const reversal = text(child(entry, 'RvslInd')) === 'true';
  const bookingDate = dateOf(child(entry, 'BookgDt')) ?? dateOf(child(entry, 'ValDt'));
  const entryReference = text(child(entry, 'AcctSvcrRef'));
  const details = list(child(entry, 'NtryDtls')).flatMap((each) => list(child(each, 'TxDtls')));
  const counterparty = (transaction: unknown, credit: boolean) =>
    credit
      ? (partyName(child(transaction, 'RltdPties', 'Dbtr')) ?? partyName(child(transaction, 'RltdPties', 'UltmtDbtr')))
      : (partyName(child(transaction, 'RltdPties', 'Cdtr')) ?? partyName(child(transaction, 'RltdPties', 'UltmtCdtr')));
  const transactionAmount = (transaction: unknown) =>
    amountOf(child(transaction, 'Amt')) ?? amountOf(child(transaction, 'AmtDtls', 'TxAmt', 'Amt')) ?? amountOf(child(transaction, 'AmtDtls', 'InstdAmt', 'Amt'));
  const amounts = details.map(transactionAmount);
  if (details.length <= 1 || amounts.some((amount) => amount === null)) {
    // One transaction, or a batch whose transactions state no amounts of their own: the entry as
    // a whole, with every transaction's remittance information (several references match no one invoice).
    const transaction = details[0];
    const remittances = details.map(remittanceOf).filter((each): each is string => each !== null);
    return [
      {
        accountIban,
        bookingDate,
        ...entryAmount,
        creditDebit: entryCredit ? 'credit' : 'debit',
        booked,
        reversal,
        remittanceInformation: remittances.length > 0 ? remittances.join(' ') : text(child(entry, 'AddtlNtryInf')),
        counterpartyName: counterparty(transaction, entryCredit),
        bankReference: (details.length === 1 ? text(child(transaction, 'Refs', 'AcctSvcrRef')) : null) ?? entryReference,
      },
    ];
  }
  // A batch booking: one entry for several transactions, each with its own amount and references.
  return details.map((transaction, index) => {
    const amount = amounts[index]!;
    const credit = isCredit(transaction) ?? entryCredit;
    return {
      accountIban,
      bookingDate,
      ...amount,
      creditDebit: credit ? 'credit' : 'debit',
      booked,
      reversal,
      remittanceInformation: remittanceOf(transaction),
      counterpartyName: counterparty(transaction, credit),
      bankReference: text(child(transaction, 'Refs', 'AcctSvcrRef')) ?? (entryReference ? `${entryReference}/${index + 1}` : null),
    };
  });
};

/**
 * Reads a camt.053 or camt.054 document (checked by `assertSafeXml` and against its schema
 * before): its account, its period and every transaction; a document it cannot read is a 400
 * naming what is wrong.
 */
export const parseCamt = (xml: string, message: CamtMessage = messageOf(xml)): ParsedStatement => {
  // Entries are read one at a time as the parser reaches them (their statement's account comes
  // before them in the document), so a statement of many entries never stands in memory as a tree.
  const transactions: StatementTransaction[] = [];
  let document: Node;
  try {
    document = readXmlTree(xml, { repeated: REPEATED, detached: 'Ntry', onDetached: (entry, report) => transactions.push(...transactionsOf(entry, accountOf(report))) });
  } catch (error) {
    if (error instanceof AppError) throw error;
    return refuse((error as Error).message.replaceAll('\n', ' '));
  }
  const root = child(document, 'Document');
  const reports = message.startsWith('camt.053') ? list(child(root, 'BkToCstmrStmt', 'Stmt')) : list(child(root, 'BkToCstmrDbtCdtNtfctn', 'Ntfctn'));
  if (reports.length === 0) return refuse(message.startsWith('camt.053') ? 'no statement (BkToCstmrStmt/Stmt)' : 'no notification (BkToCstmrDbtCdtNtfctn/Ntfctn)');
  const froms = reports.map((report) => text(child(report, 'FrToDt', 'FrDtTm'))?.slice(0, 10)).filter((date): date is string => !!date);
  const tos = reports.map((report) => text(child(report, 'FrToDt', 'ToDtTm'))?.slice(0, 10)).filter((date): date is string => !!date);
  const bookingDates = transactions.map((transaction) => transaction.bookingDate).filter((date): date is string => date !== null).sort();
  return {
    message,
    accountIban: accountOf(reports[0]),
    from: froms.sort()[0] ?? bookingDates[0] ?? null,
    to: tos.sort().at(-1) ?? bookingDates.at(-1) ?? null,
    transactions,
  };
};
