// Every service's repositories with committed SQL (see packages/testing/src/committed-sql.ts).
import type { ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { BILLING_SQL_EXAMPLES } from '../../services/billing/test/sql-examples.ts';

export const SERVICES_WITH_COMMITTED_SQL: readonly ServiceSqlExamples[] = [BILLING_SQL_EXAMPLES];
