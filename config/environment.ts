// Every environment variable the brain reads, in one list: README's configuration table lists
// exactly these, and test/config-environment.test.ts fails when code reads a variable that is
// not here (so a new one cannot go undocumented). Most are validated by loadRuntimeConfig; the
// few below are read where they are used, for the reason given beside each.
import { RUNTIME_VARIABLES } from './runtime.js';

export const READ_WHERE_USED = {
  /** Each command picks its own default level (quiet for one-shot commands), before any config loads. */
  BRAIN_LOG_LEVEL: 'services/runtime/logger.ts, db/server-subject-db.ts, cli/tool-runner.ts, cli/commands/up.ts, cli/commands/serve.ts, cli/commands/view.ts',
  /** A default for --subject: belongs to the command line, not to the brain's configuration. */
  BRAIN_SUBJECT: 'cli/subject-options.ts, cli/commands/serve.ts',
  /** Per served subject; read when the server starts, beside that subject's password. */
  BRAIN_TOKEN_FILE: 'services/runtime/serve.ts, services/auth/for-subject.ts',
  /** Only the container's health check, which must stay a tiny script (no YAML, no zod). */
  BRAIN_PORT: 'services/deploy/healthcheck.ts',
  /** Read by the bundle's entry before the bundle (and the configuration) loads. */
  BRAIN_CODE_CACHE: 'cli/code-cache.ts',
} as const;

export const ENVIRONMENT_VARIABLES: readonly string[] = Object.freeze([...RUNTIME_VARIABLES, ...Object.keys(READ_WHERE_USED)]);

/**
 * The system's own variables the code reads, not the brain's configuration (README says so
 * under its table): where they are read and why.
 */
export const SYSTEM_VARIABLES = {
  /** `brain service` looks for systemctl/launchctl on it before running them. */
  PATH: 'cli/commands/service.ts',
  /** Where systemd looks for user units, when set (else ~/.config). */
  XDG_CONFIG_HOME: 'cli/commands/service.ts',
  /** Where the CLI's code cache goes, when set (else ~/.cache). */
  XDG_CACHE_HOME: 'cli/code-cache.ts',
  /** Node's own flags: part of the code cache's key, since V8 refuses cached data made under other flags. */
  NODE_OPTIONS: 'cli/code-cache.ts',
  /** glibc's malloc settings: bin/brain sets them unless set; the user service's unit carries the same (docs/performance.md). */
  MALLOC_ARENA_MAX: 'services/deploy/service-files.ts',
  MALLOC_TRIM_THRESHOLD_: 'services/deploy/service-files.ts',
} as const;
