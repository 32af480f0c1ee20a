import { livemodeOf } from './data-space.ts';

/** The objects that carry `metadata` since it was added; `{}` is what they hold without any. */
const WITH_METADATA = new Set(['customer', 'product', 'price', 'invoice', 'subscription', 'webhook_endpoint']);

/**
 * An event's data as today's contract reads it, also when an earlier version of its service
 * published it (still in an outbox or on the stream while the services are upgraded): its objects
 * then lack the fields added since, `livemode` (told by the event's data space) and `metadata`
 * (none was set then). Those are filled in, so such an event is recorded and delivered rather than
 * refused; anything else is left as it is, for the contract to judge.
 */
export const withFieldsAddedSince = (data: unknown, workspaceId: string): unknown => {
  const livemode = livemodeOf(workspaceId);
  const fill = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(fill);
    if (value === null || typeof value !== 'object') return value;
    const filled: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) filled[key] = fill(field);
    const kind = filled.object;
    if (typeof kind === 'string' && kind !== 'list') {
      filled.livemode ??= livemode;
      if (WITH_METADATA.has(kind)) filled.metadata ??= {};
    }
    return filled;
  };
  return fill(data);
};
