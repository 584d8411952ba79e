// Spotlight (the local telemetry viewer) as its UI sees it: the server-sent event stream at /stream.

/** Reads Spotlight's event stream (it replays what it holds) until an envelope containing `text` (all of it) shows up. */
export async function spotlightEvent(
  viewer: string,
  text: string | readonly string[],
  timeoutMs: number,
): Promise<{ type: string; data: string }> {
  const texts = typeof text === 'string' ? [text] : text;
  const response = await fetch(`${viewer}/stream`, { signal: AbortSignal.timeout(timeoutMs) });
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const type = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      if (texts.every((part) => data.includes(part))) return { type, data };
    }
  }
  throw new Error(`Spotlight's stream ended without ${text}`);
}

/**
 * The web service's own telemetry in Spotlight: a server error (its digest is the event id) and the server spans of
 * a page fetched without a browser (so only the Node SDK knows its trace). Needs DIAGNOSTICS=1 and tracing on.
 */
export async function serverTelemetryInSpotlight(
  web: string,
  viewer: string,
): Promise<{ error: string; spans: string }> {
  const failed = await fetch(`${web}/diagnostics/server-error`);
  // The error screen shows the digest in <code data-testid="digest">.
  const digest = /data-testid="digest">([0-9a-f]{32})</.exec(await failed.text())?.[1];
  if (failed.status !== 500 || !digest) throw new Error(`no server error with a digest (status ${failed.status})`);
  const error = await spotlightEvent(viewer, [digest, '"platform":"node"'], 30_000);
  const page = await (await fetch(`${web}/catalog`)).text();
  const traceId = /<meta name="sentry-trace" content="([0-9a-f]{32})-/.exec(page)?.[1];
  if (!traceId) throw new Error('the page has no sentry-trace meta');
  const spans = await spotlightEvent(viewer, [traceId, 'sentry.javascript.node'], 30_000);
  return { error: error.data, spans: spans.data };
}
