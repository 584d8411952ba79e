// Typed readers for configuration from environment variables. Each records a problem instead of throwing, so a bad
// deployment hears about every wrong variable at once; `done()` then throws one ConfigError naming each.

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

export interface EnvReader {
  /** A string; `fallback` when unset or empty. */
  string(name: string, fallback: string): string;
  /** A string that may be absent. */
  optionalString(name: string): string | undefined;
  /** An integer in [min, max]. */
  integer(name: string, fallback: number, range: { min: number; max: number }): number;
  /** `true`/`false`/`1`/`0`/`yes`/`no`. */
  boolean(name: string, fallback: boolean): boolean;
  /** One of `values`. */
  oneOf<const T extends string>(name: string, values: readonly T[], fallback: T): T;
  /** An absolute http(s) URL, or undefined when unset. */
  optionalUrl(name: string): URL | undefined;
  /** A comma-separated list; blanks are dropped. */
  list(name: string, fallback?: readonly string[]): string[];
  /** Any other check: records `problem` against `name` when it is a string. */
  check(name: string, problem: string | undefined): void;
  /** Throws a ConfigError when anything was wrong. */
  done(): void;
}

export function readEnv(env: Env): EnvReader {
  const problems: string[] = [];
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const fail = (name: string, expected: string, value: string): void => {
    problems.push(`${name} must be ${expected} (got ${JSON.stringify(value)})`);
  };

  return {
    string: (name, fallback) => raw(name) ?? fallback,
    optionalString: (name) => raw(name),
    integer(name, fallback, { min, max }) {
      const value = raw(name);
      if (value === undefined) return fallback;
      const n = Number(value);
      if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
        fail(name, `an integer from ${min} to ${max}`, value);
        return fallback;
      }
      return n;
    },
    boolean(name, fallback) {
      const value = raw(name)?.toLowerCase();
      if (value === undefined) return fallback;
      if (['1', 'true', 'yes', 'on'].includes(value)) return true;
      if (['0', 'false', 'no', 'off'].includes(value)) return false;
      fail(name, 'true or false', value);
      return fallback;
    },
    oneOf(name, values, fallback) {
      const value = raw(name);
      if (value === undefined) return fallback;
      const found = values.find((v) => v === value);
      if (found === undefined) fail(name, `one of ${values.join(', ')}`, value);
      return found ?? fallback;
    },
    optionalUrl(name) {
      const value = raw(name);
      if (value === undefined) return undefined;
      const url = URL.parse(value);
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        fail(name, 'an absolute http:// or https:// URL', value);
        return undefined;
      }
      return url;
    },
    list(name, fallback = []) {
      const value = raw(name);
      if (value === undefined) return [...fallback];
      return value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    },
    check(name, problem) {
      if (problem !== undefined) problems.push(`${name} ${problem}`);
    },
    done() {
      if (problems.length > 0) throw new ConfigError(problems);
    },
  };
}

/** The settings every service reads the same way. */
export interface ServerConfig {
  port: number;
  host: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long in-flight requests may take to finish after SIGTERM before the process exits anyway. */
  shutdownGraceMs: number;
  /** How long readiness fails before the listener closes, so load balancers stop sending new requests first. */
  shutdownDrainDelayMs: number;
}

export function readServerConfig(env: EnvReader, defaultPort: number): ServerConfig {
  return {
    port: env.integer('PORT', defaultPort, { min: 0, max: 65535 }),
    host: env.string('HOST', '0.0.0.0'),
    logLevel: env.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    shutdownGraceMs: env.integer('SHUTDOWN_GRACE_MS', 25_000, { min: 0, max: 600_000 }),
    shutdownDrainDelayMs: env.integer('SHUTDOWN_DRAIN_DELAY_MS', 0, { min: 0, max: 600_000 }),
  };
}

/** What a slow or idle client may hold of a server: the same four settings in every service. */
export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/**
 * HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS and MAX_CONNECTIONS around a request timeout the service decides (read
 * from its own variable, or derived from another limit).
 */
export function readConnectionLimits(
  env: EnvReader,
  requestTimeoutMs: number,
  defaults: { maxConnections: number },
): ConnectionLimits {
  return {
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeoutMs: Math.min(env.integer('HEADERS_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 }), requestTimeoutMs),
    requestTimeoutMs,
    keepAliveTimeoutMs: env.integer('KEEP_ALIVE_TIMEOUT_MS', 5_000, { min: 100, max: 600_000 }),
    maxConnections: env.integer('MAX_CONNECTIONS', defaults.maxConnections, { min: 1, max: 1_000_000 }),
  };
}
