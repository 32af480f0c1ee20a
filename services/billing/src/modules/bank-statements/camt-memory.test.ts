import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Reading a statement keeps one entry at a time in memory, not the document as a tree: a
// camt.053 of 10,000 entries (about 5 MB, half the largest body taken) is read by a process whose
// heap is capped at 48 MB. Read as one tree (fast-xml-parser) it needed more than 96 MB.
const script = `
import { parseCamt } from ${JSON.stringify(new URL('./camt.domain.ts', import.meta.url).pathname)};
const entry = (i) => '<Ntry><Amt Ccy="EUR">119.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-01-15</Dt></BookgDt><AcctSvcrRef>REF-' + i + '</AcctSvcrRef>' +
  '<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>E2E-' + i + '</EndToEndId></Refs>' +
  '<RltdPties><Dbtr><Pty><Nm>Kunde ' + i + ' GmbH</Nm></Pty></Dbtr></RltdPties><RmtInf><Ustrd>Invoice inv 2026 ' + i + ' thank you</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\\n';
const entries = Array.from({ length: 10000 }, (_, i) => entry(i)).join('');
const xml = '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>M</MsgId><CreDtTm>2026-01-15T18:00:00</CreDtTm></GrpHdr>' +
  '<Stmt><Id>S</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>' + entries + '</Stmt></BkToCstmrStmt></Document>';
const parsed = parseCamt(xml);
console.log(JSON.stringify({ bytes: xml.length, transactions: parsed.transactions.length, last: parsed.transactions.at(-1).remittanceInformation }));
`;

describe('reading a large statement', () => {
  it('reads 10,000 entries with a heap of 48 MB', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-old-space-size=48', '--input-type=module', '--eval', script], { maxBuffer: 1 << 20 });
    expect(JSON.parse(stdout)).toMatchObject({ transactions: 10_000, last: 'Invoice inv 2026 9999 thank you' });
    expect(JSON.parse(stdout).bytes).toBeGreaterThan(4_000_000);
  }, 60_000);
});
