// How every service stops on a bad configuration: exit 78 (EX_CONFIG), naming each wrong variable.
import { ConfigError } from './env.ts';

/**
 * Reads configuration with `read`; on a ConfigError prints the problems to stderr (as a JSON log line, like the
 * rest of the service's output) and exits with code 78 (EX_CONFIG), so a bad deployment fails at once and says why.
 */
export function exitOnConfigError<T>(service: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(
      `${JSON.stringify({ level: 60, time: new Date().toISOString(), service, code: error.code, problems: error.problems, msg: error.message })}\n`,
    );
    process.exit(78);
  }
}
