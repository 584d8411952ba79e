// Spotlight (the local telemetry viewer) as its UI sees it: the server-sent event stream at /stream.

/** Reads Spotlight's event stream (it replays what it holds) until an envelope containing `text` shows up. */
export async function spotlightEvent(
  viewer: string,
  text: string,
  timeoutMs: number,
): Promise<{ type: string; data: string }> {
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
      if (data.includes(text)) return { type, data };
    }
  }
  throw new Error(`Spotlight's stream ended without ${text}`);
}
