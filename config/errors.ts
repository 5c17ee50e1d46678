/** A configuration problem: the message names the file or variable and the fix. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
