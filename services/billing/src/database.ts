import { openDatabase, type Orm } from '@invoicing/service-kit';
import type { KitDatabase } from '@invoicing/service-kit';
import type { EntityDatabase } from '@invoicing/service-kit/typed-sql';
import { Migration20261123100000CreateBilling } from './migrations/Migration20261123100000CreateBilling.ts';
import { Migration20261202100000OutboxClaims } from './migrations/Migration20261202100000OutboxClaims.ts';
import { Migration20261203100000BlankTextToNull } from './migrations/Migration20261203100000BlankTextToNull.ts';
import { Migration20261205100000IdempotencyRecords } from './migrations/Migration20261205100000IdempotencyRecords.ts';
import { Migration20261210100000EinvoiceFields } from './migrations/Migration20261210100000EinvoiceFields.ts';
import { Migration20261225100000InvoicesByStatus } from './migrations/Migration20261225100000InvoicesByStatus.ts';
import { Migration20270110000000Payments } from './migrations/Migration20270110000000Payments.ts';
import { Migration20270120100000EmailDelivery } from './migrations/Migration20270120100000EmailDelivery.ts';
import { Migration20270130000000SubscriptionsAndLinePeriods } from './migrations/Migration20270130000000SubscriptionsAndLinePeriods.ts';
import { Migration20270140100000DocumentLanguage } from './migrations/Migration20270140100000DocumentLanguage.ts';
import { Migration20270150100000DocumentArithmetic } from './migrations/Migration20270150100000DocumentArithmetic.ts';
import { Migration20270151000000PartiesAndPaymentMeans } from './migrations/Migration20270151000000PartiesAndPaymentMeans.ts';
import { Migration20270152100000InvoiceAttachments } from './migrations/Migration20270152100000InvoiceAttachments.ts';
import { Migration20270161100000InvoiceMetadata } from './migrations/Migration20270161100000InvoiceMetadata.ts';
import { Migration20270162100000TestClocks } from './migrations/Migration20270162100000TestClocks.ts';
import { Migration20270175000000OneInvoicePerSubscriptionPeriod } from './migrations/Migration20270175000000OneInvoicePerSubscriptionPeriod.ts';
import { AccountEntity } from './modules/account/account.entity.ts';
import { InvoiceAttachmentEntity } from './modules/attachments/attachment.entity.ts';
import { BankStatementEntity, BankStatementEntryEntity } from './modules/bank-statements/bank-statement.entity.ts';
import { InvoiceEntity, InvoiceLineEntity } from './modules/invoices/invoice.entity.ts';
import { EmailSuppressionEntity, MessageEntity } from './modules/messages/message.entity.ts';
import { NumberSeriesEntity } from './modules/numbering/number-series.entity.ts';
import { PaymentEntity } from './modules/payments/payment.entity.ts';
import { TestClockEntity } from './modules/test-clocks/test-clock.entity.ts';
import { TimelineEntryEntity } from './modules/timeline/timeline.entity.ts';

/** The PostgreSQL schema billing owns; no other service reads it. */
export const BILLING_SCHEMA = 'billing';

export const ENTITIES = [AccountEntity, InvoiceEntity, InvoiceLineEntity, NumberSeriesEntity, TimelineEntryEntity, PaymentEntity, BankStatementEntity, BankStatementEntryEntity, MessageEntity, EmailSuppressionEntity, InvoiceAttachmentEntity, TestClockEntity];

/**
 * Billing's tables for `sqlOf`, in the schema's names, typed from the entities. With the kit's:
 * billing writes its outbox rows in the statements of the changes they report.
 */
export type BillingDatabase = EntityDatabase<(typeof ENTITIES)[number]> & KitDatabase;

/** Applied in this order; never generated from the entities. */
export const MIGRATIONS = [
  { name: 'Migration20261123100000CreateBilling', class: Migration20261123100000CreateBilling },
  { name: 'Migration20261202100000OutboxClaims', class: Migration20261202100000OutboxClaims },
  { name: 'Migration20261203100000BlankTextToNull', class: Migration20261203100000BlankTextToNull },
  { name: 'Migration20261205100000IdempotencyRecords', class: Migration20261205100000IdempotencyRecords },
  { name: 'Migration20261210100000EinvoiceFields', class: Migration20261210100000EinvoiceFields },
  { name: 'Migration20261225100000InvoicesByStatus', class: Migration20261225100000InvoicesByStatus },
  { name: 'Migration20270110000000Payments', class: Migration20270110000000Payments },
  { name: 'Migration20270120100000EmailDelivery', class: Migration20270120100000EmailDelivery },
  { name: 'Migration20270130000000SubscriptionsAndLinePeriods', class: Migration20270130000000SubscriptionsAndLinePeriods },
  { name: 'Migration20270140100000DocumentLanguage', class: Migration20270140100000DocumentLanguage },
  { name: 'Migration20270150100000DocumentArithmetic', class: Migration20270150100000DocumentArithmetic },
  { name: 'Migration20270151000000PartiesAndPaymentMeans', class: Migration20270151000000PartiesAndPaymentMeans },
  { name: 'Migration20270152100000InvoiceAttachments', class: Migration20270152100000InvoiceAttachments },
  { name: 'Migration20270161100000InvoiceMetadata', class: Migration20270161100000InvoiceMetadata },
  { name: 'Migration20270162100000TestClocks', class: Migration20270162100000TestClocks },
  { name: 'Migration20270175000000OneInvoicePerSubscriptionPeriod', class: Migration20270175000000OneInvoicePerSubscriptionPeriod },
];

export const openBillingDatabase = (url: string, poolSize: number): Promise<Orm> =>
  openDatabase({ url, schema: BILLING_SCHEMA, entities: ENTITIES, migrations: MIGRATIONS, poolSize });
