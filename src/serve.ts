/**
 * Racewire as a process: configuration, start, graceful shutdown on SIGINT/SIGTERM. A start-up failure prints
 * one line per problem on stderr, naming the setting and the fix, and exits 2 (configuration) or 1 (anything
 * else): `startup-failure.ts`. `main.ts` runs it as it is; a test entry may pass build options (the nemesis
 * nodes' lease trust).
 */
import { type Config, loadConfig } from './config.js';
import { logUnhandledRejections } from './last-resort.js';
import { createLogger, type Logger } from './logger.js';
import { type BuildOptions, startRacewire } from './runtime.js';
import { openableUrl, startupBanner } from './startup-banner.js';
import { describeStartupFailure } from './startup-failure.js';

export async function serve(options: Omit<BuildOptions, 'config' | 'logger'> = {}): Promise<void> {
  let config: Config | undefined;
  let logger: Logger | undefined;
  let racewire: Awaited<ReturnType<typeof startRacewire>>;
  try {
    config = loadConfig();
    logger = createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
    logUnhandledRejections(logger);
    racewire = await startRacewire({ ...options, config, logger });
  } catch (err) {
    logger?.debug({ err }, 'start-up failed');
    const failure = describeStartupFailure(err, config);
    for (const line of failure.lines) process.stderr.write(`racewire: ${line}\n`);
    process.exit(failure.exitCode);
  }
  const log = logger!;
  const shown = openableUrl(racewire.url);
  log.info(`board: ${shown}/  (WebSocket ${shown.replace(/^http/, 'ws')}/ws, API docs ${shown}/docs)`);
  if (process.stdout.isTTY) {
    process.stdout.write(
      startupBanner({ url: racewire.url, upstream: racewire.upstream, speed: config!.SIMULATOR_SPEED }),
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await racewire.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
