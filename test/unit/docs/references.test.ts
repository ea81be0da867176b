/**
 * Someone with only the repository can follow every reference (docs/architecture.md): no comment, lint
 * message, test, script or doc cites a document the repository lacks, a heading a document lacks, a
 * numbered section of a document outside it, or the handbook folder beside it (`../shared/`). The checker
 * is tested on a table first, then run over the tree; a failure lists each reference as file:line.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCANNED = ['electron', 'renderer', 'shared', 'test', 'bench', 'scripts', 'tools', 'docs'];
const SCANNED_FILES = ['eslint.config.js', 'README.md'];
const SOURCE = /\.(ts|tsx|vue|js|mjs|cjs|md)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'out', 'dist', 'test-output', '.bench-data', 'fixtures']);
/** This file names what it hunts for in its table. */
const SELF = 'test/unit/docs/references.test.ts';

/** A Markdown file: `name.md`, maybe a path before it, maybe an anchor after it. */
const DOCUMENT = /(?<![\w/.:-])((?:\.{1,2}\/|[\w-]+\/)*[\w-]+\.md)(#[\w-]+)?/g;
/** A link to a heading of the same Markdown file: `](#anchor)`. */
const OWN_ANCHOR = /\]\((#[\w-]+)\)/g;
/** A numbered section (`§3`) of a document the repository does not hold; an RFC's sections are fine. */
const SECTION = /(?<!RFC\s*\d+\s*)§\s?\d/g;
/** The handbook folder beside the repository, reached from inside it. */
const OUTSIDE = /(?:\.\.\/)+shared\//g;

export interface Problem {
  file: string;
  line: number;
  text: string;
  why: string;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text: one per heading (repeats numbered as GitHub does), and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

/** What the checker reads of the tree: a file's text, or undefined when there is none. */
export type ReadFile = (path: string) => string | undefined;

/** Where a document reference points: beside the citing file, else from the repository's root. */
function resolveDocument(file: string, reference: string, read: ReadFile): string | undefined {
  const beside = posix.normalize(posix.join(posix.dirname(file), reference));
  const candidates = reference.startsWith('.') ? [beside] : [beside, posix.normalize(reference)];
  return candidates.find((path) => !path.startsWith('..') && read(path) !== undefined);
}

/** Every reference of one file that someone with only the repository could not follow. */
export function checkFile(file: string, text: string, read: ReadFile): Problem[] {
  const problems: Problem[] = [];
  const lines = text.split('\n');
  const anchorsCache = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let found = anchorsCache.get(path);
    if (!found) anchorsCache.set(path, (found = anchorsOf(read(path) ?? '')));
    return found;
  };
  lines.forEach((line, index) => {
    const report = (why: string) => problems.push({ file, line: index + 1, text: line.trim(), why });
    for (const match of line.matchAll(DOCUMENT)) {
      const [, reference, anchor] = match;
      // A web address names a document elsewhere, not in this repository.
      if (/https?:\/\/\S*$/.test(line.slice(0, match.index))) continue;
      const target = resolveDocument(file, reference!, read);
      if (target === undefined) {
        report(`cites ${reference}, which the repository does not hold`);
      } else if (anchor !== undefined && !anchors(target).has(anchor.slice(1))) {
        report(`cites ${reference}${anchor}, but ${target} has no such heading`);
      }
    }
    if (file.endsWith('.md')) {
      for (const [, anchor] of line.matchAll(OWN_ANCHOR)) {
        if (!anchors(file).has(anchor!.slice(1))) report(`links ${anchor}, but ${file} has no such heading`);
      }
    }
    if (SECTION.test(line)) report('cites a numbered section of a document the repository does not hold');
    SECTION.lastIndex = 0;
    for (const match of line.matchAll(OUTSIDE)) {
      const target = posix.normalize(posix.join(posix.dirname(file), match[0]));
      if (target.startsWith('..')) report(`reaches ${match[0]} outside the repository`);
    }
  });
  return problems;
}

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (path: string): void => {
    const full = join(ROOT, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full)) if (!SKIPPED_FOLDERS.has(name)) walk(posix.join(path, name));
    } else if (SOURCE.test(path) && path !== SELF) {
      files.push(path);
    }
  };
  for (const folder of SCANNED) walk(folder);
  return [...files, ...SCANNED_FILES];
}

const readRepository: ReadFile = (path) => {
  const full = join(ROOT, path);
  if (relative(ROOT, full).startsWith('..') || !existsSync(full) || !statSync(full).isFile())
    return undefined;
  return readFileSync(full, 'utf8');
};

describe('the reference checker', () => {
  const tree: Record<string, string> = {
    'docs/architecture.md': '# Architecture\n\n## Layers\n\n### Why this order\n\n## Tests\n\n## Tests\n',
    'docs/api.md': '# The local API\n\n## Errors\n\n```sh\n# not a heading\n```\n',
    'docs/decisions.md': '# Decisions\n\n## Engine folders (issue #11)\n<a id="kept"></a>\n',
    'README.md': '# Dataset Health\n\n## What only the mirror knows: `/local/v1`\n',
  };
  const read: ReadFile = (path) => tree[path];
  const DESIGN = ['DESIGN', 'md'].join('.');
  const STYLE = ['STYLE', 'md'].join('.');
  const SECTION_SIGN = '\u00a7';

  it.each([
    ['a file of docs/ by its path', 'electron/a.ts', ' * See docs/architecture.md.'],
    ['a heading anchor', 'electron/a.ts', ' * (docs/architecture.md#layers)'],
    [
      'an anchor of a heading with punctuation',
      'electron/a.ts',
      '// docs/decisions.md#engine-folders-issue-11',
    ],
    ['a repeated heading, numbered', 'bench/b.ts', '// docs/architecture.md#tests-1'],
    ['an explicit id', 'shared/c.ts', '// docs/decisions.md#kept'],
    ['a relative Markdown link between docs', 'docs/api.md', 'See [layers](architecture.md#why-this-order).'],
    ['a link from the README', 'README.md', '[api](docs/api.md#errors)'],
    ['an own anchor', 'README.md', 'see [below](#what-only-the-mirror-knows-localv1)'],
    ['an RFC section', 'electron/api/v.ts', '// weakly (RFC 9110 \u00a713.1.2)'],
    ['a web address', 'electron/a.ts', '// https://github.com/x/y/blob/main/CONTRIBUTING.md'],
    ['an import of our own shared/', 'electron/api/app.ts', "import { x } from '../../shared/rpc';"],
  ])('accepts %s', (_name, file, line) => {
    expect(checkFile(file, line, read)).toEqual([]);
  });

  it.each([
    ['the outside design document', 'electron/a.ts', ` * (${DESIGN} ${SECTION_SIGN}3)`, `cites ${DESIGN}`],
    ['the handbook by name', 'electron/a.ts', ` * as ${STYLE} says`, `cites ${STYLE}`],
    [
      'a bare section number',
      'electron/a.ts',
      ` * the on-call layer (${SECTION_SIGN}11)`,
      'numbered section',
    ],
    ['a missing document of docs/', 'test/t.ts', '// docs/design.md', 'cites docs/design.md'],
    ['a missing heading', 'electron/a.ts', '// docs/architecture.md#sync', 'has no such heading'],
    ['a heading inside a code fence', 'electron/a.ts', '// docs/api.md#not-a-heading', 'has no such heading'],
    ['a broken Markdown link', 'docs/api.md', '[x](architecture.md#nowhere)', 'has no such heading'],
    ['a broken own anchor', 'README.md', '[x](#nowhere)', 'links #nowhere'],
    ['the handbook folder', 'eslint.config.js', '// see ../shared/spec/', 'outside the repository'],
  ])('refuses %s, with its line', (_name, file, line, why) => {
    const problems = checkFile(file, `first line\n${line}`, read);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ file, line: 2 });
    expect(problems.map((problem) => problem.why).join('\n')).toContain(why);
  });
});

describe('the repository', () => {
  it('cites only documents and headings it holds', () => {
    const problems = sourceFiles().flatMap((file) =>
      checkFile(file, readRepository(file) ?? '', readRepository),
    );
    const listed = problems.map((p) => `${p.file}:${p.line}: ${p.why}\n    ${p.text.slice(0, 160)}`);
    expect(
      listed,
      `references someone with only the repository cannot follow:\n${listed.join('\n')}`,
    ).toEqual([]);
  });

  it('holds the documents its README points to', () => {
    for (const doc of ['docs/architecture.md', 'docs/api.md', 'docs/storage.md', 'docs/decisions.md'])
      expect(readRepository(doc), doc).toBeDefined();
  });
});
