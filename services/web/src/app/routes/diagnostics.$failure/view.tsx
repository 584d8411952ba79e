// The diagnostics page: renders or throws the failure its URL names, so tests can watch errors reach Sentry.
import { useState } from 'react';
import { Link, useLoaderData } from 'react-router';
import { Deferred } from '../../../framework/shared/deferred-view.tsx';
import { FAILURES } from './deliberate-failures.ts';
import type { DiagnosticsData } from './loader.server.ts';

export function Component() {
  const { failure, deferred } = useLoaderData() as DiagnosticsData;
  const [explode, setExplode] = useState(false);
  // Rendered on the server, thrown by the browser as it hydrates (the release-health suites close the page at once).
  if (failure === 'hydration-error' && typeof document !== 'undefined') {
    throw new Error('diagnostics: hydration failure (browser only)');
  }
  if (failure === 'render-error' || explode) {
    throw new Error(`diagnostics: render failure (secret-internal-detail, ${failure})`);
  }
  return (
    <>
      <h1>Diagnostics: {failure}</h1>
      <nav aria-label="Diagnostics">
        <ul>
          {FAILURES.map((f) => (
            <li key={f}>
              <Link to={`/diagnostics/${f}`}>{f}</Link>
            </li>
          ))}
          <li>
            <Link to="/catalog/old-amber-lamp">a moved page</Link>
          </li>
          <li>
            <Link to="/catalog/no-such-item">a missing item</Link>
          </li>
        </ul>
      </nav>
      {deferred ? (
        <section aria-label="Deferred part">
          <Deferred
            resolve={deferred}
            fallback={<p>Loading the deferred part…</p>}
            failedText="The deferred part failed."
          >
            {(text) => <p>{text}</p>}
          </Deferred>
        </section>
      ) : null}
      {failure === 'client-error' ? (
        <button type="button" onClick={() => setExplode(true)}>
          Throw in the browser
        </button>
      ) : null}
      {failure === 'ignored-error' ? (
        <button
          type="button"
          onClick={() =>
            setTimeout(() => {
              throw new Error('ResizeObserver loop completed with undelivered notifications.');
            })
          }
        >
          Throw an ignored error
        </button>
      ) : null}
    </>
  );
}
