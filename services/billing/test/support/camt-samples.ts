/**
 * Bank statements shaped like published camt.053/camt.054 documents, filled with a test's
 * invoices. Each keeps the structure of its model (which elements, nested how, which references
 * where); the values are the test's. Where each shape comes from, how close it stays to its model
 * and what is only modelled: camt-samples.md, beside this file.
 *
 * - `danskeCamt053V02`: genkgo/camt's camt.053.001.02 test file (Danske Bank's BIC as recipient):
 *   one transaction per entry, a proprietary `Refs/Prtry` and no `AcctSvcrRef`, a structured
 *   creditor reference (`Strd/CdtrRefInf/Ref`), debtor name and address under `RltdPties/Dbtr`.
 * - `dutchCamt053V02`: a composite of the Dutch banks' conventions (ABN AMRO's and ING's examples):
 *   entry-level `AcctSvcrRef`, `Refs/EndToEndId` NOTPROVIDED, free text `RmtInf/Ustrd` typed by
 *   the payer, and the SEPA search string `/TRTP/…/REMI/…` in `AddtlNtryInf`.
 * - `ubsCamt054V08`: genkgo/camt's camt.054.001.08 test file (account servicer UBS Switzerland AG):
 *   a batch booking, one entry (`NtryDtls/Btch/NbOfTxs`) for several transactions, each with its
 *   own `Amt`, `CdtDbtInd` and structured reference, the debtor under `RltdPties/Dbtr/Pty`.
 * - `isoCamt053V08`: the identifiers of ISO 20022's camt.053 example (AAAASESS) as genkgo/camt's
 *   camt.053.001.08 test file has them: `Sts/Cd`, `Refs/AcctSvcrRef` per transaction, `Ustrd`.
 * - `abnAmroCamt053V02`: ABN AMRO's example day statement: an entry whose only text is
 *   `AddtlNtryInf`, and an acceptgiro batch whose transactions all repeat the entry's `AcctSvcrRef`.
 * - `rabobankCamt053V02`: a Rabobank export of several months: one `Stmt` per business day in one
 *   document (most with no entry), no bank reference anywhere, free text `Ustrd` only.
 */

export interface Credit {
  amount: string;
  currency?: string;
  remittance: string;
  reference?: string | null;
  debtor?: string;
  date?: string;
  credit?: boolean;
  /** `RvslInd` true: the entry reverses an earlier one (written by the samples that state `RvslInd`). */
  reversal?: boolean;
}

const xmlText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const indicator = (credit: Credit) => (credit.credit === false ? 'DBIT' : 'CRDT');

export const danskeCamt053V02 = (iban: string, credits: readonly Credit[], messageId = 'CAMT053RIB000000000001') => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr>
      <MsgId>${messageId}</MsgId>
      <CreDtTm>2026-11-20T18:43:50+00:00</CreDtTm>
      <MsgRcpt><Nm>SELLER GMBH</Nm><Id><OrgId><BICOrBEI>DABAIE2D</BICOrBEI></OrgId></Id></MsgRcpt>
    </GrpHdr>
    <Stmt>
      <Id>253EUR${iban}</Id>
      <ElctrncSeqNb>12312</ElctrncSeqNb>
      <LglSeqNb>12312</LglSeqNb>
      <CreDtTm>2026-11-20T18:43:50+00:00</CreDtTm>
      <FrToDt><FrDtTm>2026-11-19T00:00:00+01:00</FrDtTm><ToDtTm>2026-11-20T23:59:59+01:00</ToDtTm></FrToDt>
      <Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">18.15</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-19</Dt></Dt></Bal>
      ${credits
        .map(
          (credit, index) => `<Ntry>
        <Amt Ccy="${credit.currency ?? 'EUR'}">${credit.amount}</Amt>
        <CdtDbtInd>${indicator(credit)}</CdtDbtInd>
        <RvslInd>${credit.reversal === true}</RvslInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>${credit.date ?? '2026-11-20'}</Dt></BookgDt>
        <ValDt><Dt>${credit.date ?? '2026-11-20'}</Dt></ValDt>
        <BkTxCd><Prtry><Cd>544</Cd></Prtry></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs><Prtry><Tp>LegalSequenceNumber</Tp><Ref>${100 + index}</Ref></Prtry></Refs>
            <BkTxCd><Prtry><Cd>544</Cd></Prtry></BkTxCd>
            <RltdPties>
              <Dbtr><Nm>${xmlText(credit.debtor ?? 'NAME NAME')}</Nm><PstlAdr><Ctry>NL</Ctry><AdrLine>ADDR ADDR 10</AdrLine><AdrLine>2000 ANTWERPEN</AdrLine></PstlAdr></Dbtr>
              <DbtrAcct><Id><IBAN>NL56AGDH9619008421</IBAN></Id></DbtrAcct>
            </RltdPties>
            <RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${xmlText(credit.remittance)}</Ref></CdtrRefInf></Strd></RmtInf>
          </TxDtls>
        </NtryDtls>
      </Ntry>`,
        )
        .join('\n      ')}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;

export const dutchCamt053V02 = (iban: string, credits: readonly Credit[], messageId = 'INGB-2026-11-20') => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${messageId}</MsgId><CreDtTm>2026-11-20T21:00:00</CreDtTm><MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn></GrpHdr>
    <Stmt>
      <Id>${messageId}-1</Id>
      <ElctrncSeqNb>1</ElctrncSeqNb>
      <CreDtTm>2026-11-20T21:00:00</CreDtTm>
      <Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy><Svcr><FinInstnId><BIC>INGBNL2A</BIC></FinInstnId></Svcr></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
      ${credits
        .map(
          (credit, index) => `<Ntry>
        <Amt Ccy="${credit.currency ?? 'EUR'}">${credit.amount}</Amt>
        <CdtDbtInd>${indicator(credit)}</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>${credit.date ?? '2026-11-20'}</Dt></BookgDt>
        <ValDt><Dt>${credit.date ?? '2026-11-20'}</Dt></ValDt>
        ${credit.reference === null ? '' : `<AcctSvcrRef>${credit.reference ?? `232070C7H4CY${index + 10}`}</AcctSvcrRef>`}
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn><Prtry><Cd>100</Cd><Issr>INGBANK</Issr></Prtry></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
            <AmtDtls><TxAmt><Amt Ccy="${credit.currency ?? 'EUR'}">${credit.amount}</Amt></TxAmt></AmtDtls>
            <RltdPties><Dbtr><Nm>${xmlText(credit.debtor ?? 'Klant B.V.')}</Nm></Dbtr><DbtrAcct><Id><IBAN>NL86INGB0002445588</IBAN></Id></DbtrAcct></RltdPties>
            <RltdAgts><DbtrAgt><FinInstnId><BIC>RABONL2U</BIC></FinInstnId></DbtrAgt></RltdAgts>
            <RmtInf><Ustrd>${xmlText(credit.remittance)}</Ustrd></RmtInf>
          </TxDtls>
        </NtryDtls>
        <AddtlNtryInf>/TRTP/SEPA OVERBOEKING/IBAN/NL86INGB0002445588/BIC/RABONL2U/NAME/${xmlText(credit.debtor ?? 'Klant B.V.')}/REMI/${xmlText(credit.remittance)}/EREF/NOTPROVIDED</AddtlNtryInf>
      </Ntry>`,
        )
        .join('\n      ')}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;

/** A batch booking: one entry for all `credits`, each a transaction of its own (all credits, or all debits). */
export const ubsCamt054V08 = (iban: string, credits: readonly Credit[], batchReference = 'ACSR160617103200001') => {
  const total = credits.reduce((sum, credit) => sum + Math.round(Number(credit.amount) * 100), 0);
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr><MsgId>20261120375204000006</MsgId><CreDtTm>2026-11-20T10:15:00</CreDtTm></GrpHdr>
    <Ntfctn>
      <Id>20261120375204000006-1</Id>
      <CreDtTm>2026-11-20T10:15:00</CreDtTm>
      <FrToDt><FrDtTm>2026-11-20T00:00:00</FrDtTm><ToDtTm>2026-11-20T23:59:59</ToDtTm></FrToDt>
      <Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>CHF</Ccy><Ownr><Nm>SELLER AG</Nm></Ownr><Svcr><FinInstnId><BICFI>UBSWCHZH80A</BICFI><Nm>UBS SWITZERLAND AG</Nm></FinInstnId></Svcr></Acct>
      <Ntry>
        <Amt Ccy="${credits[0]?.currency ?? 'CHF'}">${(total / 100).toFixed(2)}</Amt>
        <CdtDbtInd>${credits[0] ? indicator(credits[0]) : 'CRDT'}</CdtDbtInd>
        <RvslInd>false</RvslInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>2026-11-20</Dt></BookgDt>
        <ValDt><Dt>2026-11-20</Dt></ValDt>
        <AcctSvcrRef>${batchReference}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>VCOM</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls>
          <Btch><NbOfTxs>${credits.length}</NbOfTxs><TtlAmt Ccy="${credits[0]?.currency ?? 'CHF'}">${(total / 100).toFixed(2)}</TtlAmt><CdtDbtInd>CRDT</CdtDbtInd></Btch>
          ${credits
            .map(
              (credit, index) => `<TxDtls>
            <Refs><AcctSvcrRef>${credit.reference ?? `${batchReference}-${index + 1}`}</AcctSvcrRef><EndToEndId>UXC06170000006PI00001EE0000${index + 1}</EndToEndId></Refs>
            <Amt Ccy="${credit.currency ?? 'CHF'}">${credit.amount}</Amt>
            <CdtDbtInd>${indicator(credit)}</CdtDbtInd>
            <AmtDtls><TxAmt><Amt Ccy="${credit.currency ?? 'CHF'}">${credit.amount}</Amt></TxAmt></AmtDtls>
            <RltdPties>
              <Dbtr><Pty><Nm>${xmlText(credit.debtor ?? 'UNIFITS GmbH')}</Nm><PstlAdr><StrtNm>Bahnhofstrasse</StrtNm><PstCd>3131</PstCd><TwnNm>Bern</TwnNm><Ctry>CH</Ctry></PstlAdr></Pty></Dbtr>
              <DbtrAcct><Id><IBAN>CH4112345003131313131</IBAN></Id></DbtrAcct>
            </RltdPties>
            <RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Prtry>QRR</Prtry></CdOrPrtry></Tp><Ref>${xmlText(credit.remittance)}</Ref></CdtrRefInf></Strd></RmtInf>
          </TxDtls>`,
            )
            .join('\n          ')}
        </NtryDtls>
      </Ntry>
    </Ntfctn>
  </BkToCstmrDbtCdtNtfctn>
</Document>
`;
};

export const isoCamt053V08 = (iban: string, credits: readonly Credit[]) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>AAAASESS-FP-STAT001</MsgId><CreDtTm>2026-11-20T17:30:47.0+01:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>AAAASESS-FP-STAT001</Id>
      <CreDtTm>2026-11-20T17:30:47.0+01:00</CreDtTm>
      <FrToDt><FrDtTm>2026-11-20T08:00:00.0+01:00</FrDtTm><ToDtTm>2026-11-20T17:30:00.0+01:00</ToDtTm></FrToDt>
      <Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy><Ownr><Nm>Seller GmbH</Nm></Ownr><Svcr><FinInstnId><BICFI>AAAASESS</BICFI></FinInstnId></Svcr></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">500000</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
      ${credits
        .map(
          (credit, index) => `<Ntry>
        <NtryRef>${index + 1}</NtryRef>
        <Amt Ccy="${credit.currency ?? 'EUR'}">${credit.amount}</Amt>
        <CdtDbtInd>${indicator(credit)}</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${credit.date ?? '2026-11-20'}</Dt></BookgDt>
        <ValDt><Dt>${credit.date ?? '2026-11-20'}</Dt></ValDt>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs>${credit.reference === null ? '' : `<AcctSvcrRef>${credit.reference ?? `AAAASESS-FP-CN_98765/0${index + 1}`}</AcctSvcrRef>`}<EndToEndId>MUELL/FINP/RA12345</EndToEndId></Refs>
            <Amt Ccy="${credit.currency ?? 'EUR'}">${credit.amount}</Amt>
            <CdtDbtInd>${indicator(credit)}</CdtDbtInd>
            <RltdPties><Dbtr><Pty><Nm>${xmlText(credit.debtor ?? 'MUELLER')}</Nm></Pty></Dbtr></RltdPties>
            <RmtInf><Ustrd>${xmlText(credit.remittance)}</Ustrd></RmtInf>
          </TxDtls>
        </NtryDtls>
      </Ntry>`,
        )
        .join('\n      ')}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;

/** A statement shaped like ABN AMRO's example day statement: which credits it holds (see README.md). */
export interface AbnAmroDay {
  /** "Inkomende domestic overboeking": an entry without transaction details, its only text in `AddtlNtryInf`. */
  domestic: Credit;
  /** "Inkomende SCT": free text in `Ustrd`, and the SEPA search string `/TRTP/…/REMI/…` in `AddtlNtryInf`. */
  transfer: Credit;
  /** "Inkomende SCT Acceptgiro ongecomprimeerd": one transfer with a structured reference, under the batch's `AcctSvcrRef`. */
  acceptgiro: Credit;
  /**
   * "Inkomende SCT Acceptgiro gecomprimeerd": one entry of the batch's total; each transaction
   * with its amount in `AmtDtls/TxAmt` (version 02 has no `TxDtls/Amt`) and its structured
   * reference, and every one repeating the entry's `AcctSvcrRef`.
   */
  batch: readonly Credit[];
  /** "uitgaande losse SCT": a debit. */
  debit: Credit;
}

const abnTransaction = (credit: Credit, reference: string, remittance: string) => `<TxDtls>
            <Refs><AcctSvcrRef>${reference}</AcctSvcrRef><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
            <AmtDtls><TxAmt><Amt Ccy="${credit.currency ?? 'EUR'}">${credit.amount}</Amt></TxAmt></AmtDtls>
            <BkTxCd><Prtry><Cd>N946</Cd><Issr>ABNAMRO</Issr></Prtry></BkTxCd>
            <RltdPties>${
              credit.credit === false
                ? `<Cdtr><Nm>${xmlText(credit.debtor ?? 'Naam')}</Nm><PstlAdr><Ctry>NL</Ctry></PstlAdr></Cdtr><CdtrAcct><Id><IBAN>NL87SNSB0941352955</IBAN></Id></CdtrAcct>`
                : `<Dbtr><Nm>${xmlText(credit.debtor ?? 'NAAM')}</Nm></Dbtr><DbtrAcct><Id><IBAN>NL46ABNA0499998748</IBAN></Id></DbtrAcct>`
            }</RltdPties>
            <RltdAgts>${credit.credit === false ? '<CdtrAgt><FinInstnId><BIC>SNSBNL2A</BIC></FinInstnId></CdtrAgt>' : '<DbtrAgt><FinInstnId><BIC>ABNANL2A</BIC></FinInstnId></DbtrAgt>'}</RltdAgts>
            <RmtInf>${remittance}</RmtInf>
          </TxDtls>`;
const abnStructured = (credit: Credit) => `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>CUR</Issr></Tp><Ref>${xmlText(credit.remittance)}</Ref></CdtrRefInf></Strd>`;
const abnEntry = (credit: Credit, reference: string, code: string, details: string, additional: string) => `<Ntry>
        <Amt Ccy="${credit.currency ?? 'EUR'}">${credit.amount}</Amt>
        <CdtDbtInd>${indicator(credit)}</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>${credit.date ?? '2026-11-20'}</Dt></BookgDt>
        <ValDt><Dt>${credit.date ?? '2026-11-20'}</Dt></ValDt>
        <AcctSvcrRef>${reference}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${credit.credit === false ? 'ICDT' : 'RCDT'}</Cd><SubFmlyCd>${code}</SubFmlyCd></Fmly></Domn><Prtry><Cd>N654</Cd><Issr>ABNAMRO</Issr></Prtry></BkTxCd>
        ${details}
        <AddtlNtryInf>${xmlText(additional)}</AddtlNtryInf>
      </Ntry>`;

/**
 * A camt.053.001.02 day statement shaped like ABN AMRO's example (`Dagafschrift CAMT.053`, see
 * README.md): the five kinds of entry of `AbnAmroDay`, in that order. The single acceptgiro and the
 * compressed batch share one `AcctSvcrRef` (`batchReference`), as they do in the example.
 */
export const abnAmroCamt053V02 = (iban: string, day: AbnAmroDay, batchReference = '3095D4322561460S0PS', messageId = '0574908765.2026-11-20') => {
  const total = day.batch.reduce((sum, credit) => sum + Math.round(Number(credit.amount) * 100), 0);
  const search = (credit: Credit) => `/TRTP/SEPA OVERBOEKING/IBAN/NL46ABNA0499998748/BIC/ABNANL2A/NAME/${credit.debtor ?? 'NAAM'}/REMI/${credit.remittance}/EREF/NOTPROVIDED`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${messageId}</MsgId><CreDtTm>2026-11-21T10:55:08.66+01:00</CreDtTm><MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn></GrpHdr>
    <Stmt>
      <Id>${messageId}</Id>
      <ElctrncSeqNb>0070</ElctrncSeqNb>
      <CreDtTm>2026-11-21T10:55:08.66+01:00</CreDtTm>
      <Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy><Svcr><FinInstnId><BIC>ABNANL2A</BIC></FinInstnId></Svcr></Acct>
      <Bal><Tp><CdOrPrtry><Cd>PRCD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.01</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-19</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">100.01</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
      ${abnEntry(day.domestic, '2102830989503100038', 'NTAV', '', day.domestic.remittance)}
      ${abnEntry(day.transfer, '3095D4322561459S0PS', 'ESCT', `<NtryDtls>${abnTransaction(day.transfer, '3095D4322561459S0PS', `<Ustrd>${xmlText(day.transfer.remittance)}</Ustrd>`)}</NtryDtls>`, search(day.transfer))}
      ${abnEntry(day.acceptgiro, batchReference, 'ESCT', `<NtryDtls>${abnTransaction(day.acceptgiro, batchReference, abnStructured(day.acceptgiro))}</NtryDtls>`, `/TRTP/SEPA ACCEPTGIRO/IBAN/NL46ABNA0499998748/BIC/ABNANL2A/NAME/NAAM/REMI//REMI/Issuer: CUR Ref: ${day.acceptgiro.remittance}/EREF/NOTPROVIDED`)}
      ${abnEntry(
        { amount: (total / 100).toFixed(2), remittance: '' },
        batchReference,
        'ESCT',
        `<NtryDtls>
          <Btch><MsgId>1202P5518750498B0AO</MsgId><NbOfTxs>${day.batch.length}</NbOfTxs><TtlAmt Ccy="EUR">${(total / 100).toFixed(2)}</TtlAmt><CdtDbtInd>CRDT</CdtDbtInd></Btch>
          ${day.batch.map((credit) => abnTransaction(credit, batchReference, abnStructured(credit))).join('\n          ')}
        </NtryDtls>`,
        `/TRTP/SEPA ACCEPTGIRO BATCH/PREF/${batchReference}/NRTX/${day.batch.length}`,
      )}
      ${abnEntry({ ...day.debit, credit: false }, '3088J0537755115S0EC', 'ESCT', `<NtryDtls>${abnTransaction({ ...day.debit, credit: false }, '3088J0537755115S0EC', `<Ustrd>${xmlText(day.debit.remittance)}</Ustrd>`)}</NtryDtls>`, search(day.debit))}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
};

/** One business day of a Rabobank export: its statement has an entry per credit or debit, or none. */
export interface RabobankDay {
  date: string;
  credits: readonly Credit[];
}

const rabobankEntry = (credit: Credit, date: string) => {
  const party = credit.credit === false ? 'Cdtr' : 'Dbtr';
  const code = credit.credit === false ? '505' : '541';
  return `<Ntry>
            <Amt Ccy="${credit.currency ?? 'EUR'}">${credit.amount}</Amt>
            <CdtDbtInd>${indicator(credit)}</CdtDbtInd>
            <RvslInd>false</RvslInd>
            <Sts>BOOK</Sts>
            <BookgDt><Dt>${date}</Dt></BookgDt>
            <ValDt><Dt>${date}</Dt></ValDt>
            <BkTxCd><Prtry><Cd>${code}</Cd></Prtry></BkTxCd>
            <NtryDtls>
                <TxDtls>
                    <BkTxCd><Prtry><Cd>${code}</Cd></Prtry></BkTxCd>
                    <RltdPties>
                        <${party}><Nm>${xmlText(credit.debtor ?? 'XS NEWS B V')}</Nm><PstlAdr><AdrTp>ADDR</AdrTp><Ctry>NL</Ctry><AdrLine>NEW YORKSTRAAT 9</AdrLine><AdrLine>1175 RD  LIJNDEN</AdrLine></PstlAdr></${party}>
                        <${party}Acct><Id><IBAN>NL62ABNA0408441224</IBAN></Id></${party}Acct>
                    </RltdPties>
                    <RltdAgts><${party}Agt><FinInstnId><BIC>ABNANL2A</BIC></FinInstnId></${party}Agt></RltdAgts>
                    <RmtInf><Ustrd>${xmlText(credit.remittance)}</Ustrd></RmtInf>
                </TxDtls>
            </NtryDtls>
        </Ntry>`;
};

/**
 * A Rabobank export as its customers download it for a range of days: one document holding one
 * statement per business day (`Id` CAMT053…, `ElctrncSeqNb` counting up, opening and closing
 * balance, `TxsSummry`), most of them empty; entries with no `AcctSvcrRef` and no `EndToEndId`,
 * `BkTxCd/Prtry` 541 (received) or 505, and the payer's free text in `Ustrd`.
 */
export const rabobankCamt053V02 = (iban: string, days: readonly RabobankDay[], messageId = 'CAMT053RIB000001048085') => {
  let balance = 2_148_944;
  const statements = days.map(({ date, credits }, index) => {
    const opening = balance;
    const net = credits.reduce((sum, credit) => sum + (credit.credit === false ? -1 : 1) * Math.round(Number(credit.amount) * 100), 0);
    balance += net;
    const sum = credits.reduce((total, credit) => total + Math.round(Number(credit.amount) * 100), 0);
    const amount = (cents: number) => (Math.abs(cents) / 100).toFixed(2);
    const sign = (cents: number) => (cents < 0 ? 'DBIT' : 'CRDT');
    return `<Stmt>
        <Id>${messageId.replace('RIB', '')}${String(index + 1).padStart(5, '0')}</Id>
        <ElctrncSeqNb>${16_141 + index}</ElctrncSeqNb>
        <CreDtTm>2026-11-21T11:40:42.316858+01:00</CreDtTm>
        <Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>
        <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(opening)}</Amt><CdtDbtInd>${sign(opening)}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>
        <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(balance)}</Amt><CdtDbtInd>${sign(balance)}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>
        <TxsSummry><TtlNtries><NbOfNtries>${credits.length}</NbOfNtries><Sum>${amount(sum)}</Sum><TtlNetNtryAmt>${amount(net)}</TtlNetNtryAmt><CdtDbtInd>${sign(net)}</CdtDbtInd></TtlNtries></TxsSummry>
        ${credits.map((credit) => rabobankEntry(credit, date)).join('\n        ')}
    </Stmt>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt>
    <GrpHdr><MsgId>${messageId}</MsgId><CreDtTm>2026-11-21T11:40:42.316858+01:00</CreDtTm></GrpHdr>
    ${statements.join('\n    ')}
</BkToCstmrStmt>
</Document>
`;
};
