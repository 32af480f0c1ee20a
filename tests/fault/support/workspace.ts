import type { InvoicingClient } from '@invoicing/client';
import type { FaultPlatform } from './fault-platform.ts';
import type { EndpointBehaviour, WebhookReceiver } from './webhook-receiver.ts';

export interface FaultWorkspace {
  api: InvoicingClient;
  /** The workspace's API key, for a client with a retry policy of its own. */
  apiKey: string;
  workspaceId: string;
  customer: string;
  /** A marker unique to this workspace, put in every invoice's notes. */
  marker: string;
}

/**
 * A workspace of its own per scenario, so every count is that scenario's alone: a key, a
 * customer, and webhook endpoints for invoice.paid at the receiver with the behaviour given.
 */
export const prepareWorkspace = async (
  platform: FaultPlatform,
  receiver: WebhookReceiver,
  slug: string,
  endpoints: readonly { path: string; behaviour: EndpointBehaviour }[],
): Promise<FaultWorkspace> => {
  const minted = await platform.mintKey(slug);
  const api = platform.client(minted.key);
  const customer = await api.POST('/api/v1/customers', { body: { name: `Fault test ${slug} GmbH` } });
  if (!customer.data) throw new Error(`Creating a customer answered ${customer.response.status}: ${JSON.stringify(customer.error)}`);
  for (const { path, behaviour } of endpoints) {
    const endpoint = await api.POST('/api/v1/webhook_endpoints', { body: { url: receiver.url(path), enabled_events: ['invoice.paid'] } });
    if (!endpoint.data?.data.secret) throw new Error(`Creating a webhook endpoint answered ${endpoint.response.status}: ${JSON.stringify(endpoint.error)}`);
    receiver.register(path, endpoint.data.data.secret, behaviour);
  }
  return { api, apiKey: minted.key, workspaceId: minted.workspace_id, customer: customer.data.data.id, marker: slug.replace(/[^a-z0-9]/gi, '') };
};
