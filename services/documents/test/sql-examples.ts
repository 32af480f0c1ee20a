// Documents' repositories, each method called once with fixed arguments, for the committed SQL
// beside each repository (packages/testing/src/committed-sql.ts, `npm run sql:write`).
import { repositoryExamples, type ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { DOCUMENTS_SCHEMA, openDocumentsDatabase } from '../src/database.ts';
import { invoiceExportRepository } from '../src/modules/einvoices/invoice-export.repository.ts';
import { invoicePdfRepository } from '../src/modules/invoice-pdfs/invoice-pdf.repository.ts';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const INVOICE = '00000000-0000-4000-8000-000000000002';
const stored = { invoiceId: INVOICE, workspaceId: WORKSPACE, number: 'INV-2026-0001', sha256: 'f'.repeat(64), byteSize: 3, content: Buffer.from('pdf'), renderedAt: new Date('2026-11-26T10:00:00.000Z') };

export const DOCUMENTS_SQL_EXAMPLES: ServiceSqlExamples = {
  folder: 'services/documents',
  database: { schema: DOCUMENTS_SCHEMA, open: openDocumentsDatabase },
  repositories: [
    repositoryExamples('src/modules/invoice-pdfs/invoice-pdf.repository.sql', 'invoicePdfRepository (invoice-pdf.repository.ts)', invoicePdfRepository, {
      findWithContent: (pdfs) => pdfs.findWithContent(WORKSPACE, INVOICE),
      findSummary: (pdfs) => pdfs.findSummary(WORKSPACE, INVOICE),
      addIfAbsent: (pdfs) => pdfs.addIfAbsent({ ...stored, templateVersion: 'v1' }),
    }),
    repositoryExamples('src/modules/einvoices/invoice-export.repository.sql', 'invoiceExportRepository (invoice-export.repository.ts)', invoiceExportRepository, {
      findWithContent: (exports) => exports.findWithContent(WORKSPACE, INVOICE, 'ubl-en16931'),
      storedKinds: (exports) => exports.storedKinds(WORKSPACE, INVOICE),
      addIfAbsent: (exports) => exports.addIfAbsent({ ...stored, kind: 'ubl-en16931', generatorVersion: 'v1' }),
    }),
  ],
};
