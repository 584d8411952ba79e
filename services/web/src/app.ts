import { createServiceApp, type ServiceApp } from '@app/service-kit';
import type { Config } from './config.ts';

/** Builds the service without listening, so tests can use inject() or a loopback port. */
export async function buildApp(config: Config): Promise<ServiceApp> {
  return createServiceApp('web', config.server);
}
