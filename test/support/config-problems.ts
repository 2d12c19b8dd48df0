import { loadConfig } from '../../src/config.js';
import type { ConfigError } from '../../src/config-error.js';

/** The lines `loadConfig` refuses `env` with; empty when it accepts it. */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
}
