import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdk = (file: string) => fileURLToPath(new URL(`./clients/js/src/${file}`, import.meta.url));

export default defineConfig({
  // The SDK's sources, as tsconfig.json's `paths` map them for tsc, tsx and esbuild.
  resolve: {
    alias: [
      { find: /^@racewire\/client$/, replacement: sdk('index.ts') },
      { find: /^@racewire\/client\/([a-z-]+)$/, replacement: sdk('$1.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'clients/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
