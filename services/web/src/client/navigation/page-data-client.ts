// Asks the server for page data (the same URL with the page-data headers) and checks that the answer is ours.
// The answer is one JSON line, or — when loaders deferred parts — the page data's line then one line per part.

import { PAGE_TOKEN_HEADER } from '../../framework/shared/client-config.ts';
import type { DeferredSettlement } from '../../framework/shared/deferred-data.ts';
import {
  PAGE_DATA_HEADER,
  PAGE_DATA_ROUTES_HEADER,
  PAGE_DATA_VERSION,
  type PageData,
} from '../../framework/shared/page-data-protocol.ts';
import { setPageToken } from '../telemetry/page-token.ts';
import { attachDeferred } from './deferred-receiver.ts';

/** Page data could not be had: the caller falls back to a full page load. */
export class PageDataUnavailable extends Error {
  override name = 'PageDataUnavailable';
}

export async function fetchPageData(
  url: string,
  routeIds: readonly string[],
  init: { method?: string; body?: BodyInit; contentType?: string | null; signal?: AbortSignal } = {},
): Promise<PageData> {
  const headers: Record<string, string> = {
    [PAGE_DATA_HEADER]: '1',
    [PAGE_DATA_ROUTES_HEADER]: routeIds.join(','),
    Accept: 'application/json',
  };
  if (init.contentType) headers['Content-Type'] = init.contentType;
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      credentials: 'same-origin',
      headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new PageDataUnavailable(`network error: ${String(error)}`);
  }
  // A proxy's login page, a gateway's 502 or a CDN error are not our JSON, whatever their status.
  if (response.headers.get(PAGE_DATA_HEADER) !== PAGE_DATA_VERSION) {
    throw new PageDataUnavailable(`not page data (status ${response.status}, ${response.headers.get('content-type')})`);
  }
  setPageToken(response.headers.get(PAGE_TOKEN_HEADER));
  const lines = readLines(response);
  let first: PageData;
  try {
    const line = await lines.next();
    if (line.done) throw new SyntaxError('empty body');
    first = JSON.parse(line.value) as PageData;
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new PageDataUnavailable('malformed page data');
  }
  if (first.kind === 'data' && first.deferred) void receiveDeferred(first, first.deferred, lines);
  return first;
}

/** The page data's deferred parts, settled as their lines arrive; any left when the body ends fail. */
async function receiveDeferred(
  first: PageData & { kind: 'data' },
  keys: Record<string, string[]>,
  lines: AsyncGenerator<string>,
) {
  const receiver = attachDeferred(first.loaderData, keys);
  try {
    for await (const line of lines) receiver.settle(JSON.parse(line) as DeferredSettlement);
    receiver.failPending(new Error('page data ended before its deferred parts arrived'));
  } catch (error) {
    receiver.failPending(error);
  }
}

async function* readLines(response: Response): AsyncGenerator<string> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let end = buffered.indexOf('\n');
    while (end >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line.trim() !== '') yield line;
      end = buffered.indexOf('\n');
    }
  }
  if (buffered.trim() !== '') yield buffered;
}
