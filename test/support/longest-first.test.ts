/** The sequencer starts the listed files first, in the listed order, and every listed file exists. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import LongestFirst, { LONGEST } from './longest-first.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What BaseSequencer reads: the root, and a cache that knows nothing (a fresh clone) but each file's size. */
function sequencer(sizes: Record<string, number>) {
  const ctx = {
    config: { root: ROOT },
    cache: {
      getFileTestResults: () => undefined,
      getFileStats: (key: string) => ({ size: sizes[key.slice(key.indexOf(':') + 1)] ?? 0 }),
    },
  };
  return new LongestFirst(ctx as unknown as Vitest);
}

const spec = (file: string) =>
  ({ moduleId: join(ROOT, file), project: { name: 'unit', config: { root: ROOT } } }) as TestSpecification;

describe('LongestFirst', () => {
  it('lists only files that exist', () => {
    expect(LONGEST.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it('starts the listed files first in the listed order, then the rest largest first', async () => {
    const files = ['test/a.test.ts', LONGEST[2]!, 'test/b.test.ts', LONGEST[0]!];
    const sizes = { 'test/a.test.ts': 10, 'test/b.test.ts': 500, [LONGEST[0]!]: 1, [LONGEST[2]!]: 2 };
    const sorted = await sequencer(sizes).sort(files.map(spec));
    expect(sorted.map((s) => s.moduleId)).toEqual(
      [LONGEST[0]!, LONGEST[2]!, 'test/b.test.ts', 'test/a.test.ts'].map((f) => join(ROOT, f)),
    );
  });
});
