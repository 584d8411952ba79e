// The server entry of `react-router reveal`, with Sentry's handleRequest, handleError and server instrumentation as
// @sentry/react-router's README and docs set them up.
import { createReadableStreamFromReadable } from '@react-router/node';
import * as Sentry from '@sentry/react-router';
import { renderToPipeableStream } from 'react-dom/server';
import { ServerRouter } from 'react-router';

export const streamTimeout = 5_000;

export default Sentry.createSentryHandleRequest({
  ServerRouter,
  renderToPipeableStream,
  createReadableStreamFromReadable,
});

export const handleError = (error, { request }) => {
  // React Router may abort some interrupted requests, report those
  if (!request.signal.aborted) {
    Sentry.captureException(error);
    console.error(error);
  }
};

export const instrumentations = [Sentry.createSentryServerInstrumentation()];
