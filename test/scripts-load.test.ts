/**
 * The long runs (`npm run nemesis`, `npm run fuzz`, `scripts/restart-budget.ts`) load test code outside
 * vitest, where importing vitest throws: each must load its whole module graph and reach its own usage check.
 * `npm run nemesis` once failed at load, its redis-server helper having taken a probe from a module that
 * imports vitest.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const scripts = [
  ['scripts/nemesis.ts', '--minutes', 'usage: npm run nemesis'],
  ['scripts/fuzz.ts', '--minutes', 'usage: npm run fuzz'],
  ['scripts/restart-budget.ts', '--runs', 'usage: npx tsx scripts/restart-budget.ts'],
] as const;

for (const [script, count, usage] of scripts) {
  it(`${script} loads outside vitest and refuses a bad argument with its usage`, async () => {
    // Not inheriting the test worker's environment: vitest's own variables would make vitest load.
    const child = spawn(process.execPath, ['--import', 'tsx', script, count, '0'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).toContain(usage);
    expect(code).toBe(2);
  }, 60_000);
}
