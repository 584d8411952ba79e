import { useState } from 'react';
import { useLoaderData } from 'react-router';
import type { DiagnosticsData } from './diagnostics.server.ts';

export function Component() {
  const { failure } = useLoaderData() as DiagnosticsData;
  const [explode, setExplode] = useState(false);
  if (failure === 'render-error' || explode) {
    throw new Error(`diagnostics: render failure (secret-internal-detail, ${failure})`);
  }
  return (
    <>
      <h1>Diagnostics: {failure}</h1>
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

export const title = (data: DiagnosticsData) => `Diagnostics: ${data.failure} · Example Store`;
