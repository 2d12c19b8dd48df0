import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.js';

const sdk = (file: string) => fileURLToPath(new URL(`./clients/js/src/${file}`, import.meta.url));

/**
 * Suites with child processes, a browser, redis-servers of their own that they restart or kill, real wall-clock
 * polling or multi-megabyte storms. Each keeps to itself (ports from the OS, its own redis-server or key prefix,
 * temporary directories), so they run beside the unit suites; the project exists so `--project e2e` runs them alone.
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
    // Two forks, one a core: Vitest's default (one fork fewer than the cores) ran everything one file at a time.
    // The long e2e suites mostly wait on the wall clock (a nemesis minute, a full rate window, nodes failing
    // over), so a unit suite uses the cores while one waits. Three and four forks were faster when the machine
    // was idle but, at load 24, failed minute-long files that two forks pass.
    poolOptions: { forks: { maxForks: 2 } },
    // The longest files start first (test/support/longest-first.ts), so no minute-long suite starts last.
    sequence: { sequencer: LongestFirst },
    // Both projects run together in one pool of forks (`--project unit` or `--project e2e` runs one).
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'clients/**/*.test.ts'],
          exclude: [...E2E, '**/node_modules/**'],
        },
      },
      { extends: true, test: { name: 'e2e', include: E2E } },
    ],
  },
});
