// The tests' shared tools, in one import: the capture server, Sentry's API fake, service processes, layer checks.
export {
  type CaptureBehaviour,
  type CapturedEnvelope,
  type CaptureServer,
  type CaptureServerOptions,
  describe as describeEnvelope,
  startCaptureServer,
} from './capture-server.ts';
export { closeAfterTest, closeOpened, removeTempDirs, tempDir } from './cleanup.ts';
export { BASE_IMAGE, buildImage, docker, type ImageBuild } from './docker.ts';
export { type CapturedItem, type ParsedEnvelope, readEnvelope } from './envelope-reader.ts';
export {
  attachmentItem,
  EVENT_ID,
  envelope,
  errorEnvelope,
  errorEvent,
  eventItem,
  type ItemSpec,
  newEventId,
} from './envelopes.ts';
export { timeBlock, watchEventLoop } from './event-loop.ts';
export { eventually } from './eventually.ts';
export { getAsWritten, type PlainAnswer } from './get-as-written.ts';
// Every export: the requests, the JSON templates and the paths a hostile key is put at.
export * from './hostile-keys.ts';
export { importStatementCount, importsOf, type Layer, layerViolations, sourceFiles } from './layers.ts';
export { type PostAnswer, post, postWhole } from './post.ts';
export { freePort, runToExit, type ServiceProcess, type SpawnOptions, spawnService } from './process.ts';
export { nearMisses, type SeededRandom, seededRandom } from './seeded-random.ts';
export {
  type AssembledBundle,
  type BundleFile,
  type SentryApiFake,
  startSentryApiFake,
} from './sentry-api-fake.ts';
export { type SlowClientOptions, type SlowClientReport, slowClients } from './slow-clients.ts';
export { median } from './stats.ts';
export { timerLateness } from './timer-lateness.ts';
export { chunksOf, type UploadExchange, uploadThenRead } from './upload-then-read.ts';
export { parseWrkOutput, type WrkOutput, wrkDurationMs } from './wrk-output.ts';
