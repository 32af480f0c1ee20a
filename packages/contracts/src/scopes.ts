import { z } from 'zod';

/** Every scope an API key can hold: the specification's, plus those added in decisions.md. */
export const SCOPES = [
  'clients:read',
  'clients:write',
  'products:read',
  'products:write',
  'invoices:read',
  'invoices:write',
  'invoices:finalize',
  'invoices:send',
  'payments:write',
  'webhooks:read',
  'webhooks:write',
  'account:read',
  'account:write',
  'subscriptions:read',
  'subscriptions:write',
  'test_clocks:read',
  'test_clocks:write',
] as const;

export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;
