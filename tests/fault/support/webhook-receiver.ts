import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** How an endpoint behaves: answers 200, accepts and never answers, or resets the connection. */
export type EndpointBehaviour = 'healthy' | 'hang' | 'reset';

export interface Delivery {
  eventId: string;
  type: string;
  /** The invoice the event is about. */
  invoiceId: string;
  /** Arrival time (ms since the epoch). */
  at: number;
}

interface Endpoint {
  secret: string | undefined;
  behaviour: EndpointBehaviour;
  raw: { headers: IncomingHttpHeaders; body: string; at: number }[];
  /** Requests a hanging endpoint holds open now, and the most it held at once. */
  open: number;
  mostOpen: number;
}

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
};

/** Per endpoint: each event id once, and how many deliveries repeated one already received. */
export interface DeliveryCounts {
  deliveries: Delivery[];
  /** First delivery of each event id. */
  firstDeliveries: Map<string, Delivery>;
  /** Deliveries of an event id received before. */
  redeliveries: number;
}

/**
 * A customer's webhook endpoints on one loopback port, a path each. Every delivery must verify
 * with the endpoint's secret under the Standard Webhooks library (an unverifiable one fails the
 * count); deliveries are counted per event id, first deliveries and redeliveries apart.
 */
export const startWebhookReceiver = async () => {
  const endpoints = new Map<string, Endpoint>();
  const held: ServerResponse[] = [];
  const endpointAt = (path: string): Endpoint => {
    let endpoint = endpoints.get(path);
    if (!endpoint) endpoints.set(path, (endpoint = { secret: undefined, behaviour: 'healthy', raw: [], open: 0, mostOpen: 0 }));
    return endpoint;
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const endpoint = endpointAt(request.url ?? '/');
      endpoint.raw.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      if (endpoint.behaviour === 'hang') {
        held.push(response);
        endpoint.open += 1;
        endpoint.mostOpen = Math.max(endpoint.mostOpen, endpoint.open);
        // The sender gives up at its deadline and closes the connection.
        response.once('close', () => (endpoint.open -= 1));
      }
      else if (endpoint.behaviour === 'reset') request.socket.resetAndDestroy();
      else response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const countsAt = (path: string): DeliveryCounts => {
    const endpoint = endpointAt(path);
    if (!endpoint.secret) throw new Error(`No secret registered for the webhook endpoint ${path}`);
    const verifier = new Webhook(endpoint.secret);
    const deliveries = endpoint.raw.map(({ headers, body, at }) => {
      const event = verifier.verify(body, {
        'webhook-id': header(headers, 'webhook-id'),
        'webhook-timestamp': header(headers, 'webhook-timestamp'),
        'webhook-signature': header(headers, 'webhook-signature'),
      }) as { id: string; type: string; data: { object: { id: string } } };
      return { eventId: event.id, type: event.type, invoiceId: event.data.object.id, at };
    });
    const firstDeliveries = new Map<string, Delivery>();
    for (const delivery of deliveries) if (!firstDeliveries.has(delivery.eventId)) firstDeliveries.set(delivery.eventId, delivery);
    return { deliveries, firstDeliveries, redeliveries: deliveries.length - firstDeliveries.size };
  };

  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** Sets how `path` answers and the secret its deliveries must verify with. */
    register: (path: string, secret: string, behaviour: EndpointBehaviour = 'healthy') => {
      Object.assign(endpointAt(path), { secret, behaviour });
    },
    /** Requests that reached `path`, verified or not. */
    arrivals: (path: string): number => endpointAt(path).raw.length,
    countsAt,
    /** The most requests a hanging endpoint held open at once. */
    mostHeldOpen: (path: string): number => endpointAt(path).mostOpen,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
