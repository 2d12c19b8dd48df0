/**
 * `npm test` (scripts/test.sh) runs the typecheck and the linter beside Vitest: a failure of any of the three
 * fails it, the checks' output comes after Vitest's, and arguments reach `vitest run`. Run here with stand-ins
 * for tsc, biome and vitest on PATH, each exiting as the case says.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const bin = mkdtempSync(join(tmpdir(), 'racewire-npm-test-'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));
// Each stand-in prints its name and arguments and exits with the code in its variable (0 when unset).
for (const [tool, code] of [
  ['tsc', 'TSC_EXIT'],
  ['biome', 'BIOME_EXIT'],
  ['vitest', 'VITEST_EXIT'],
]) {
  writeFileSync(join(bin, tool!), `#!/bin/sh\necho "${tool} $*"\nexit \${${code}:-0}\n`);
  chmodSync(join(bin, tool!), 0o755);
}

function npmTest(exits: Record<string, string>, args: string[] = []) {
  const run = spawnSync('sh', ['scripts/test.sh', ...args], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ...exits },
    encoding: 'utf8',
  });
  return { status: run.status, lines: run.stdout.trim().split('\n') };
}

describe('npm test', () => {
  it('passes when the typecheck, the linter and Vitest pass, and hands its arguments to vitest run', () => {
    expect(npmTest({}, ['test/watch'])).toEqual({
      status: 0,
      lines: ['vitest run test/watch', 'npm test: typecheck passed', 'npm test: lint passed'],
    });
  });

  it('fails when the typecheck fails, and prints its output after the tests', () => {
    expect(npmTest({ TSC_EXIT: '2' })).toEqual({
      status: 1,
      lines: ['vitest run', 'npm test: typecheck failed (exit 2):', 'tsc --noEmit', 'npm test: lint passed'],
    });
  });

  it('fails when the linter fails', () => {
    expect(npmTest({ BIOME_EXIT: '1' })).toEqual({
      status: 1,
      lines: ['vitest run', 'npm test: typecheck passed', 'npm test: lint failed (exit 1):', 'biome check .'],
    });
  });

  it('fails when a test fails, with the checks passing', () => {
    expect(npmTest({ VITEST_EXIT: '1' }).status).toBe(1);
  });
});
