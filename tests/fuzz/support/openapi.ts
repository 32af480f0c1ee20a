import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BASIC } from '@hyperjump/json-schema/experimental';
import { validate } from '@hyperjump/json-schema/openapi-3-1';

/** A JSON Schema as the served OpenAPI document writes it (3.1 dialect). */
export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  contains?: JsonSchema;
  not?: JsonSchema;
  title?: string;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  default?: unknown;
  example?: unknown;
  description?: string;
};

interface ParameterObject {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: JsonSchema;
}

interface ResponseObject {
  content?: Record<string, { schema?: JsonSchema }>;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; parameters?: ParameterObject[]; requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> }; responses: Record<string, ResponseObject>; 'x-required-scope'?: string; security?: unknown[] }>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** One operation of the served document, in the terms a black-box client has. */
export interface DocumentedOperation {
  operationId: string;
  method: string;
  /** OpenAPI template, `/api/v1/customers/{id}`. */
  path: string;
  scope: string | null;
  pathParams: ParameterObject[];
  queryParams: ParameterObject[];
  idempotencyKey: 'required' | 'optional' | 'none';
  body: { schema: JsonSchema; required: boolean } | undefined;
  /** The media type of a body that is not JSON (a bank statement's `application/xml`). */
  textBody: string | undefined;
  /** Every status the document declares, with the media types of its body. */
  responses: ReadonlyMap<number, readonly string[]>;
}

export const operationsOf = (document: OpenApiDocument): DocumentedOperation[] =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      const header = parameters.find((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
      const json = operation.requestBody?.content['application/json'];
      return {
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        scope: operation['x-required-scope'] ?? null,
        pathParams: parameters.filter((parameter) => parameter.in === 'path'),
        queryParams: parameters.filter((parameter) => parameter.in === 'query'),
        idempotencyKey: header ? (header.required ? 'required' : 'optional') : 'none',
        body: json ? { schema: json.schema, required: operation.requestBody?.required ?? false } : undefined,
        textBody: operation.requestBody && !json ? Object.keys(operation.requestBody.content)[0] : undefined,
        responses: new Map(Object.entries(operation.responses).map(([status, response]) => [Number(status), Object.keys(response.content ?? {})])),
      };
    }),
  );

/** Follows `$ref`s inside the document. */
export const resolveSchema = (document: OpenApiDocument, schema: JsonSchema): JsonSchema => {
  let current = schema;
  while (current.$ref) {
    const name = current.$ref.replace('#/components/schemas/', '');
    const target = document.components.schemas[name];
    if (!target) throw new Error(`Unresolvable $ref ${current.$ref}`);
    current = { ...target, ...(current.description ? { description: current.description } : {}) };
  }
  return current;
};

const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export interface ResponseValidator {
  /** Failures of a body against the schema the document gives this operation, status and media type; undefined when valid. */
  check: (operation: DocumentedOperation, status: number, mediaType: string, body: unknown) => Promise<string | undefined>;
  dispose: () => void;
}

/**
 * The document with every object shape closed (`unevaluatedProperties: false` where it says
 * nothing of other properties): clients must accept fields added later, so the served document
 * leaves answers open, but this version of the server sends no field its document does not name.
 * Conditions (`if`, `then`, `else`, `not`) state a part of a shape and stay as they are.
 */
const closedObjects = <T>(node: T, condition = false): T => {
  if (Array.isArray(node)) node.forEach((item) => closedObjects(item, condition));
  else if (node !== null && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    if (!condition && schema.type === 'object' && schema.properties && !('additionalProperties' in schema) && !('unevaluatedProperties' in schema)) schema.unevaluatedProperties = false;
    for (const [key, child] of Object.entries(schema)) closedObjects(child, condition || ['if', 'then', 'else', 'not'].includes(key));
  }
  return node;
};

/**
 * Validates bodies with @hyperjump/json-schema's OpenAPI 3.1 dialect against the served document
 * itself (written to a `.openapi.json` file, which the library reads as an OpenAPI document): an
 * independent validator, so a mistake in our Zod schemas cannot hide behind the same mistake.
 */
export const createResponseValidator = (document: OpenApiDocument): ResponseValidator => {
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-openapi-'));
  const file = join(dir, 'served.openapi.json');
  writeFileSync(file, JSON.stringify(closedObjects(structuredClone(document))));
  const base = pathToFileURL(file).href;
  const compiled = new Map<string, Promise<(value: unknown, format: typeof BASIC) => { valid: boolean; errors?: unknown[] }>>();
  return {
    check: async (operation, status, mediaType, body) => {
      const pointer = ['paths', operation.path, operation.method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema'].map((segment) => encodeURIComponent(pointerSegment(segment))).join('/');
      const uri = `${base}#/${pointer}`;
      let validator = compiled.get(uri);
      if (!validator) {
        validator = validate(uri) as unknown as Promise<(value: unknown, format: typeof BASIC) => { valid: boolean; errors?: unknown[] }>;
        compiled.set(uri, validator);
      }
      const output = (await validator)(body, BASIC);
      return output.valid ? undefined : JSON.stringify(output.errors?.slice(0, 3));
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
};

/** The operation a method and concrete path name, by the document's templates. */
export const matchOperation = (operations: readonly DocumentedOperation[], method: string, path: string): DocumentedOperation | undefined => {
  const effective = method === 'HEAD' ? 'GET' : method;
  const segments = path.split('?')[0]!.split('/');
  return operations.find((operation) => {
    if (operation.method !== effective) return false;
    const template = operation.path.split('/');
    return template.length === segments.length && template.every((part, index) => part.startsWith('{') || part === segments[index]);
  });
};
