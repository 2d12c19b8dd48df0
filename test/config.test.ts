import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseApiKeys, SETTINGS } from '../src/config.js';

describe('configuration', () => {
  it('starts on documented defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.RACING_API_URL).toBeUndefined();
    expect(config.RACING_API_MAX_RPM).toBe(100);
    expect(config.RACING_API_TIMEOUT_MS).toBe(10_000);
    expect(config.DATA_DIR).toBe('./data');
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.ALLOW_ANONYMOUS).toBe(true);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', RACING_API_URL: 'ftp://x', RACING_API_MAX_RPM: '0' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, code } = error as ConfigError;
    expect(code).toBe('RW_CONFIG_INVALID');
    expect(problems.map((p) => p.split('=')[0])).toEqual(['PORT', 'RACING_API_URL', 'RACING_API_MAX_RPM']);
  });

  it('refuses an API key without the header that carries it', () => {
    expect(() => loadConfig({ RACING_API_KEY: 'k' })).toThrow(/RACING_API_KEY_HEADER/);
  });

  it('parses subscriber keys with their scopes and rejects an unknown scope without echoing the key', () => {
    expect([...parseApiKeys('abc:partner,def:public,ghi')]).toEqual([
      ['abc', { name: 'key1', scope: 'partner' }],
      ['def', { name: 'key2', scope: 'public' }],
      ['ghi', { name: 'key3', scope: 'public' }],
    ]);
    expect(() => parseApiKeys('supersecretkey:admin')).toThrow(/"supe…"/);
  });

  it('documents every setting with its default in docs/operations.md', () => {
    const doc = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
    for (const [name, [, fallback]] of Object.entries(SETTINGS)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      expect(row).toContain(fallback === undefined ? '(unset)' : `\`${fallback}\``);
    }
  });
});
