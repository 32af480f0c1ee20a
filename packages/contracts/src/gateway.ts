import { z } from 'zod';
import { defineOperation } from './operation.ts';

export const getOpenApiDocument = defineOperation({
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI 3.1 document',
  tag: 'Meta', service: 'gateway', method: 'GET', path: '/api/v1/openapi.json', scope: null, idempotency: 'none',
  responses: { 200: { description: 'The OpenAPI document.', schema: z.record(z.string(), z.unknown()).meta({ examples: [{ openapi: '3.1.0', info: { title: 'Invoicing API', version: '1' }, paths: {} }] }) } },
});

export const gatewayOperations = [getOpenApiDocument];
