/**
 * A configuration that cannot run, with every problem named. Its own file so the logger, which validates its
 * own settings, can throw it without depending on the whole configuration (which depends on the watch layer).
 */
export class ConfigError extends Error {
  readonly code = 'RW_CONFIG_INVALID';
  /** One line each: the setting, what is wrong, and the fix. */
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = this.constructor.name;
  }
}
