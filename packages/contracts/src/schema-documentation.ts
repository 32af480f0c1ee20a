import { z } from 'zod';
/**
 * How schemas are written into the OpenAPI document where Zod's own rendering would say less than
 * the server does. Each helper is a `.meta({ override })`: the server parses with the Zod schema as
 * it is, and the document states the same rule in terms generators understand.
 */

type JsonSchema = Record<string, unknown>;
type Override = ({ jsonSchema }: { jsonSchema: JsonSchema }) => void;

/** A pattern matching exactly these codes in any case: `[Uu][Ss][Dd]|…`. */
const anyCasePattern = (codes: readonly string[]): string =>
  `^(?:${codes.map((code) => [...code].map((c) => (/[A-Za-z]/.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('')).join('|')})$`;

/**
 * A code accepted in any case and returned uppercase (currencies, countries): the document lists
 * the codes the server accepts, uppercase, as an enum a generator turns into a type, beside the
 * same codes in any case (an exact pattern), so it refuses nothing the server takes.
 */
export const documentCaseInsensitiveEnum = (jsonSchema: JsonSchema, codes: readonly string[]): void => {
  const { description, example } = jsonSchema;
  for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
  Object.assign(jsonSchema, {
    ...(description ? { description } : {}),
    ...(example ? { example } : {}),
    anyOf: [
      { type: 'string', enum: [...codes], description: 'Uppercase, as the server returns it.' },
      { type: 'string', pattern: anyCasePattern(codes), description: 'The same codes in lower or mixed case.' },
    ],
  });
};

export const OPEN_ENUM_RULE =
  'An open enum: the values listed are those of this version, and new ones are added without a new API version. A client must accept a value it does not know (treat it as "other") rather than fail.';

/**
 * An enum of a response that grows (event types, problem codes): the known values, or any other
 * string. A generated client then types the known values but does not fail a whole page on a
 * value added after it was generated.
 */
export const openEnum =
  (name: string): Override =>
  ({ jsonSchema }) => {
    // The closed enum itself, or (when this schema derives from a named one) a reference to it.
    const { enum: values, $ref, description } = jsonSchema as { enum?: unknown[]; $ref?: string; description?: string };
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, {
      title: name,
      ...(description ? { description: `${description} ${OPEN_ENUM_RULE}` } : { description: OPEN_ENUM_RULE }),
      anyOf: [$ref ? { $ref } : { type: 'string', enum: values }, { type: 'string', description: `A value added to ${name} after this document.` }],
    });
  };

/**
 * Schemas that an override writes as a `$ref` (an optional text field's format, such as
 * `CountryCode`): the document registers each as a component, since the generator never meets
 * them itself behind the override.
 */
const referencedByOverride = new Map<string, unknown>();
export const referenceComponent = (id: string, schema: unknown): { $ref: string } => {
  referencedByOverride.set(id, schema);
  return { $ref: `#/components/schemas/${id}` };
};
export const componentsReferencedByOverrides = (): ReadonlyMap<string, unknown> => referencedByOverride;

/**
 * A schema as a request states it, for a place the generator does not reach itself (an override):
 * schemas it contains that have an id are `$ref`s to the document's components of that name.
 */
export const inputJsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  // The fields' own overrides apply here as they do in the document (an optional text's format).
  const override: Override = (context) => {
    const own = (z.globalRegistry.get((context as unknown as { zodSchema: z.ZodType }).zodSchema) as { override?: unknown } | undefined)?.override;
    if (typeof own === 'function') (own as Override)(context);
  };
  const { $schema: _, $defs: __, ...rendered } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', override });
  return JSON.parse(JSON.stringify(rendered).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
};

/**
 * A schema the server parses as one object with a refinement (so its messages can name the rule),
 * written into the document as the `oneOf` of the shapes it accepts, each titled with its name.
 */
export const documentAsOneOf = (shapes: Record<string, z.ZodType>): Override => {
  const oneOf = Object.entries(shapes).map(([title, shape]) => ({ title, ...inputJsonSchemaOf(shape) }));
  return ({ jsonSchema }) => {
    const { description } = jsonSchema as { description?: string };
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, { ...(description ? { description } : {}), oneOf });
  };
};
