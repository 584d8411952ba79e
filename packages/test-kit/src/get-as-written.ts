// A GET whose path goes out as written: fetch normalises a path (a bad %-escape, dot segments) before sending it.
import { type Agent, type IncomingHttpHeaders, request } from 'node:http';

export interface PlainAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** GETs `url` over node:http (through `agent` when given) and reads the whole answer as UTF-8. */
export function getAsWritten(url: string, agent?: Agent): Promise<PlainAnswer> {
  return new Promise((resolve, reject) => {
    request(url, agent ? { agent } : {}, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}
