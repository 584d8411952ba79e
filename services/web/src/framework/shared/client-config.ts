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
}

export function readClientConfig(doc: Document): ClientConfig {
  const text = doc.getElementById('client-config')?.textContent;
  return JSON.parse(text ?? 'null') as ClientConfig;
}
