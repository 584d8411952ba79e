// Asks the server for page data (the same URL with the page-data headers) and checks that the answer is ours.
import {
  PAGE_DATA_HEADER,
  PAGE_DATA_ROUTES_HEADER,
  PAGE_DATA_VERSION,
  type PageData,
} from '../framework/page-data-protocol.ts';

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
  try {
    return (await response.json()) as PageData;
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new PageDataUnavailable('malformed page data');
  }
}
