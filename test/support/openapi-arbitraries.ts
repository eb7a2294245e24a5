// fast-check generators read from openapi.json's schemas: values a schema
// allows (`valueOf`), and anything a careless or hostile caller may send
// instead (`bodyOf`), for the document's tests and the fuzz test.
import fc from 'fast-check';
import { openApiDocument } from './openapi-contract.js';

type Schema = Record<string, unknown>;

const WORDS = ['refund', 'reset', 'password', 'Zephyr', 'shipping', 'price', 'doc.1', 'é', '日本', '%', '../x', ' '];

function resolve(schema: Schema): Schema {
  const ref = schema.$ref as string | undefined;
  return ref ? resolve(openApiDocument.components.schemas[ref.split('/').pop()!]!) : schema;
}

/** A string as the schema allows: words a search can match, or any text. */
function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]));
  if (schema.format === 'date-time') return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === 'uri') return fc.webUrl({ validSchemes: ['http', 'https'] });
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const text = fc.oneof(
    fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((words) => words.join(' ')),
    fc.string({ minLength, maxLength: 40, unit: 'grapheme' }),
  );
  return schema.pattern === '\\S' ? text.filter((s) => /\S/.test(s)) : text.filter((s) => s.length >= minLength);
}

/** Generators for fields by name (say, ids of records that exist), in place of their schema's. */
export type Named = Record<string, fc.Arbitrary<unknown>>;

/** Values the schema allows (an `if`/`then` aside: filter those with the validator). */
export function valueOf(input: Schema, depth = 0, named: Named = {}): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  if ('const' in schema) return fc.constant(schema.const);
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (choices) return fc.oneof(...choices.map((choice) => valueOf(choice, depth + 1, named)));
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'integer':
      return fc.integer({ min: (schema.minimum as number | undefined) ?? -1000, max: (schema.maximum as number | undefined) ?? 1_000_000 });
    case 'number':
      return fc.double({ min: (schema.minimum as number | undefined) ?? -1e6, max: (schema.maximum as number | undefined) ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'array':
      return fc.array(valueOf(schema.items as Schema, depth + 1, named), { minLength: (schema.minItems as number | undefined) ?? 0, maxLength: depth > 2 ? 1 : 4 });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(properties).length === 0 && schema.additionalProperties !== false) return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const entries = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, named[name] ?? valueOf(property, depth + 1, named)]));
      return fc.record(entries, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body: one the schema allows, one with a field off, or any JSON at all. */
export function bodyOf(schema: Schema, named: Named = {}): fc.Arbitrary<unknown> {
  const valid = valueOf(schema, 0, named);
  const oneFieldOff = fc
    .tuple(valid, fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }))
    .map(([body, key, value]) => {
      if (!body || typeof body !== 'object' || Array.isArray(body)) return value;
      const keys = Object.keys(body);
      const target = keys.length > 0 && key.length % 2 === 0 ? keys[key.length % keys.length]! : key;
      return { ...body, [target]: value };
    });
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: oneFieldOff }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });
}
