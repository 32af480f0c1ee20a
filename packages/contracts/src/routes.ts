import { customerOperations } from './catalog/customers.ts';
import { priceOperations } from './catalog/prices.ts';
import { productOperations } from './catalog/products.ts';
import { gatewayOperations } from './gateway.ts';
import { accountOperations } from './billing/account.ts';
import { invoiceOperations } from './billing/invoices.ts';
import { invoiceAttachmentOperations } from './billing/attachments.ts';
import { messageOperations } from './billing/messages.ts';
import { numberingOperations } from './billing/numbering.ts';
import { paymentOperations } from './billing/payments.ts';
import { bankStatementOperations } from './billing/bank-statements.ts';
import { testClockOperations } from './billing/test-clocks.ts';
import { documentOperations } from './documents/documents.ts';
import { publicLinkOperations } from './documents/public-link.ts';
import { eventOperations } from './notifications/events.ts';
import { webhookEndpointOperations } from './notifications/webhook-endpoints.ts';
import type { Operation } from './operation.ts';
import { subscriptionOperations } from './subscriptions/subscriptions.ts';

/** Every operation of the public API, in the order of the OpenAPI document. */
export const OPERATIONS: readonly Operation[] = [
  ...gatewayOperations,
  ...customerOperations,
  ...productOperations,
  ...priceOperations,
  ...invoiceOperations,
  ...invoiceAttachmentOperations,
  ...paymentOperations,
  ...bankStatementOperations,
  ...subscriptionOperations,
  ...messageOperations,
  ...publicLinkOperations,
  ...documentOperations,
  ...numberingOperations,
  ...accountOperations,
  ...webhookEndpointOperations,
  ...eventOperations,
  ...testClockOperations,
];
