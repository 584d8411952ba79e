export { runToExit, type ServiceProcess, type SpawnOptions, spawnService } from './process.ts';
