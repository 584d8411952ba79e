import { type Env, readEnv, readServerConfig, type ServerConfig } from '@app/service-kit';

/** Every environment variable the service reads, validated in one place. Documented in the README. */
export interface Config {
  server: ServerConfig;
}

export function loadConfig(env: Env): Config {
  const reader = readEnv(env);
  const config: Config = { server: readServerConfig(reader, 3001) };
  reader.done();
  return config;
}
