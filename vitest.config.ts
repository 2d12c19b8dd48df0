import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdk = (file: string) => fileURLToPath(new URL(`./clients/js/src/${file}`, import.meta.url));

/** Suites that start servers, child processes, browsers or Redis of their own: run one file at a time. */
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
