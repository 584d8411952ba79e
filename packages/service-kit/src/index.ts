// What every service shares, in one import: configuration, who the client is, logging, health, front door, lifecycle.
export { type AdminPort, type AdminPortOptions, serveAdminPort } from './admin-port.ts';
export { type BuildInfo, registerBuildInfo } from './build-info.ts';
export {
  type ArrivedRequest,
  clientAddress,
  readTrustedProxyHops,
  requestClientAddress,
} from './client-address.ts';
export { clientNetwork, DEFAULT_PREFIXES, type NetworkPrefixes, networkOf, UNPARSABLE } from './client-network.ts';
export { containerCpuLimit, containerMemoryLimit } from './container.ts';
export {
  ConfigError,
  type ConnectionLimits,
  type Env,
  type EnvReader,
  readConnectionLimits,
  readEnv,
  readServerConfig,
  type ServerConfig,
} from './env.ts';
export { exitOnConfigError } from './exit-on-config-error.ts';
export type { RefusedBodyLinger } from './framework-errors.ts';
export { createFrontDoor, type FrontDoor, type FrontDoorOptions, type Lane } from './front-door.ts';
export { createReadiness, healthRoutes, type Readiness, readinessReport } from './health.ts';
export { type RunningService, runService } from './lifecycle.ts';
export {
  closeUnfinishedOnSend,
  type LingerEnd,
  type LingerLimits,
  lingerAfterAnswer,
  lingerLimits,
  lingerWhileUnread,
} from './linger.ts';
export { type LoggingOptions, loggingOptions, requestIdFrom } from './logging.ts';
export { quoteBounded } from './quote.ts';
export { createServiceApp, type ServiceApp, type ServiceAppOptions } from './service-app.ts';
