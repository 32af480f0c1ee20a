import fc from 'fast-check';
import { resolveSchema, type JsonSchema, type OpenApiDocument } from './openapi.ts';

const PUBLIC_ID_EXAMPLE = /^([a-z]+)_[0-9a-f]{32}$/;

/** The ID prefix a string field takes, read from its documented example (`cus_0190…`). */
export const idPrefixOf = (schema: JsonSchema): string | undefined => {
  const example = schema.example;
  return typeof example === 'string' ? PUBLIC_ID_EXAMPLE.exec(example)?.[1] : undefined;
};

export type IdArbitrary = (prefix: string) => fc.Arbitrary<string>;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

const integerIn = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): fc.Arbitrary<number> => {
  const low = Math.max(min, INT32_MIN, Math.min(max, 0) - 1000);
  const high = Math.min(max, INT32_MAX, low + 2000);
  return fc.oneof({ weight: 4, arbitrary: fc.integer({ min: low, max: high }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
};

const decimalsOf = (step: number) => Math.max(0, -Math.floor(Math.log10(step)));

/** Marks an optional property left out of a drawn object. */
const LEFT_OUT = Symbol('left out');

/** One arbitrary per pattern and bounds: compiling a pattern (a currency's 180 alternatives) costs more than drawing from it. */
const matchingPattern = new Map<string, fc.Arbitrary<string>>();

const stringFor = (schema: JsonSchema): fc.Arbitrary<string> => {
  const maxLength = schema.maxLength ?? 200;
  const minLength = schema.minLength ?? 0;
  if (schema.pattern) {
    const cacheKey = `${schema.pattern}\u0000${minLength}\u0000${maxLength}`;
    let matching = matchingPattern.get(cacheKey);
    if (!matching) {
      // xsmall: a pattern with spaces allowed between characters (an IBAN) stays within its maxLength.
      matching = fc.stringMatching(new RegExp(schema.pattern), { size: 'xsmall' }).filter((value) => value.length >= minLength && value.length <= maxLength);
      matchingPattern.set(cacheKey, matching);
    }
    return typeof schema.example === 'string' ? fc.oneof(matching, { weight: 3, arbitrary: fc.constant(schema.example) }) : matching;
  }
  const cap = Math.min(maxLength, minLength + 24);
  // The documented example is a value the API accepts as it stands (a URL, a time zone, a format):
  // drawing it often lets valid requests get past the rules no schema states.
  const example = typeof schema.example === 'string' ? [{ weight: 6, arbitrary: fc.constant(schema.example) }] : [];
  return fc.oneof(
    ...example,
    { weight: 3, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'grapheme-ascii' }) },
    { weight: 2, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'grapheme' }) },
    { weight: 1, arbitrary: fc.constantFrom(...['Müller GmbH', 'ß€😀 ', '  padded  ', 'x'.repeat(maxLength)].filter((value) => value.length >= minLength && value.length <= maxLength)) },
  );
};

/**
 * An arbitrary of values that the schema accepts, as the served document states it: the
 * "valid" half of the fuzzer. String fields whose example is a public ID draw from `ids`.
 */
export const valueOf = (document: OpenApiDocument, raw: JsonSchema, ids: IdArbitrary, depth = 0): fc.Arbitrary<unknown> => {
  const schema = resolveSchema(document, raw);
  if (depth > 8) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => valueOf(document, { ...alternative, ...(schema.example !== undefined ? { example: schema.example } : {}) }, ids, depth + 1)));
  const conditions = (schema.allOf ?? []).filter((part) => part.if !== undefined);
  if (conditions.length > 0) {
    // The conditions of the schema (`if`/`then`/`else`, as the rules of an ad-hoc line): draw the
    // value without them, then make each branch that applies hold.
    const { allOf: _, ...unconditional } = schema;
    return valueOf(document, unconditional, ids, depth).chain((value) => satisfying(document, value, unconditional, conditions, ids, depth));
  }
  if (schema.allOf?.[0]) return valueOf(document, schema.allOf[0], ids, depth + 1);
  const types = [schema.type ?? (schema.properties ? 'object' : 'string')].flat();
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'null':
          return fc.constant(null);
        case 'boolean':
          return fc.boolean();
        case 'integer':
          return integerIn(schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : schema.minimum, schema.maximum);
        case 'number': {
          const step = schema.multipleOf ?? 0.01;
          const lowest = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : (schema.minimum ?? -1e6);
          const min = Math.ceil(lowest / step);
          const max = Math.floor((schema.maximum ?? 1e6) / step);
          return integerIn(min, max).map((units) => Number((units * step).toFixed(decimalsOf(step))));
        }
        case 'array': {
          const minLength = schema.minItems ?? 0;
          const bounds = { minLength, maxLength: Math.min(schema.maxItems ?? minLength + 3, minLength + 3) };
          const items = valueOf(document, schema.items ?? {}, ids, depth + 1);
          return schema.uniqueItems ? fc.uniqueArray(items, { ...bounds, selector: (item) => JSON.stringify(item) }) : fc.array(items, bounds);
        }
        case 'object': {
          // A property the schema refuses whatever its value (`not: {}`) is never drawn.
          const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([, property]) => !(property.not && Object.keys(property.not).length === 0)));
          const required = new Set(schema.required ?? []);
          // An optional property is sent one time in three: a body of many optional fields (an
          // invoice's) then sends a few at a time, as clients do, rather than half of them at once.
          const model = Object.fromEntries(
            Object.entries(properties).map(([name, property]) => {
              const drawn = valueOf(document, property, ids, depth + 1);
              return [name, required.has(name) ? drawn : fc.oneof({ weight: 2, arbitrary: fc.constant(LEFT_OUT) }, { weight: 1, arbitrary: drawn })];
            }),
          );
          return fc.record(model).map((object) => inOrder(Object.fromEntries(Object.entries(object).filter(([, value]) => value !== LEFT_OUT))));
        }
        default: {
          const prefix = idPrefixOf(schema);
          if (!prefix) return stringFor(schema);
          // Where the document states the ID's form, a valid request keeps to it: this kind's
          // prefix or a UUID (the mutations send the other kinds).
          const pattern = schema.pattern ? new RegExp(schema.pattern) : undefined;
          return pattern ? ids(prefix).filter((id) => pattern.test(id)) : ids(prefix);
        }
      }
    }),
  );
};

/**
 * A period (`{ start, end }`, invoice and line periods) whose end is not before its start, as the
 * document's description says and no JSON Schema keyword can: two dates drawn apart are put in order.
 */
const inOrder = <T extends Record<string, unknown>>(object: T): T => {
  const { start, end } = object as { start?: unknown; end?: unknown };
  return typeof start === 'string' && typeof end === 'string' && end < start ? { ...object, start: end, end: start } : object;
};

/** Whether a value meets the `if` of a condition: the keywords conditions here use (`required`, `const`, `enum`, `contains`, a string's `pattern`). */
const meets = (value: unknown, condition: JsonSchema): boolean => {
  if (condition.contains) return Array.isArray(value) && value.some((item) => meets(item, condition.contains!));
  if (condition.const !== undefined) return value === condition.const;
  if (condition.enum) return condition.enum.includes(value);
  if (condition.type === 'string') return typeof value === 'string' && (condition.pattern === undefined || new RegExp(condition.pattern).test(value));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return true;
  const object = value as Record<string, unknown>;
  if ((condition.required ?? []).some((name) => !(name in object))) return false;
  return Object.entries(condition.properties ?? {}).every(([name, property]) => !(name in object) || meets(object[name], property));
};

/**
 * The schema of a property under a branch: the branch's own when it names a value (`const`,
 * `enum`) or a type the property's alternatives do not all share (the alternative of that type),
 * else the property's schema narrowed by the branch's bounds (`exclusiveMinimum`).
 */
const narrowed = (document: OpenApiDocument, base: JsonSchema | undefined, branch: JsonSchema): JsonSchema => {
  if (branch.const !== undefined || branch.enum || !base) return branch;
  const resolved = resolveSchema(document, base);
  const alternatives = resolved.anyOf ?? resolved.oneOf;
  if (alternatives && branch.type) {
    const typed = alternatives.map((alternative) => resolveSchema(document, alternative)).filter((alternative) => [alternative.type ?? (alternative.properties ? 'object' : 'string')].flat().includes(branch.type as string));
    const { type: _, ...bounds } = branch;
    return typed.length > 0 ? { ...typed[0]!, ...bounds } : branch;
  }
  return { ...resolved, ...branch };
};

/** Makes a value meet each condition that applies to it, one after the other, drawing again only what a branch constrains. */
const satisfying = (document: OpenApiDocument, value: unknown, schema: JsonSchema, conditions: readonly JsonSchema[], ids: IdArbitrary, depth: number): fc.Arbitrary<unknown> => {
  const [condition, ...rest] = conditions;
  if (!condition) return fc.constant(value);
  const branch = meets(value, condition.if!) ? condition.then : condition.else;
  const next = (repaired: unknown) => satisfying(document, repaired, schema, rest, ids, depth);
  if (!branch) return next(value);
  if (Array.isArray(value)) return next(branch.maxItems !== undefined ? value.slice(0, Math.max(branch.maxItems, 1)) : value);
  if (value === null || typeof value !== 'object') return next(value);
  // A property the branch refuses whatever its value (`not: {}`) is left out.
  const refused = Object.entries(branch.properties ?? {}).filter(([, property]) => property.not && Object.keys(property.not).length === 0).map(([name]) => name);
  const names = [...new Set([...(branch.required ?? []), ...Object.keys(branch.properties ?? {})])].filter((name) => !refused.includes(name));
  const object = Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([name]) => !refused.includes(name)));
  // A property the branch bounds but does not require is drawn again only when present.
  const redrawn = names.filter((name) => (branch.required ?? []).includes(name) || name in object);
  if (redrawn.length === 0) return next(object);
  const model = Object.fromEntries(
    redrawn.map((name) => [name, valueOf(document, branch.properties?.[name] ? narrowed(document, schema.properties?.[name], branch.properties[name]!) : (schema.properties?.[name] ?? {}), ids, depth + 1)]),
  );
  return fc.record(model).chain((drawn) => next({ ...object, ...drawn }));
};

/** The smallest body the schema accepts: required fields only, each its first valid value. */
export const minimalValueOf = (document: OpenApiDocument, raw: JsonSchema, id: (prefix: string) => string): unknown => {
  const schema = resolveSchema(document, raw);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return minimalValueOf(document, { ...alternatives[0]!, ...(schema.example !== undefined ? { example: schema.example } : {}) }, id);
  const type = [schema.type ?? (schema.properties ? 'object' : 'string')].flat()[0];
  if (type === 'object') {
    const required = schema.required ?? [];
    // An object with nothing required but a reference (an invoice line's price) is that reference.
    const names = required.length > 0 ? required : Object.keys(schema.properties ?? {}).filter((name) => idPrefixOf(resolveSchema(document, schema.properties![name]!))).slice(0, 1);
    return Object.fromEntries(names.map((name) => [name, minimalValueOf(document, schema.properties?.[name] ?? {}, id)]));
  }
  if (type === 'array') return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => minimalValueOf(document, schema.items ?? {}, id));
  if (type === 'integer' || type === 'number') return schema.minimum ?? 0;
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  const prefix = idPrefixOf(schema);
  if (prefix) return id(prefix);
  if (schema.example !== undefined) return schema.example;
  if (schema.format === 'date-time') return new Date().toISOString();
  if (schema.format === 'date') return new Date().toISOString().slice(0, 10);
  if (schema.format === 'email') return 'someone@example.com';
  if (schema.pattern) return fc.sample(fc.stringMatching(new RegExp(schema.pattern)), { numRuns: 1, seed: 1 })[0];
  return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
};

/** Every string field of a body schema, as a path of keys (`items.0.description`), with its schema. */
export const stringFieldsOf = (document: OpenApiDocument, raw: JsonSchema, path: (string | number)[] = [], depth = 0): { path: (string | number)[]; schema: JsonSchema }[] => {
  const schema = resolveSchema(document, raw);
  if (depth > 6) return [];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const found = alternatives.flatMap((alternative) => stringFieldsOf(document, { ...alternative, ...(schema.example !== undefined ? { example: schema.example } : {}) }, path, depth + 1));
    return found.length > 0 ? [found[0]!] : [];
  }
  const types = [schema.type ?? (schema.properties ? 'object' : 'string')].flat();
  if (types.includes('object')) return Object.entries(schema.properties ?? {}).flatMap(([name, property]) => stringFieldsOf(document, property, [...path, name], depth + 1));
  if (types.includes('array')) return stringFieldsOf(document, schema.items ?? {}, [...path, 0], depth + 1);
  if (types.includes('string') && !schema.enum && schema.const === undefined) return [{ path, schema }];
  return [];
};
