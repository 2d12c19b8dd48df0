/** The ticker's command line (node:util parseArgs), parsed into a value or an ArgsError (exit 2). Pure. */
import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';
import { EVENT_TYPES } from '@racewire/client';

export const USAGE = `usage: racewire-tail [--race ID | --meeting ID | --all] [--events TYPES] [--compact] [--url URL] [--token KEY]

  --race ID        one race's events
  --meeting ID     every race of one meeting
  --all            every event racewire sees (the firehose; the default)
  --events TYPES   comma-separated event types; "runner.*" takes a family
                   (${EVENT_TYPES.slice(0, 3).join(', ')}, ...: see docs/events.md)
  --compact        odds moves folded into one line per race per second
  --url URL        racewire's WebSocket (default $RACEWIRE_URL or ws://127.0.0.1:8080/ws)
  --token KEY      API key (default $RACEWIRE_TOKEN)
  --help           this text

Events go to stdout, one line each; messages about the connection go to stderr.
Ctrl-C closes the connection and exits 0.`;

export interface TailOptions {
  /** `race:<id>`, `meeting:<id>` or `firehose`. */
  channel: string;
  /** Event types to print; undefined: all. */
  types: string[] | undefined;
  url: string;
  token: string | undefined;
  /** Fold odds moves into one line per race per second. */
  compact: boolean;
}

export type ParseResult = { help: true } | { help: false; options: TailOptions };

export class ArgsError extends Error {
  readonly code = 'RW_TAIL_BAD_ARGS';
  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}

/** The flags; `strict: false` below so that every refusal is ours, worded the same on every Node line. */
const OPTIONS = {
  race: { type: 'string' },
  meeting: { type: 'string' },
  events: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  all: { type: 'boolean' },
  compact: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Expands `family.*` and checks every name against the event catalogue. */
export function parseTypes(spec: string): string[] {
  const out = new Set<string>();
  for (const raw of spec.split(',')) {
    const name = raw.trim();
    if (!name) continue;
    const matches = name.endsWith('.*')
      ? EVENT_TYPES.filter((t) => t.startsWith(name.slice(0, -1)))
      : EVENT_TYPES.filter((t) => t === name);
    if (matches.length === 0) throw new ArgsError(`--events: unknown event type "${name}"`);
    for (const m of matches) out.add(m);
  }
  if (out.size === 0) throw new ArgsError('--events needs at least one event type');
  return [...out];
}

export function parseArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): ParseResult {
  const { tokens } = nodeParseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { help: true };
  const values = new Map<string, string>();
  let all = false;
  let compact = false;
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') throw new ArgsError(`unexpected argument "${token.value}"`);
    const flag = `--${token.name}`;
    if (!Object.hasOwn(OPTIONS, token.name)) throw new ArgsError(`unknown argument "${token.rawName}"`);
    if (token.name === 'all') {
      all = true;
      continue;
    }
    if (token.name === 'compact') {
      compact = true;
      continue;
    }
    const { value } = token;
    if (value === undefined || value === '' || (!token.inlineValue && value.startsWith('-'))) {
      throw new ArgsError(`${flag} needs a value`);
    }
    if (values.has(flag)) throw new ArgsError(`${flag} given twice`);
    values.set(flag, value);
  }
  const targets = [values.has('--race'), values.has('--meeting'), all].filter(Boolean).length;
  if (targets > 1) throw new ArgsError('choose one of --race, --meeting and --all');
  const race = values.get('--race');
  const meeting = values.get('--meeting');
  const channel = race ? `race:${race}` : meeting ? `meeting:${meeting}` : 'firehose';

  const url = values.get('--url') ?? env.RACEWIRE_URL ?? 'ws://127.0.0.1:8080/ws';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ArgsError(`--url: "${url}" is not a URL`);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new ArgsError(`--url: "${url}" must start with ws:// or wss://`);
  }
  const events = values.get('--events');
  return {
    help: false,
    options: {
      channel,
      types: events === undefined ? undefined : parseTypes(events),
      url,
      token: values.get('--token') ?? (env.RACEWIRE_TOKEN || undefined),
      compact,
    },
  };
}
