/** The fault queue: first matching fault wins, each consumed `times` times, endpoint-specific kinds. */
import { describe, expect, it } from 'vitest';
import { FaultQueue, transientFault } from '../../../../electron/demo/remote/faults';
import { Rng } from '../../../../electron/demo/random';

const plain = { hasPageToken: false };
const paged = { hasPageToken: true };

describe('FaultQueue', () => {
  it('hands out the oldest matching fault, `times` times, then nothing', () => {
    const faults = new FaultQueue();
    faults.inject({ kind: 'status', status: 503 }, { times: 2 });
    faults.inject({ kind: 'non-json' });
    expect(faults.pending).toBe(3);
    expect(faults.take('list', plain)).toEqual({ kind: 'status', status: 503 });
    expect(faults.take('tasks', plain)).toEqual({ kind: 'status', status: 503 });
    expect(faults.take('dataset', plain)).toEqual({ kind: 'non-json' });
    expect(faults.take('list', plain)).toBeUndefined();
    expect(faults.pending).toBe(0);
  });

  it('keeps a fault for its route and the kinds for the endpoints they apply to', () => {
    const faults = new FaultQueue();
    faults.inject({ kind: 'reset' }, { route: 'tasks' });
    faults.inject({ kind: 'repeat-token' });
    faults.inject({ kind: 'drop-dataset-id' });
    expect(faults.take('tasks', plain)).toEqual({ kind: 'reset' });
    expect(faults.take('tasks', plain)).toBeUndefined(); // neither applies to tasks
    expect(faults.take('dataset', plain)).toEqual({ kind: 'drop-dataset-id' });
    expect(faults.take('list', plain)).toBeUndefined(); // repeat-token waits for a request with a token
    expect(faults.take('list', paged)).toEqual({ kind: 'repeat-token' });
  });

  it('skip lets that many matching requests through first, leaving them to later faults', () => {
    const faults = new FaultQueue();
    faults.inject({ kind: 'wrong-shape' }, { route: 'list', skip: 2 });
    faults.inject({ kind: 'reset' });
    expect(faults.take('tasks', plain)).toEqual({ kind: 'reset' }); // not a list request: not counted
    expect(faults.take('list', plain)).toBeUndefined();
    expect(faults.take('list', paged)).toBeUndefined();
    expect(faults.take('list', paged)).toEqual({ kind: 'wrong-shape' });
    expect(() => faults.inject({ kind: 'hang' }, { skip: -1 })).toThrow(RangeError);
  });

  it('clears, and refuses nonsense', () => {
    const faults = new FaultQueue();
    faults.inject({ kind: 'hang' }, { times: 5 });
    faults.clear();
    expect(faults.pending).toBe(0);
    expect(() => faults.inject({ kind: 'hang' }, { times: 0 })).toThrow(RangeError);
    expect(() => faults.inject({ kind: 'status', status: 200 })).toThrow(RangeError);
    expect(() => faults.inject({ kind: 'status', status: 503, retryAfter: -1 })).toThrow(RangeError);
  });
});

describe('transientFault', () => {
  it('is mostly 503, some 500, some 429 with Retry-After, reproducibly', () => {
    const draw = (seed: number) => {
      const rng = new Rng(seed);
      return Array.from({ length: 1000 }, () => transientFault(rng));
    };
    const faults = draw(3);
    expect(draw(3)).toEqual(faults);
    const count = (status: number) =>
      faults.filter((fault) => fault.kind === 'status' && fault.status === status).length;
    expect(count(503)).toBeGreaterThan(600);
    expect(count(500)).toBeGreaterThan(100);
    expect(count(429)).toBeGreaterThan(50);
    expect(count(503) + count(500) + count(429)).toBe(1000);
    expect(faults.find((fault) => fault.kind === 'status' && fault.status === 429)).toEqual({
      kind: 'status',
      status: 429,
      retryAfter: 1,
    });
  });
});
