/**
 * Why the service could not start, as one line that names the setting and the fix (docs/operations.md,
 * "Start-up failures"), and the exit code: 2 for a bad configuration, 1 for anything else. Pure, apart from
 * `checkDataDir`, which probes the directory before the store opens it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Config, maskUrlCredentials, parseApiKeys } from './config.js';
import { ConfigError } from './config-error.js';

export interface StartupFailure {
  /** One line per problem, without the `racewire: ` prefix. */
  lines: string[];
  exitCode: 1 | 2;
}

/** DATA_DIR cannot hold the database: it cannot be created or written. */
export class DataDirError extends Error {
  readonly code = 'RW_DATA_DIR';
  constructor(
    readonly dir: string,
    readonly reason: NodeJS.ErrnoException,
  ) {
    const where = resolve(dir) === dir ? '' : ` (${resolve(dir)})`;
    super(`DATA_DIR=${JSON.stringify(dir)}${where} is not writable (${reason.code ?? reason.message})`);
    this.name = this.constructor.name;
  }
}

/** Creates DATA_DIR if needed and proves a file can be written there; throws DataDirError if not. */
export function checkDataDir(dir: string): void {
  const probe = join(dir, `.racewire-write-test-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (err) {
    throw new DataDirError(dir, err as NodeJS.ErrnoException);
  }
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

export function describeStartupFailure(err: unknown, config: Config | undefined): StartupFailure {
  const failure = describe(err, config);
  // Whatever a dependency put in its message: no URL password, no secret setting's value.
  const secrets = [
    config?.ADMIN_TOKEN,
    config?.RACING_API_KEY,
    config?.METRICS_TOKEN,
    config?.SECRETS_KEY,
    ...parseApiKeys(config?.API_KEYS).keys(),
  ];
  const scrub = (line: string) =>
    secrets.reduce<string>((text, secret) => (secret ? text.split(secret).join('[redacted]') : text), line);
  return { ...failure, lines: failure.lines.map((line) => scrub(maskUrlCredentials(line))) };
}

function describe(err: unknown, config: Config | undefined): StartupFailure {
  if (err instanceof ConfigError) return { lines: err.problems, exitCode: 2 };
  const e = err as NodeJS.ErrnoException & { name?: string };
  const line = (text: string): StartupFailure => ({ lines: [text], exitCode: 1 });
  if (err instanceof DataDirError) {
    return line(
      `${err.message}. Fix: create it writable for this user, or set DATA_DIR to a writable directory`,
    );
  }
  if (e?.syscall === 'listen' && config) {
    const where = `PORT=${config.PORT} on HOST=${config.HOST}`;
    if (e.code === 'EADDRINUSE') {
      return line(
        `${where}: the port is already in use. Fix: stop the process that holds it, or set PORT to a free port`,
      );
    }
    if (e.code === 'EACCES') {
      return line(`${where}: not allowed to listen there. Fix: set PORT to 1024 or above`);
    }
    if (e.code === 'EADDRNOTAVAIL') {
      return line(
        `${where}: no such address on this machine. Fix: set HOST to 0.0.0.0 or one of its addresses`,
      );
    }
  }
  if (e?.code === 'RW_REDIS_UNREACHABLE') {
    return line(
      `REDIS_URL=${maskUrlCredentials(config?.REDIS_URL ?? '')}: Redis did not answer (${oneLine(String(e.message))}). Fix: start Redis, or set REDIS_URL to a reachable one`,
    );
  }
  if (e?.code === 'RW_SECRETS_KEY_WRONG' || e?.code === 'RW_SECRETS_KEY_MISSING') {
    // The key is a setting: like any bad setting, exit 2.
    return { lines: [oneLine(String(e.message))], exitCode: 2 };
  }
  if (e?.code === 'RW_REDIS_VOLATILE') {
    return line(
      `${e.message}. Fix: turn persistence on in Redis (appendonly yes, or a save schedule), or set REDIS_ALLOW_VOLATILE=true to accept that loss`,
    );
  }
  if (e?.code === 'RW_BOARD_MISSING') return line(oneLine(String(e.message)));
  const message = err instanceof Error ? err.message : String(err);
  return line(`failed to start: ${oneLine(message)} (LOG_LEVEL=debug logs the stack)`);
}
