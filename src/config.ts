/**
 * Configuration, in one place: one explicit map from environment variable to setting, defaults in one
 * object, validated once at start-up. A bad value stops the process with a message that names the variable.
 * docs/operations.md carries the same table for operators; a test keeps the two in step.
 */
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const url = z.url({ protocol: /^https?$/ });

/** Environment variable -> [schema, default (as the string an operator would write), description]. */
export const SETTINGS = {
  PORT: [int(0, 65535), '8080', 'HTTP/WebSocket port'],
  HOST: [z.string().min(1), '0.0.0.0', 'Interface to listen on'],
  RACING_API_URL: [
    url.optional(),
    undefined,
    'Base URL of the racing API incl. /affiliates/v1/racing; unset: the embedded simulator',
  ],
  RACING_API_FROM: [z.string().optional(), undefined, 'Value of the From header the real API expects'],
  RACING_API_PARTNER: [z.string().optional(), undefined, 'Value of the X-Partner header'],
  RACING_API_PARTNER_ID: [z.string().optional(), undefined, 'Value of the X-Partner-ID header'],
  RACING_API_KEY_HEADER: [
    z.string().min(1).optional(),
    undefined,
    'Name of an API-key header, if the API needs one',
  ],
  RACING_API_KEY: [
    z.string().min(1).optional(),
    undefined,
    'Value of that API-key header (secret; never logged)',
  ],
  RACING_API_MAX_RPM: [int(1, 10_000), '100', 'Most upstream requests in any 60 s window'],
  RACING_API_TIMEOUT_MS: [int(100, 120_000), '10000', 'Upstream request timeout'],
  DISCOVERY_INTERVAL_MS: [
    int(1000, 3_600_000),
    '6000',
    'How often a day with live races is listed again (/meetings, every page)',
  ],
  DATA_DIR: [z.string().min(1), './data', 'Where the SQLite database lives'],
  STORE: [
    z.enum(['sqlite', 'memory', 'redis']),
    'sqlite',
    'Event log and state store: sqlite (durable, one node), memory, or redis (several nodes; needs REDIS_URL)',
  ],
  REDIS_URL: [
    z.url({ protocol: /^rediss?$/ }).optional(),
    undefined,
    'Redis for STORE=redis, e.g. redis://127.0.0.1:6379 (may carry a password: never logged)',
  ],
  REDIS_PREFIX: [z.string().min(1), 'racewire:', 'Prefix of every Redis key and channel of this deployment'],
  NODE_ID: [
    z
      .string()
      .regex(/^[A-Za-z0-9._:-]+$/)
      .optional(),
    undefined,
    'Name of this node in logs, metrics and Redis; unset: hostname-pid-random',
  ],
  LEASE_TTL_MS: [
    int(500, 60_000),
    '5000',
    'STORE=redis: poller lease time-to-live; a dead leader is replaced within about 4/3 of it',
  ],
  EVENT_LOG_WINDOW: [int(10, 10_000_000), '5000', 'Entries kept per stream for resume and replay'],
  LOG_LEVEL: [
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    'info',
    'pino log level',
  ],
  SIMULATOR_SEED: [int(0, 2 ** 31 - 1), '1', 'Seed of the embedded simulator (same seed, same day)'],
  SIMULATOR_SPEED: [
    z.coerce.number().min(0.1).max(1000),
    '10',
    'Embedded simulator (or replay) and racewire clock speed (x real time)',
  ],
  RECORD_DIR: [
    z.string().min(1).optional(),
    undefined,
    'Record every upstream response into this directory (gzip JSON lines, a file per day); unset: off',
  ],
  REPLAY_FILE: [
    z.string().min(1).optional(),
    undefined,
    'Replay this recording (a file, or a directory of them) as the embedded upstream instead of the simulator',
  ],
  REPLAY_FROM: [
    z.iso.datetime({ offset: true }).optional(),
    undefined,
    'ISO 8601 instant to start the replay at; unset: its first record',
  ],
  SIMULATOR_PORT: [int(0, 65535), '8081', 'Port of the standalone simulator (npm run simulator)'],
  API_KEYS: [
    z.string().optional(),
    undefined,
    'Subscriber keys: comma-separated key:scope pairs, scope public or partner (secret)',
  ],
  ALLOW_ANONYMOUS: [bool, 'true', 'Let subscribers without a key in, with public scope'],
  ADMIN_TOKEN: [
    z.string().min(16).optional(),
    undefined,
    'Bearer token for the admin API; unset: admin API answers loopback only',
  ],
  WEBHOOK_ALLOW_PRIVATE: [
    bool,
    'false',
    'Allow webhook URLs on private/loopback networks (tests, local demos)',
  ],
} as const;

type Settings = typeof SETTINGS;
export type Config = { [K in keyof Settings]: z.output<Settings[K][0]> };

export class ConfigError extends Error {
  readonly code = 'RW_CONFIG_INVALID';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = this.constructor.name;
  }
}

/** Reads and validates every setting; throws ConfigError naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, [schema, fallback]] of Object.entries(SETTINGS)) {
    const raw = env[name] === '' ? undefined : env[name];
    const parsed = (schema as z.ZodType).safeParse(raw ?? fallback);
    if (parsed.success) out[name] = parsed.data;
    else
      problems.push(
        `${name}=${JSON.stringify(raw)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
      );
  }
  if (env.RACING_API_KEY && !env.RACING_API_KEY_HEADER) {
    problems.push('RACING_API_KEY is set but RACING_API_KEY_HEADER is not: name the header that carries it');
  }
  if (env.REPLAY_FILE && env.RACING_API_URL) {
    problems.push('REPLAY_FILE replays a recording in place of RACING_API_URL: set one of them');
  }
  if (env.STORE === 'redis' && !env.REDIS_URL) {
    problems.push('STORE=redis needs REDIS_URL (for example redis://127.0.0.1:6379)');
  }
  if (problems.length) throw new ConfigError(problems);
  return out as Config;
}

/** Subscriber keys from `API_KEYS` ("key:scope,key2:scope"); each is named by its position for logs. */
export function parseApiKeys(
  spec: string | undefined,
): Map<string, { name: string; scope: 'public' | 'partner' }> {
  const keys = new Map<string, { name: string; scope: 'public' | 'partner' }>();
  for (const pair of (spec ?? '').split(',').filter(Boolean)) {
    const [key, scope = 'public'] = pair.split(':');
    if (!key || (scope !== 'public' && scope !== 'partner')) {
      throw new ConfigError([
        `API_KEYS: "${pair.split(':')[0]?.slice(0, 4)}…" needs the form key:public or key:partner`,
      ]);
    }
    keys.set(key, { name: `key${keys.size + 1}`, scope });
  }
  return keys;
}
