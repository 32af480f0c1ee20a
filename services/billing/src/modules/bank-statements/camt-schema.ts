import { readFileSync } from 'node:fs';
import { invalidRequest } from '@invoicing/service-kit/app-error';
import { memoryPages, validateXML } from 'xmllint-wasm';
import type { CamtMessage } from './camt.domain.ts';

/** The ISO 20022 schemas (xsd/README.md says where they come from), read once each. */
const schemas = new Map<CamtMessage, string>();
const schemaOf = (message: CamtMessage): string => {
  let schema = schemas.get(message);
  if (schema === undefined) {
    schema = readFileSync(new URL(`./xsd/${message}.xsd`, import.meta.url), 'utf8');
    schemas.set(message, schema);
  }
  return schema;
};

const ERRORS_SHOWN = 10;

/**
 * Checks the document against the ISO 20022 XSD of its message and version with libxml2 (xmllint
 * compiled to WebAssembly, in a worker thread: no native code, and a parser crash cannot take the
 * service down). Streaming, so memory stays near the document's size. A document that breaks
 * the schema is a 400 listing the first errors with their lines.
 */
export const assertValidAgainstSchema = async (xml: string, message: CamtMessage): Promise<void> => {
  const result = await validateXML({
    xml: [{ fileName: 'statement.xml', contents: xml }],
    schema: [{ fileName: `${message}.xsd`, contents: schemaOf(message) }],
    stream: true,
    initialMemoryPages: 256,
    maxMemoryPages: memoryPages.GiB,
  }).catch((error: unknown) => {
    const reason = (error as Error).message.slice(0, 300);
    throw invalidRequest(`The document could not be checked against the ${message} schema: ${reason}`, [{ path: 'body', message: reason }]);
  });
  if (result.valid) return;
  const messages = result.errors.map((error) => `${error.loc?.lineNumber ? `line ${error.loc.lineNumber}: ` : ''}${error.message.replace(/^.*?Schemas validity error : /, '').trim()}`);
  const errors = [...new Set(messages)].slice(0, ERRORS_SHOWN).map((message) => ({ path: 'body', message }));
  throw invalidRequest(`The document is not valid against the ISO 20022 ${message} schema.`, errors.length > 0 ? errors : [{ path: 'body', message: 'not valid against the schema' }]);
};
