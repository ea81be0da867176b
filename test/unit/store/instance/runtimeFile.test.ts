import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  readRuntimeFile,
  removeRuntimeFile,
  RUNTIME_FILE,
  writeRuntimeFile,
} from '../../../../electron/store/instance/runtimeFile';

let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-runtime-'));
  dir = join(root, 'data');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const file = () => join(dir, RUNTIME_FILE);
const ours = { apiUrl: 'http://127.0.0.1:47800', pid: process.pid, startedAt: '2026-11-21T04:41:00.000Z' };

describe('runtime.json', () => {
  it('is written owner-only, as exactly { apiUrl, pid, startedAt }, and read back', () => {
    writeRuntimeFile(dir, ours);

    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual(ours);
    expect(readRuntimeFile(dir)).toEqual(ours);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('is replaced whole, leaving no temp file', () => {
    writeRuntimeFile(dir, ours);
    writeRuntimeFile(dir, { ...ours, apiUrl: 'http://127.0.0.1:51234' });

    expect(readRuntimeFile(dir)?.apiUrl).toBe('http://127.0.0.1:51234');
    expect(readdirSync(dir)).toEqual([RUNTIME_FILE]);
  });

  it('reads as null when missing or not a runtime file', () => {
    expect(readRuntimeFile(dir)).toBeNull();
    writeRuntimeFile(dir, ours);
    writeFileSync(file(), '{"apiUrl": 47800}');
    expect(readRuntimeFile(dir)).toBeNull();
    writeFileSync(file(), 'not json');
    expect(readRuntimeFile(dir)).toBeNull();
  });

  it("is removed by its own process only, so a failed second start keeps the running one's file", () => {
    writeRuntimeFile(dir, { ...ours, pid: process.pid + 1 });
    removeRuntimeFile(dir);
    expect(existsSync(file())).toBe(true);

    removeRuntimeFile(dir, process.pid + 1);
    expect(existsSync(file())).toBe(false);

    writeRuntimeFile(dir, ours);
    removeRuntimeFile(dir);
    expect(existsSync(file())).toBe(false);
    removeRuntimeFile(dir);
  });
});
