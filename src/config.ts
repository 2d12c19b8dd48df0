/**
 * Configuration, in one place: one explicit map from environment variable to setting, defaults in one
 * object, validated once at start-up. A bad value stops the process with one line per problem that names
 * the variable and the fix, and never echoes a secret (secret values are hidden, URL passwords masked).
 * docs/operations.md carries the same table for operators; a test keeps the two in step.
 */

import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { parseMarketThresholds } from './watch/detect/market-thresholds.js';
import { MARKET_OPTIONS, type MarketOption } from './watch/fetch/market-data.js';

/** A setting's schema and, for the fix in an error message, what a good value looks like. */
interface Spec<S extends z.ZodType = z.ZodType> {
  schema: S;
  expect: string;
}
const spec = <S extends z.ZodType>(schema: S, expect: string): Spec<S> => ({ schema, expect });

const bool = spec(
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
  'true or false',
);
const int = (min: number, max: number) =>
  spec(z.coerce.number().int().min(min).max(max), `a whole number from ${min} to ${max}`);
const text = spec(z.string().min(1), 'a non-empty value');
const optionalText = spec(z.string().min(1).optional(), 'a non-empty value');
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  spec(z.enum(values), `one of ${values.join(', ')}`);

/** Environment variable -> [schema, default (as the string an operator would write), description]. */
export const SETTINGS = {
  PORT: [int(0, 65535), '8080', 'HTTP/WebSocket port'],
  HOST: [text, '0.0.0.0', 'Interface to listen on'],
  RACING_API_URL: [
    spec(z.url({ protocol: /^https?$/ }).optional(), 'an http:// or https:// URL'),
    undefined,
    'Base URL of the racing API incl. /affiliates/v1/racing; unset: the embedded simulator',
  ],
  UPSTREAM: [
    spec(z.enum(['api', 'simulator']).optional(), 'api or simulator'),
    undefined,
    'What to poll, said out loud: api (needs RACING_API_URL) or simulator (the embedded one); unset: the API when RACING_API_URL is set, else the simulator, which NODE_ENV=production refuses',
  ],
  RACING_API_FROM: [optionalText, undefined, 'Value of the From header the real API expects'],
  RACING_API_PARTNER: [optionalText, undefined, 'Value of the X-Partner header'],
  RACING_API_PARTNER_ID: [optionalText, undefined, 'Value of the X-Partner-ID header'],
  RACING_API_KEY_HEADER: [optionalText, undefined, 'Name of an API-key header, if the API needs one'],
  RACING_API_KEY: [optionalText, undefined, 'Value of that API-key header (secret; never logged)'],
  RACING_API_MAX_RPM: [int(1, 10_000), '100', 'Most upstream requests in any 60 s window'],
  RACING_API_TIMEOUT_MS: [int(100, 120_000), '10000', 'Upstream request timeout'],
  DISCOVERY_INTERVAL_MS: [
    int(1000, 3_600_000),
    '6000',
    'How often a day with live races is listed again (/meetings, every page)',
  ],
  SCHEDULER_LATE_SCRATCHING_MAX_AGE_MS: [
    int(10_000, 3_600_000),
    '225000',
    'Budget slice for late scratchings: each Open race within the hour of its start is fetched at least this often',
  ],
  SCHEDULER_EARLY_SCRATCHING_SHARE: [
    spec(z.coerce.number().min(0.01).max(0.5), 'a number from 0.01 to 0.5'),
    '0.08',
    'Budget slice for early scratchings: at most this share of race fetches goes to Open races 1-3 h out past their maximum age or never fetched (a turn with none due goes to the races at their jump)',
  ],
  SCHEDULER_EARLY_SCRATCHING_MAX_AGE_MS: [
    int(60_000, 86_400_000),
    '1080000',
    'Each Open race 1-3 h out is fetched at least this often (early scratchings)',
  ],
  DATA_DIR: [text, './data', 'Where the SQLite database lives'],
  STORE: [
    oneOf(['sqlite', 'memory', 'redis']),
    'sqlite',
    'Event log and state store: sqlite (durable, one node), memory, or redis (several nodes; needs REDIS_URL)',
  ],
  REDIS_URL: [
    spec(z.url({ protocol: /^rediss?$/ }).optional(), 'a redis:// or rediss:// URL'),
    undefined,
    'Redis for STORE=redis, e.g. redis://127.0.0.1:6379 (may carry a password: never logged)',
  ],
  REDIS_PREFIX: [text, 'racewire:', 'Prefix of every Redis key and channel of this deployment'],
  REDIS_ALLOW_VOLATILE: [
    bool,
    'false',
    'STORE=redis: start on a Redis that keeps nothing across its restart (neither appendonly nor save on), whose restart loses every webhook endpoint and secret; false: such a Redis stops the start (tests and demos set true)',
  ],
  NODE_ID: [
    spec(
      z
        .string()
        .regex(/^[A-Za-z0-9._:-]+$/)
        .optional(),
      'letters, digits and . _ : -',
    ),
    undefined,
    'Name of this node in logs, metrics and Redis; unset: hostname-pid-random',
  ],
  LEASE_TTL_MS: [
    int(500, 60_000),
    '5000',
    'STORE=redis: poller lease time-to-live; a dead leader is replaced within about 4/3 of it',
  ],
  EVENT_LOG_WINDOW: [int(10, 10_000_000), '5000', 'Entries kept per stream for resume and replay'],
  EVENT_LOG_SETTLED_HOURS: [
    int(1, 87_600),
    '24',
    "Race-clock hours after a stream's last write when its entries are dropped (head and document kept; a client behind the head gets a snapshot)",
  ],
  EVENT_LOG_RETAIN_DAYS: [
    int(1, 3650),
    '2',
    "Race-clock days after a stream's last write when its document is dropped too (its seq kept); at least EVENT_LOG_SETTLED_HOURS",
  ],
  RACE_CACHE_BYTES: [
    int(1, 1_000_000_000_000),
    '16777216',
    'Most bytes of race state (nearly all document JSON) the poller keeps in memory; the least recently used goes first and is read back from the log when needed',
  ],
  LOG_LEVEL: [
    oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    'info',
    'pino log level',
  ],
  LOG_FORMAT: [
    oneOf(['json', 'pretty']),
    'json',
    'json: one JSON object a line (for collectors); pretty: coloured human lines through pino-pretty, a development dependency (for a terminal)',
  ],
  SIMULATOR_SEED: [int(0, 2 ** 31 - 1), '1', 'Seed of the embedded simulator (same seed, same day)'],
  SIMULATOR_SPEED: [
    spec(z.coerce.number().min(0.1).max(1000), 'a number from 0.1 to 1000'),
    '10',
    'Embedded simulator (or replay) and racewire clock speed (x real time)',
  ],
  RECORD_DIR: [
    optionalText,
    undefined,
    'Record every upstream response into this directory (gzip JSON lines, a file per day); unset: off',
  ],
  REPLAY_FILE: [
    optionalText,
    undefined,
    'Replay this recording (a file, or a directory of them) as the embedded upstream instead of the simulator',
  ],
  REPLAY_FROM: [
    spec(z.iso.datetime({ offset: true }).optional(), 'an ISO 8601 instant such as 2025-07-17T00:30:00Z'),
    undefined,
    'ISO 8601 instant to start the replay at; unset: its first record',
  ],
  SIMULATOR_PORT: [int(0, 65535), '8081', 'Port of the standalone simulator (npm run simulator)'],
  API_KEYS: [
    spec(z.string().optional(), 'comma-separated key:public or key:partner pairs'),
    undefined,
    'Subscriber keys: comma-separated key:scope pairs, scope public or partner (secret)',
  ],
  ALLOW_ANONYMOUS: [bool, 'true', 'Let subscribers without a key in, with public scope'],
  ADMIN_TOKEN: [
    spec(z.string().min(16).optional(), 'at least 16 characters, e.g. the output of openssl rand -hex 24'),
    undefined,
    'Bearer token for the admin API, at least 16 characters (secret); unset: admin API answers loopback only',
  ],
  METRICS_TOKEN: [
    spec(z.string().min(16).optional(), 'at least 16 characters, e.g. the output of openssl rand -hex 24'),
    undefined,
    'Bearer token a scraper must send for /metrics, at least 16 characters (secret); unset: /metrics is open',
  ],
  SECRETS_KEY: [
    spec(
      z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/)
        .optional(),
      '64 hex characters (32 bytes), e.g. the output of openssl rand -hex 32',
    ),
    undefined,
    'Key that encrypts webhook endpoint secrets at rest (AES-256-GCM; secret): losing it loses the endpoints, and it cannot be changed in place (docs/operations.md); unset: secrets stored in plain text',
  ],
  WEBHOOK_ALLOW_PRIVATE: [
    bool,
    'false',
    'Allow webhook URLs on private/loopback networks (tests, local demos)',
  ],
  WEBHOOK_RETENTION_HOURS: [
    int(1, 87_600),
    '24',
    'Wall-clock hours a delivered or finally failed webhook delivery (with its attempts) is kept for inspection and replay before it is pruned; owed deliveries are never pruned',
  ],
  CORS_ORIGINS: [
    spec(
      z
        .string()
        .regex(/^(\*|https?:\/\/[^\s,]+(,https?:\/\/[^\s,]+)*)$/)
        .optional(),
      '* or comma-separated origins such as https://a.example,https://b.example',
    ),
    undefined,
    'Origins whose pages may call the REST API (CORS): * for any, or a comma-separated list; unset: none',
  ],
  RATE_LIMIT_REST: [
    int(1, 1_000_000),
    '300',
    'REST requests per minute per client address (the board needs about 45 per open tab)',
  ],
  RATE_LIMIT_ADMIN: [
    int(1, 1_000_000),
    '60',
    'Admin API (/v1/webhooks) requests per minute per client address',
  ],
  AUTH_MAX_FAILURES: [
    int(1, 1_000_000),
    '10',
    'Failed admin tokens and API keys per client address in AUTH_FAILURE_WINDOW_MS; further attempts get 429 until the window ends',
  ],
  AUTH_FAILURE_WINDOW_MS: [
    int(1000, 86_400_000),
    '600000',
    "Window of AUTH_MAX_FAILURES, from an address's first failure",
  ],
  MARKET_DATA: [
    oneOf(['hot', 'always', 'off']),
    'hot',
    'Ask /events for bets and the money tracker: hot (from MARKET_DATA_WINDOW_MIN before the start), always or off',
  ],
  MARKET_DATA_WINDOW_MIN: [
    int(0, 1440),
    '30',
    'Minutes before the advertised start from which MARKET_DATA=hot asks for the market members',
  ],
  MARKET_DATA_OPTIONS: [
    spec(
      z
        .string()
        .transform((s) => s.split(',').map((o) => o.trim()))
        .pipe(z.array(z.enum(Object.keys(MARKET_OPTIONS) as [MarketOption, ...MarketOption[]])).min(1)),
      `comma-separated options among ${Object.keys(MARKET_OPTIONS).join(', ')}`,
    ),
    'with_big_bets,with_biggest_bet,with_money_tracker',
    'The /events options (official names) MARKET_DATA turns on',
  ],
  MARKET_THRESHOLDS: [
    spec(
      z
        .string()
        .optional()
        .transform((s, ctx) => {
          try {
            return parseMarketThresholds(s);
          } catch (err) {
            ctx.addIssue({ code: 'custom', message: (err as Error).message });
            return z.NEVER;
          }
        }),
      'name=value pairs such as bigBetMinStake=5000,plungePct=25 (docs/events.md#market-events)',
    ),
    undefined,
    'Market event thresholds over the defaults, e.g. bigBetMinStake=5000,plungePct=25; unset: the defaults',
  ],
} as const;

type Settings = typeof SETTINGS;
export type Config = { [K in keyof Settings]: z.output<Settings[K][0]['schema']> };

/** Settings whose values are secrets: an error says how long the value is, never what it is. */
const SECRET = new Set<string>(['RACING_API_KEY', 'API_KEYS', 'ADMIN_TOKEN', 'METRICS_TOKEN', 'SECRETS_KEY']);

/** Every URL in `text` with its user and password masked (`redis://***@host:6379`), parsable or not. */
export const maskUrlCredentials = (text: string) =>
  text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');

/** How an error message shows a setting's value. */
function shown(name: string, raw: string | undefined): string {
  if (raw === undefined) return ' (unset)';
  if (SECRET.has(name)) return ` (${raw.length} characters, hidden)`;
  const value = maskUrlCredentials(raw);
  return `=${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}`;
}

/** Reads and validates every setting; throws ConfigError naming each bad variable and its fix. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, [{ schema, expect }, fallback]] of Object.entries(SETTINGS) as [
    string,
    readonly [Spec, string | undefined, string],
  ][]) {
    const raw = env[name] === '' ? undefined : env[name];
    const parsed = schema.safeParse(raw ?? fallback);
    if (parsed.success) {
      out[name] = parsed.data;
      continue;
    }
    const why = parsed.error.issues.map((i) => i.message).join('; ');
    const unset = fallback === undefined ? ', or unset it' : `, or unset it for the default ${fallback}`;
    problems.push(`${name}${shown(name, raw)}: ${why}. Fix: set ${name} to ${expect}${unset}`);
  }
  if (env.RACING_API_KEY && !env.RACING_API_KEY_HEADER) {
    problems.push(
      'RACING_API_KEY is set but RACING_API_KEY_HEADER is not. Fix: set RACING_API_KEY_HEADER to the name of the header that carries the key',
    );
  }
  if (env.REPLAY_FILE && env.RACING_API_URL) {
    problems.push('REPLAY_FILE replays a recording in place of RACING_API_URL: set one of them');
  }
  problems.push(...upstreamProblems(env));
  if (env.STORE === 'redis' && !env.REDIS_URL) {
    problems.push('STORE=redis needs REDIS_URL. Fix: set REDIS_URL, for example redis://127.0.0.1:6379');
  }
  const [settledHours, retainDays] = [out.EVENT_LOG_SETTLED_HOURS, out.EVENT_LOG_RETAIN_DAYS] as number[];
  if (settledHours !== undefined && retainDays !== undefined && retainDays * 24 < settledHours) {
    problems.push(
      `EVENT_LOG_RETAIN_DAYS=${retainDays} is shorter than EVENT_LOG_SETTLED_HOURS=${settledHours}: a stream would be forgotten before it settles. Fix: set EVENT_LOG_RETAIN_DAYS to at least ${Math.ceil(settledHours / 24)}, or lower EVENT_LOG_SETTLED_HOURS`,
    );
  }
  try {
    parseApiKeys(env.API_KEYS);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length) throw new ConfigError(problems);
  return out as Config;
}

/**
 * A production process that was not told where the racing API is must not quietly serve simulated data:
 * with NODE_ENV=production the simulator runs only when UPSTREAM=simulator says so.
 */
function upstreamProblems(env: Record<string, string | undefined>): string[] {
  const [url, replay, upstream] = [env.RACING_API_URL, env.REPLAY_FILE, env.UPSTREAM];
  if (upstream === 'api' && !url) {
    return ['UPSTREAM=api needs RACING_API_URL. Fix: set RACING_API_URL to the racing API base URL'];
  }
  if (upstream === 'simulator' && (url || replay)) {
    return [
      `UPSTREAM=simulator but ${url ? 'RACING_API_URL' : 'REPLAY_FILE'} is set. Fix: unset one of them`,
    ];
  }
  if (env.NODE_ENV === 'production' && !url && !replay && upstream !== 'simulator') {
    return [
      'NODE_ENV=production and RACING_API_URL is unset, so racewire would serve simulated data. Fix: set RACING_API_URL to the racing API base URL, or UPSTREAM=simulator to run the simulator on purpose',
    ];
  }
  return [];
}

/** Subscriber keys from `API_KEYS` ("key:scope,key2:scope"); each is named by its position for logs. */
export function parseApiKeys(
  list: string | undefined,
): Map<string, { name: string; scope: 'public' | 'partner' }> {
  const keys = new Map<string, { name: string; scope: 'public' | 'partner' }>();
  const pairs = (list ?? '').split(',').filter(Boolean);
  for (const [i, pair] of pairs.entries()) {
    const [key, scope = 'public'] = pair.split(':');
    if (!key || (scope !== 'public' && scope !== 'partner')) {
      // The key is a secret: name the pair by its position, never by its text.
      throw new ConfigError([
        `API_KEYS (pair ${i + 1} of ${pairs.length}, hidden): the scope must be public or partner. Fix: write each pair as key:public or key:partner`,
      ]);
    }
    keys.set(key, { name: `key${keys.size + 1}`, scope });
  }
  return keys;
}
