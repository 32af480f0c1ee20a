import {
  ATTACHMENT_LISTED_SHA256_HEADER,
  ATTACHMENT_LISTED_SIZE_HEADER,
  createInvoiceAttachment,
  deleteInvoiceAttachment,
  InvoiceAttachmentPathParams,
  parsePublicId,
} from '@invoicing/contracts';
import { notFound, registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { z } from 'zod';
import { actorOf } from '../../shared/actor.ts';
import type { AttachmentsService } from './attachments.service.ts';

/** Billing's internal route behind `invoiceAttachmentContentPath` (contracts); the gateway never forwards to it. */
export const ATTACHMENT_CONTENT_ROUTE = '/internal/v1/workspaces/:workspace_id/invoices/:id/attachments/:att_id/content';

const ContentPathParams = InvoiceAttachmentPathParams.extend({ workspace_id: z.string().max(100) });

export const registerAttachmentRoutes = (app: ServiceApp, attachments: AttachmentsService): void => {
  // The upload's body is up to the contract's bodyLimitBytes (registerOperation sets the route's limit).
  registerOperation(app, createInvoiceAttachment, (request) => attachments.add(actorOf(request), request.params.id, request.body));
  registerOperation(app, deleteInvoiceAttachment, (request) => attachments.remove(actorOf(request), request.params.id, request.params.att_id));
  app.get(ATTACHMENT_CONTENT_ROUTE, { schema: { params: ContentPathParams } }, async (request, reply) => {
    const { workspace_id: workspace, id, att_id: attachmentId } = request.params;
    const workspaceId = parsePublicId('workspace', workspace);
    const found = workspaceId === undefined ? undefined : await attachments.finalizedContent(workspaceId, id, attachmentId);
    if (!found) throw notFound('attachment', attachmentId);
    return reply
      .type(found.listed.content_type)
      .header(ATTACHMENT_LISTED_SIZE_HEADER, String(found.listed.size))
      .header(ATTACHMENT_LISTED_SHA256_HEADER, found.listed.sha256)
      .send(found.content);
  });
};
