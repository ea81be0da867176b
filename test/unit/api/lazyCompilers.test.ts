import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyCompilers } from '../../../electron/api/lazyCompilers';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function server(): FastifyInstance {
  const app = Fastify({ schemaController: { compilersFactory: lazyCompilers } });
  apps.push(app);
  app.get(
    '/count',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { n: { type: 'integer', minimum: 1 } },
          required: ['n'],
          additionalProperties: false,
        },
        response: {
          200: { type: 'object', properties: { doubled: { type: 'integer' } } },
        },
      },
    },
    async (request) => ({ doubled: (request.query as { n: number }).n * 2, extra: 'left out' }),
  );
  return app;
}

describe('validators and serializers compiled on first use', () => {
  it('validate, coerce and serialize as Fastify’s own do', async () => {
    const app = server();
    const ok = await app.inject({ url: '/count?n=21' });
    expect(ok.statusCode).toBe(200);
    // Coerced to a number by Ajv (the part's parent is passed), and the undeclared field left out.
    expect(ok.json()).toEqual({ doubled: 42 });

    const refused = await app.inject({ url: '/count?n=0' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('querystring/n must be >= 1');
    const missing = await app.inject({ url: '/count' });
    expect(missing.json().message).toBe("querystring must have required property 'n'");
  });

  it('a route never called costs no compile at start: even a schema that cannot compile waits for its first use', async () => {
    const app = server();
    app.get(
      '/broken',
      {
        schema: {
          querystring: { type: 'object', properties: { n: { type: 'no such type' } } },
          response: { 200: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } } },
        },
      },
      async () => ({ a: 1 }),
    );
    await expect(app.ready()).resolves.toBeDefined();
    expect((await app.inject({ url: '/count?n=2' })).json()).toEqual({ doubled: 4 });
    expect((await app.inject({ url: '/broken' })).statusCode).toBe(500);
  });
});
