/**
 * Every file of the repository that the docs name by its path exists: a doc that sends a reader to
 * `src/watch/schedule/scheduler.ts` after the file moved is a broken promise. Paths are the backticked or plain
 * mentions that start at a top-level folder and end in a file extension; a line number after a colon is
 * ignored.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(`${ROOT}docs`)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const PATH = /(?<![\w./-])(?:src|test|bench|scripts|clients)\/[\w./-]+\.(?:ts|tsx|lua|md|json|mjs)\b/g;

/** The repository paths a markdown text names. */
function namedPaths(markdown: string): string[] {
  return [...new Set(markdown.match(PATH) ?? [])];
}

describe('paths named in the docs', () => {
  it('finds the paths a line names', () => {
    expect(
      namedPaths('see `src/watch/schedule/scheduler.ts:74` and test/cluster/nemesis/run.ts, not xsrc/a.ts'),
    ).toEqual(['src/watch/schedule/scheduler.ts', 'test/cluster/nemesis/run.ts']);
  });

  it.each(DOCS)('%s names only files that exist', (doc) => {
    const missing = namedPaths(readFileSync(`${ROOT}${doc}`, 'utf8')).filter(
      (p) => !existsSync(`${ROOT}${p}`),
    );
    expect(missing).toEqual([]);
  });
});
