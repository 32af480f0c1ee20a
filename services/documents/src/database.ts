import { openDatabase, type Orm } from '@invoicing/service-kit';
import type { EntityDatabase } from '@invoicing/service-kit/typed-sql';
import { Migration20261123300000CreateDocuments } from './migrations/Migration20261123300000CreateDocuments.ts';
import { Migration20261202300000OutboxClaims } from './migrations/Migration20261202300000OutboxClaims.ts';
import { Migration20261210300000InvoiceExports } from './migrations/Migration20261210300000InvoiceExports.ts';
import { InvoiceExportEntity } from './modules/einvoices/invoice-export.entity.ts';
import { InvoicePdfEntity } from './modules/invoice-pdfs/invoice-pdf.entity.ts';

/** The PostgreSQL schema documents owns; no other service reads it. */
export const DOCUMENTS_SCHEMA = 'documents';

export const ENTITIES = [InvoicePdfEntity, InvoiceExportEntity];

/** Documents' tables for `sqlOf`, in the schema's names, typed from the entities. */
export type DocumentsDatabase = EntityDatabase<(typeof ENTITIES)[number]>;

/** Applied in this order; never generated from the entities. */
export const MIGRATIONS = [
  { name: 'Migration20261123300000CreateDocuments', class: Migration20261123300000CreateDocuments },
  { name: 'Migration20261202300000OutboxClaims', class: Migration20261202300000OutboxClaims },
  { name: 'Migration20261210300000InvoiceExports', class: Migration20261210300000InvoiceExports },
];

export const openDocumentsDatabase = (url: string, poolSize: number): Promise<Orm> =>
  openDatabase({ url, schema: DOCUMENTS_SCHEMA, entities: ENTITIES, migrations: MIGRATIONS, poolSize });
