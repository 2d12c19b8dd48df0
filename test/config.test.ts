import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseApiKeys, SETTINGS } from '../src/config.js';
import { ConfigError } from '../src/config-error.js';
import { configProblems } from './support/config-problems.js';

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
    expect(problems[0]).toBe(
      'PORT="eighty": Invalid input: expected number, received NaN. Fix: set PORT to a whole number from 0 to 65535, or unset it for the default 8080',
    );
    for (const line of problems) expect(line).not.toContain('\n');
  });

  it('never echoes a secret: secret values are hidden and URL passwords masked', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        ADMIN_TOKEN: 'admintok',
        REDIS_URL: 'redis://:hunter2@127.0.0.1:99999',
        RACING_API_URL: 'ftp://user:pa55word@api.example/x',
        API_KEYS: 'supersecretkey:admin',
      });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error?.problems).toEqual([
      'RACING_API_URL="ftp://***@api.example/x": Invalid URL. Fix: set RACING_API_URL to an http:// or https:// URL, or unset it',
      'REDIS_URL="redis://***@127.0.0.1:99999": Invalid URL. Fix: set REDIS_URL to a redis:// or rediss:// URL, or unset it',
      'ADMIN_TOKEN (8 characters, hidden): Too small: expected string to have >=16 characters. Fix: set ADMIN_TOKEN to at least 16 characters, e.g. the output of openssl rand -hex 24, or unset it',
      'API_KEYS (pair 1 of 1, hidden): the scope must be public or partner. Fix: write each pair as key:public or key:partner',
    ]);
  });

  it('expires the event log a day after a stream settles and forgets it after two days, unless told otherwise', () => {
    const config = loadConfig({});
    expect([config.EVENT_LOG_SETTLED_HOURS, config.EVENT_LOG_RETAIN_DAYS]).toEqual([24, 2]);
    const custom = loadConfig({ EVENT_LOG_SETTLED_HOURS: '48', EVENT_LOG_RETAIN_DAYS: '7' });
    expect([custom.EVENT_LOG_SETTLED_HOURS, custom.EVENT_LOG_RETAIN_DAYS]).toEqual([48, 7]);
  });

  it('keeps finished webhook deliveries 24 wall-clock hours unless told otherwise, at least an hour', () => {
    expect(loadConfig({}).WEBHOOK_RETENTION_HOURS).toBe(24);
    expect(loadConfig({ WEBHOOK_RETENTION_HOURS: '168' }).WEBHOOK_RETENTION_HOURS).toBe(168);
    expect(() => loadConfig({ WEBHOOK_RETENTION_HOURS: '0' })).toThrow(ConfigError);
  });

  it('refuses retention settings out of range, or that forget a stream before it settles', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        return (err as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ EVENT_LOG_SETTLED_HOURS: '0', EVENT_LOG_RETAIN_DAYS: 'week' })).toEqual([
      'EVENT_LOG_SETTLED_HOURS="0": Too small: expected number to be >=1. Fix: set EVENT_LOG_SETTLED_HOURS to a whole number from 1 to 87600, or unset it for the default 24',
      'EVENT_LOG_RETAIN_DAYS="week": Invalid input: expected number, received NaN. Fix: set EVENT_LOG_RETAIN_DAYS to a whole number from 1 to 3650, or unset it for the default 2',
    ]);
    expect(problems({ EVENT_LOG_SETTLED_HOURS: '200' })).toEqual([
      'EVENT_LOG_RETAIN_DAYS=2 is shorter than EVENT_LOG_SETTLED_HOURS=200: a stream would be forgotten before it settles. Fix: set EVENT_LOG_RETAIN_DAYS to at least 9, or lower EVENT_LOG_SETTLED_HOURS',
    ]);
  });

  it('refuses to serve simulated data in production unless UPSTREAM=simulator says so', () => {
    const problems = configProblems;
    expect(problems({ NODE_ENV: 'production' })).toEqual([
      'NODE_ENV=production and RACING_API_URL is unset, so racewire would serve simulated data. Fix: set RACING_API_URL to the racing API base URL, or UPSTREAM=simulator to run the simulator on purpose',
    ]);
    expect(problems({ NODE_ENV: 'production', UPSTREAM: 'simulator' })).toEqual([]);
    expect(
      problems({ NODE_ENV: 'production', RACING_API_URL: 'https://api.example/affiliates/v1/racing' }),
    ).toEqual([]);
    expect(problems({ NODE_ENV: 'production', REPLAY_FILE: 'day.jsonl.gz' })).toEqual([]);
    expect(problems({})).toEqual([]);
    expect(problems({ UPSTREAM: 'api' })).toEqual([
      'UPSTREAM=api needs RACING_API_URL. Fix: set RACING_API_URL to the racing API base URL',
    ]);
    expect(problems({ UPSTREAM: 'simulator', RACING_API_URL: 'https://api.example/x' })).toEqual([
      'UPSTREAM=simulator but RACING_API_URL is set. Fix: unset one of them',
    ]);
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
    expect(() => parseApiKeys('a:public,supersecretkey:admin')).toThrow(
      'API_KEYS (pair 2 of 2, hidden): the scope must be public or partner',
    );
  });

  it('documents every setting with its default in docs/operations.md', () => {
    const doc = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
    for (const [name, [, fallback, description]] of Object.entries(SETTINGS)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      expect(row).toContain(fallback === undefined ? '(unset)' : `\`${fallback}\``);
      expect(row).toContain(description);
    }
  });
});
