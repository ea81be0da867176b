/**
 * The window's RPC under fuzz (issue 15 item 8): every call of the contract (shared/rpc.ts) gets
 * arbitrary JSON, values built from its TypeBox schema (biased toward hostile strings: control
 * characters, prototype names, filter syntax, stored ids) and schema-valid values with one field
 * broken. Through the real dispatch and handlers on a demo store, each answer must be a result or an
 * RpcError that is not 'internal' (no 500), within 2 s (no hang); read-only calls must leave every
 * stored row unchanged. Seeded and bounded: the same inputs on every run, well under a minute.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../../electron/demo/load';
import type { Dispatch } from '../../../electron/rpc/dispatch';
import { Store } from '../../../electron/store/database';
import { FILTER_FIELDS } from '../../../shared/filter';
import { RPC_CALLS, type RpcCall, RpcError } from '../../../shared/rpc';
import { engineDispatch } from '../../helpers/engineClient';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const ORG = 'acme';
const RUNS = 200;
const SEED = 15;
const LIMIT_MS = 2_000;

/** Calls that change stored data by design: still no 500 and no hang, but their data may change. */
const WRITES = new Set<RpcCall>([
  'sync.now',
  'settings.save',
  'sources.save',
  'sources.remove',
  'keys.create',
  'keys.revoke',
  'snoozes.set',
  'snoozes.clear',
  'acks.set',
  'acks.clear',
  'rules.save',
  'rules.reset',
  'routes.sendAgain',
]);

let store: Store;
let dispatch: Dispatch;
let dataDir: string;
let storedIds: string[] = [];
const internal: unknown[] = [];

beforeAll(async () => {
  store = await Store.open({ dataDir: null });
  dataDir = mkdtempSync(join(tmpdir(), 'dh-rpc-fuzz-'));
  loadDemo(store, { orgId: ORG, datasets: 20, seed: 3, now: NOW });
  ({ dispatch } = engineDispatch(store, dataDir, NOW, {
    // "Test connection" never leaves the process: every remote is unreachable at once.
    fetch: () => Promise.reject(new TypeError('fetch failed')),
    log: (error) => internal.push(error),
  }));
  storedIds = store
    .all('SELECT dataset_id AS id FROM datasets LIMIT 5')
    .map((row) => String(row.id))
    .concat(store.all('SELECT delivery_id AS id FROM events LIMIT 5').map((row) => String(row.id)));
});
afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every stored row of every table, hashed: equal hashes mean nothing changed. */
function storedData(): string {
  const hash = createHash('sha256');
  const tables = store.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  for (const { name } of tables) {
    const rows = store.all(`SELECT * FROM "${String(name)}"`).map((row) => JSON.stringify(row));
    hash.update(`${String(name)}:${JSON.stringify(rows.sort())}`);
  }
  return hash.digest('hex');
}

const HOSTILE = [
  '',
  ' ',
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  '\u0000',
  '\u001b[2J',
  'a\nb',
  '\r\n',
  '\u2028',
  '\uD800',
  '*',
  '%',
  '_',
  '\\',
  "'",
  '"',
  "'; DROP TABLE datasets; --",
  '../../etc/passwd',
  '(a,"b,c")',
  '("',
  'latestDeliveryStatus.desc',
  'latestDeliveryTimestamp.asc,latestDeliveryStatus',
  'FAILED',
  '1h',
  'forever',
  '2026-11-21T04:41:00.000Z',
  '23:59',
  'http://127.0.0.1:1',
  'javascript:alert(1)',
  ORG,
];

const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...HOSTILE),
  fc.constant(null).map(() => storedIds[0] ?? ORG),
  fc.constantFrom(0, 1, 5, 9).map((i) => storedIds[i] ?? ORG),
);

const filterValue = fc.oneof(
  anyText,
  fc.array(anyText, { maxLength: 6 }).map((items) => `(${items.join(',')})`),
  anyText.map((text) => `*${text}*`),
  fc.constantFrom('FAILED', 'HEALTHY', '(FAILED,MISSING)'),
);

/** A filter in the grammar's shape (mostly an allowed field and operator), with hostile values. */
const filterText = fc.oneof(
  {
    arbitrary: fc
      .constantFrom(
        ...Object.entries(FILTER_FIELDS).flatMap(([field, ops]) => ops.map((op) => `${field}.${op}`)),
      )
      .chain((prefix) => filterValue.map((value) => `${prefix}.${value}`)),
    weight: 4,
  },
  {
    arbitrary: fc
      .tuple(
        fc.constantFrom(...Object.keys(FILTER_FIELDS), 'x', ''),
        fc.constantFrom('eq', 'in', 'gt', ''),
        filterValue,
      )
      .map(([field, operator, value]) => `${field}.${operator}.${value}`),
    weight: 1,
  },
);

/** Strings where the schema's field asks for a grammar: valid most of the time, so handlers are reached. */
const GRAMMAR: Record<string, fc.Arbitrary<string>> = {
  sort: fc.constantFrom(
    '',
    'latestDeliveryStatus',
    'latestDeliveryStatus.asc',
    'latestDeliveryTimestamp.desc,latestDeliveryStatus',
  ),
  pageToken: fc.constant(''),
  search: fc.oneof(fc.constantFrom('', 'a', 'ds-'), anyText),
};

type JsonSchema = {
  type?: string;
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
};

/** Values the schema admits, or nearly: strings come from the hostile pools, cut to the schema's length. */
function fromSchema(schema: JsonSchema, key = ''): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => fromSchema(s, key)));
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9 }),
        fc.constantFrom(schema.minimum ?? 0, schema.maximum ?? 0),
      );
    case 'number':
      return fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true });
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 10_000;
      const pools: fc.WeightedArbitrary<string>[] = [
        { arbitrary: key === 'filters' ? filterText : anyText, weight: 4 },
        { arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 64) }), weight: 2 },
        // The longest value the schema allows: the size limits are where the 500s were.
        { arbitrary: fc.constantFrom('x', '*', '\u0000', 'é').map((c) => c.repeat(max)), weight: 1 },
      ];
      // Mostly the stored org and ids, so that requests get past "no such org" into the handlers.
      const grammar = Object.hasOwn(GRAMMAR, key) ? GRAMMAR[key] : undefined;
      if (grammar) pools.push({ arbitrary: grammar, weight: 14 });
      if (key === 'orgId') pools.push({ arbitrary: fc.constant(ORG), weight: 14 });
      else if (/Id$/.test(key))
        pools.push({ arbitrary: fc.nat(9).map((i) => storedIds[i] ?? ORG), weight: 7 });
      if (schema.pattern)
        pools.push({ arbitrary: fc.stringMatching(new RegExp(schema.pattern)), weight: 14 });
      if (schema.format === 'date-time')
        pools.push({ arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), weight: 14 });
      return fc
        .oneof(...pools)
        .map((text) => (text.length < min ? text.padEnd(min, 'x') : text.slice(0, max)));
    }
    case 'array': {
      // Mostly short lists (each item a chance to be refused), sometimes as long as the schema allows;
      // filters also as many as allowed of the longest `in` list allowed (too many SQL variables, once).
      const biggest = `datasetId.in.(${'x,'.repeat(2040)}x)`;
      const pools: fc.WeightedArbitrary<unknown[]>[] =
        key === 'filters'
          ? [
              {
                arbitrary: fc
                  .integer({ min: 1, max: schema.maxItems ?? 50 })
                  .map((n) => Array<string>(n).fill(biggest)),
                weight: 1,
              },
            ]
          : [];
      return fc.oneof(
        ...pools,
        {
          arbitrary: fc.array(fromSchema(schema.items ?? {}, key), {
            minLength: schema.minItems ?? 0,
            maxLength: 3,
          }),
          weight: 6,
        },
        {
          arbitrary: fc.array(fromSchema(schema.items ?? {}, key), {
            minLength: schema.minItems ?? 0,
            maxLength: Math.min(schema.maxItems ?? 8, 60),
          }),
          weight: 1,
        },
      );
    }
    case 'object': {
      const entries = Object.entries(schema.properties ?? {});
      const required = new Set(schema.required ?? []);
      return fc.record(Object.fromEntries(entries.map(([name, s]) => [name, fromSchema(s, name)])), {
        requiredKeys: entries.map(([name]) => name).filter((name) => required.has(name)),
      });
    }
    default:
      return fc.jsonValue();
  }
}

/** A value of the schema with one thing broken: a field replaced, dropped, or one added. */
function mutated(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      fromSchema(schema),
      fc.jsonValue({ maxDepth: 2 }),
      fc.nat(),
      fc.constantFrom('replace', 'drop', 'add'),
    )
    .map(([value, junk, pick, how]) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return junk;
      const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      const keys = Object.keys(copy);
      const key = keys.length === 0 ? '__proto__' : keys[pick % keys.length]!;
      if (how === 'drop') delete copy[key];
      else if (how === 'add')
        Object.defineProperty(copy, HOSTILE[pick % HOSTILE.length] || 'extra', {
          value: junk,
          enumerable: true,
        });
      else Object.defineProperty(copy, key, { value: junk, enumerable: true });
      return copy;
    });
}

/** One call as a transport makes it: the request through JSON, the answer or an RpcError within the limit. */
async function callOnce(name: string, request: unknown): Promise<void> {
  const wire: unknown = JSON.parse(JSON.stringify(request ?? null));
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not answer within ${LIMIT_MS} ms`)), LIMIT_MS);
  });
  try {
    await Promise.race([dispatch(name, wire), hang]);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    if (error.code === 'internal') {
      throw new Error(
        `${name} answered 'internal' for ${JSON.stringify(wire).slice(0, 500)}: ${String(internal.at(-1))}`,
      );
    }
  } finally {
    clearTimeout(timer);
  }
}

describe.each(Object.keys(RPC_CALLS) as RpcCall[])('%s', (name) => {
  const schema = RPC_CALLS[name].request as JsonSchema;
  const readOnly = !WRITES.has(name);

  it(`answers every input within ${LIMIT_MS} ms, never 'internal'${readOnly ? ', changing nothing' : ''}`, async () => {
    const before = storedData();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: fc.jsonValue(), weight: 1 },
          { arbitrary: fromSchema(schema), weight: 4 },
          { arbitrary: mutated(schema), weight: 2 },
        ),
        async (request) => {
          const revision = store.dataRevision;
          await callOnce(name, request);
          if (readOnly) expect(store.dataRevision).toBe(revision);
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    if (readOnly) expect(storedData()).toBe(before);
  }, 60_000);
});

it('a call name that is not in the contract is not-found, prototype names included', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.string(), fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty')),
      async (name) => {
        fc.pre(!Object.hasOwn(RPC_CALLS, name));
        const error = await dispatch(name, null).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RpcError);
        expect((error as RpcError).code).toBe('not-found');
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
});
