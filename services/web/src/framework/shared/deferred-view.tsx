// Streaming parts of a page: a fallback until deferred data arrives, an error in place of that part alone.
import { type ReactNode, Suspense } from 'react';
import { Await, useAsyncError } from 'react-router';
import { digestOf } from './page-data-protocol.ts';

/**
 * A part of a page that waits for deferred loader data: `fallback` until its promise settles, then `children`.
 * A failure shows `failedText` (and the server's digest) in place of this part only; the rest of the page stays.
 */
export function Deferred<T>({
  resolve,
  fallback,
  failedText,
  children,
}: {
  resolve: Promise<T>;
  fallback: ReactNode;
  failedText: string;
  children: (value: T) => ReactNode;
}) {
  return (
    <Suspense fallback={fallback}>
      <Await resolve={resolve} errorElement={<DeferredFailed text={failedText} />}>
        {children}
      </Await>
    </Suspense>
  );
}

function DeferredFailed({ text }: { text: string }) {
  const digest = digestOf(useAsyncError());
  return (
    <p className="deferred-failed" role="alert">
      {text}
      {digest === undefined ? null : (
        <>
          {' '}
          Digest: <code data-testid="deferred-digest">{digest}</code>
        </>
      )}
    </p>
  );
}
