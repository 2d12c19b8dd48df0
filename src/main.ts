/** Process entry: configuration, start, graceful shutdown on SIGINT/SIGTERM. */
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startRacewire } from './runtime.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`racewire: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const racewire = await startRacewire({ config, logger });
  const shown = racewire.url.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');
  logger.info(`board: ${shown}/  (WebSocket ${shown.replace(/^http/, 'ws')}/ws, API docs ${shown}/docs)`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await racewire.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`racewire failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
