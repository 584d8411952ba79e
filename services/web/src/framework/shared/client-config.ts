// The settings the browser learns from the server's page instead of its build, so one bundle runs anywhere.

/** What the server tells the browser at run time (in <script type="application/json" id="client-config">). */
export interface ClientConfig {
  sentry: {
    dsn: string | undefined;
    release: string | undefined;
    environment: string;
    tracesSampleRate: number;
    /** Same-origin path for envelopes; undefined = straight to the DSN's intake. */
    tunnel: string | undefined;
    /** SENTRY_ORG_ID, when the DSN's host does not name the organization. */
    orgId?: string;
  };
  diagnostics: boolean;
  /** This response's CSP nonce for styles (the feedback widget's shadow-root <style> elements). */
  styleNonce?: string;
  /** The relay's page token (X-Page-Token), when the web issues one; renewed by page-data answers. */
  pageToken?: string;
}

/**
 * The relay's page token travels in this header: sent by the browser SDK on every envelope, and answered by the
 * server on every page-data response with a renewed token (issue 40, decision 051).
 */
export const PAGE_TOKEN_HEADER = 'X-Page-Token';
/** Where a keep-alive beacon, which cannot carry headers, puts the token instead: the tunnel URL's query. */
export const PAGE_TOKEN_QUERY = 'page_token';

export function readClientConfig(doc: Document): ClientConfig {
  const text = doc.getElementById('client-config')?.textContent;
  return JSON.parse(text ?? 'null') as ClientConfig;
}
