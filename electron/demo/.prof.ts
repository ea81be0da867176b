import { generateDemoSnapshot } from './generate';
const now = new Date('2026-11-21T04:41:00.000Z');
for (const seed of [42, 43, 44]) {
const t = performance.now();
const s = generateDemoSnapshot({ datasets: 10000, seed, now });
console.log('10k', (performance.now() - t).toFixed(0), 'heap MB', (process.memoryUsage().heapUsed / 1e6).toFixed(0), s.datasets.length);
}
