// POSTing a body to a service under test and reading its answer, as a client would.
import { request } from 'node:http';

export interface PostAnswer {
  status: number;
  /** The body as JSON, or `{ text }` when it is not JSON. */
  json: Record<string, unknown>;
  headers: Headers;
}

export async function post(
  url: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<PostAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    // A Buffer is a Uint8Array; this project's types doubt its ArrayBuffer could be shared.
    body: body as string | Uint8Array<ArrayBuffer>,
    headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: response.status, json, headers: response.headers };
}

/**
 * POSTs `body` with node:http in one write and resolves with the status: what the client does stays out of an
 * event-loop measurement in this thread (fetch passes a body through a web stream, a block of its own).
 */
export function postWhole(url: string, body: Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-length': String(body.length), ...headers } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}
