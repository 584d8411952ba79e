// Every part of a request the web service reads (issue 24.6), as data: the table in docs/web.md ("What the service
// reads from a request") lists the same rows, and request-fields.test.ts sends each one at 64 KiB (and, where the
// code splits or repeats it, 1 000 times over). A new field is covered by adding its row here and in the doc.

export interface FieldRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RequestField {
  /** As the doc's table names it. */
  field: string;
  /** The request carrying `value` in the field. */
  request(value: string): FieldRequest;
  /** One unit of what the code splits on or repeats (a list entry, a query key): also sent 1 000 times. */
  repeated?: string;
  /** Environment the field needs to be read at all (TRUSTED_PROXY_HOPS for the forwarding headers, say). */
  env?: Record<string, string>;
}

const FORM = 'application/x-www-form-urlencoded';
const page = (url: string, headers: Record<string, string> = {}): FieldRequest => ({ method: 'GET', url, headers });
const data = (url: string, headers: Record<string, string> = {}) => page(url, { 'x-page-data': '1', ...headers });
const post = (body: string, headers: Record<string, string> = {}): FieldRequest => ({
  method: 'POST',
  url: '/preferences',
  headers: { 'content-type': FORM, ...headers },
  body,
});
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const valid = { displayName: 'Ada', pageSize: '10', theme: 'dark' };
const boundary = 'b0undary';
const multipart = (name: string, value: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n--${boundary}--\r\n`;

export const REQUEST_FIELDS: RequestField[] = [
  { field: 'path', request: (v) => page(`/${v}`), repeated: 'a/' },
  { field: 'path: catalog item slug', request: (v) => page(`/catalog/${v}`) },
  { field: 'path: diagnostics failure', request: (v) => page(`/diagnostics/${v}`), env: { DIAGNOSTICS: '1' } },
  { field: 'query: q', request: (v) => page(`/catalog?q=${v}`), repeated: '%20a' },
  { field: 'query: page', request: (v) => page(`/catalog?page=${v}`) },
  { field: 'query: limit', request: (v) => page(`/catalog?limit=${v}`) },
  { field: 'query: saved', request: (v) => page(`/preferences?saved=${v}`) },
  { field: 'query: any other key', request: (v) => data(`/catalog?${v}=1`), repeated: 'q=a&' },
  { field: 'header: Host', request: (v) => page('/', { host: `${v}.example` }) },
  {
    field: 'header: X-Forwarded-Host',
    request: (v) => page('/', { 'x-forwarded-host': v }),
    repeated: 'a.example,',
    env: { TRUSTED_PROXY_HOPS: '1', PUBLIC_ORIGIN: 'https://shop.test' },
  },
  {
    field: 'header: X-Forwarded-Proto',
    request: (v) => page('/', { 'x-forwarded-proto': v }),
    repeated: 'https,',
    env: { TRUSTED_PROXY_HOPS: '1' },
  },
  {
    field: 'header: X-Forwarded-For',
    request: (v) => page('/', { 'x-forwarded-for': v }),
    repeated: '192.0.2.1,',
    env: { TRUSTED_PROXY_HOPS: '1' },
  },
  { field: 'header: X-Request-Id', request: (v) => page('/', { 'x-request-id': v }), env: { TRUSTED_PROXY_HOPS: '1' } },
  { field: 'header: X-Page-Data', request: (v) => page('/catalog', { 'x-page-data': v }) },
  {
    field: 'header: X-Page-Data-Routes',
    request: (v) => data('/catalog', { 'x-page-data-routes': v }),
    repeated: 'root,',
  },
  { field: 'header: Origin', request: (v) => post(form(valid), { origin: `https://${v}` }) },
  { field: 'header: Sec-Fetch-Site', request: (v) => post(form(valid), { 'sec-fetch-site': v }) },
  {
    field: 'header: Cookie (prefs)',
    request: (v) => page('/catalog', { cookie: `prefs=${v}` }),
    repeated: 'prefs=a; ',
  },
  {
    field: 'header: Accept-Encoding',
    request: (v) => data('/catalog', { 'accept-encoding': v }),
    repeated: 'gzip;q=0.5,',
  },
  { field: 'header: Content-Type', request: (v) => post(form(valid), { 'content-type': `${FORM}; ${v}` }) },
  { field: 'header: sentry-trace', request: (v) => data('/catalog', { 'sentry-trace': v }) },
  { field: 'header: baggage', request: (v) => data('/catalog', { baggage: `sentry-release=${v}` }), repeated: 'k=v,' },
  { field: 'form: displayName', request: (v) => post(form({ ...valid, displayName: v })) },
  { field: 'form: pageSize', request: (v) => post(form({ ...valid, pageSize: v })) },
  { field: 'form: theme', request: (v) => post(form({ ...valid, theme: v })) },
  { field: 'form: any other key', request: (v) => post(`${form(valid)}&${v}=1`), repeated: 'theme=dark&' },
  {
    field: 'form: multipart part',
    request: (v) => post(multipart('displayName', v), { 'content-type': `multipart/form-data; boundary=${boundary}` }),
  },
  {
    field: 'body: JSON',
    request: (v) => post(JSON.stringify({ displayName: v }), { 'content-type': 'application/json' }),
  },
];
