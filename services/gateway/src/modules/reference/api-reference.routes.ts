import scalarApiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

export const API_REFERENCE_PATH = '/docs';

/**
 * The interactive API reference at `/docs`, read from the gateway's own OpenAPI document. Its
 * script is served by the gateway itself and its fonts are the browser's, so it works without
 * reaching any CDN (air-gapped installs, strict CSPs), and it reports nothing to anyone.
 */
export const registerApiReference = async (app: FastifyInstance, openApiPath: string): Promise<void> => {
  await app.register(scalarApiReference, {
    routePrefix: API_REFERENCE_PATH,
    logLevel: 'warn',
    configuration: {
      url: openApiPath,
      title: 'Invoicing API reference',
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      // Every operation visible in the sidebar at once: the API is small enough to scan.
      defaultOpenAllTags: true,
    },
  });
};
