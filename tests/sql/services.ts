// Every service's repositories with committed SQL (see packages/testing/src/committed-sql.ts).
import type { ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { BILLING_SQL_EXAMPLES } from '../../services/billing/test/sql-examples.ts';
import { CATALOG_SQL_EXAMPLES } from '../../services/catalog/test/sql-examples.ts';
import { DOCUMENTS_SQL_EXAMPLES } from '../../services/documents/test/sql-examples.ts';
import { GATEWAY_SQL_EXAMPLES } from '../../services/gateway/test/sql-examples.ts';
import { NOTIFICATIONS_SQL_EXAMPLES } from '../../services/notifications/test/sql-examples.ts';
import { SUBSCRIPTIONS_SQL_EXAMPLES } from '../../services/subscriptions/test/sql-examples.ts';
import { KIT_SQL_EXAMPLES } from './kit-examples.ts';

export const SERVICES_WITH_COMMITTED_SQL: readonly ServiceSqlExamples[] = [KIT_SQL_EXAMPLES, BILLING_SQL_EXAMPLES, CATALOG_SQL_EXAMPLES, NOTIFICATIONS_SQL_EXAMPLES, GATEWAY_SQL_EXAMPLES, DOCUMENTS_SQL_EXAMPLES, SUBSCRIPTIONS_SQL_EXAMPLES];
