/**
 * Fastify compiles every route's parameter validators (Ajv) and response serializers
 * (fast-json-stringify) when the server starts: about 150 ms of every `serve` and app start, for
 * routes and error answers most starts never use. These factories wrap Fastify's own and compile each
 * one on its first use instead (a few milliseconds, once, for the route asked).
 *
 * Two differences from Fastify's own, neither reached by this API's routes: a schema that cannot
 * compile answers 500 when its route is first asked (tried again at each ask), not at start — every
 * route is asked by the API's tests; and Fastify, seeing compilers of its caller, no longer lowercases
 * the names in a `headers` schema — no route has one (header names would have to be written lowercase).
 */
import ValidatorSelector from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** A compiled Ajv validator as Fastify calls it: with the request part, and Ajv's `errors` after. */
interface Validator {
  (data: unknown, context?: unknown): unknown;
  errors?: unknown;
}

const eagerValidators = ValidatorSelector() as unknown as (
  ...args: unknown[]
) => (route: unknown) => Validator;
const eagerSerializers = SerializerSelector();

export const lazyCompilers: Factories = {
  buildValidator: ((...args: unknown[]) => {
    const compile = eagerValidators(...args);
    return (route: unknown) => {
      let validate: Validator | undefined;
      const lazy: Validator = (data, context) => (validate ??= compile(route))(data, context);
      Object.defineProperty(lazy, 'errors', { get: () => validate?.errors });
      // Every validator here is Ajv's: Fastify then passes the request as the parent of the part
      // validated, which lets Ajv coerce the part itself (it would look for this on Ajv's function).
      Object.defineProperty(lazy, 'schemaEnv', { value: true });
      return lazy;
    };
  }) as unknown as Factories['buildValidator'],
  buildSerializer: (externalSchemas, options) => {
    const compile = eagerSerializers(externalSchemas, options);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data) => (serialize ??= compile(route))(data);
    };
  },
};
