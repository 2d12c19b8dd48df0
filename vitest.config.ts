import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdk = (file: string) => fileURLToPath(new URL(`./clients/js/src/${file}`, import.meta.url));

/**
 * Suites that need the machine to themselves (child processes and their start-up times, a browser, redis-servers
 * they restart or kill, real wall-clock polling, multi-megabyte storms): one file at a time, after the rest.
 * Wire suites that share nothing (an in-process server on port 0, memory stores, the manual clock) are named
 * `*.wire.test.ts` instead and run in parallel with the unit suites.
 */
const E2E = ['test/**/*.e2e.test.ts', 'test/e2e/**/*.test.ts'];

export default defineConfig({
  // The SDK's sources, as tsconfig.json's `paths` map them for tsc, tsx and esbuild.
  resolve: {
    alias: [
      { find: /^@racewire\/client$/, replacement: sdk('index.ts') },
      { find: /^@racewire\/client\/([a-z-]+)$/, replacement: sdk('$1.ts') },
    ],
  },
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest's default is one fork fewer than the cores: on this 2-core machine one fork, so the unit suites
    // ran one at a time. Two keep both cores busy (many suites also wait on Redis or SQLite); the e2e project
    // still runs in a single fork.
    poolOptions: { forks: { maxForks: 2 } },
    // `vitest run` runs both, one after the other: the unit suites in parallel, then the e2e suites serially
    // on a machine they have to themselves (`--project unit` or `--project e2e` runs one).
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'clients/**/*.test.ts'],
          exclude: [...E2E, '**/node_modules/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          // One fork, one file at a time.
          poolOptions: { forks: { singleFork: true } },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
