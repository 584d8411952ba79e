// Client navigation for the plain <a> links of a long list: one click listener on the list in the browser instead
// of a <Link> per item, whose server render a long list pays per item (decision 035). Before hydration they are links.
import { type RefCallback, useCallback } from 'react';
import { useNavigate } from 'react-router';

type Click = Pick<MouseEvent, 'defaultPrevented' | 'button' | 'metaKey' | 'altKey' | 'ctrlKey' | 'shiftKey'>;
type Anchor = Pick<HTMLAnchorElement, 'target' | 'origin' | 'hasAttribute'>;

/** Whether React Router's <Link> would take this click over: a plain primary click on a same-origin, same-tab link. */
export function isClientNavigation(event: Click, link: Anchor, origin: string): boolean {
  const modified = event.metaKey || event.altKey || event.ctrlKey || event.shiftKey;
  const sameTab = !link.target || link.target === '_self';
  return (
    !event.defaultPrevented &&
    event.button === 0 &&
    !modified &&
    sameTab &&
    !link.hasAttribute('download') &&
    link.origin === origin
  );
}

/** A ref for a list's element: clicks on the links inside it navigate on the client, as <Link>s would. */
export function useListLinks<E extends HTMLElement>(): RefCallback<E> {
  const navigate = useNavigate();
  return useCallback(
    (element: E | null) => {
      if (!element) return;
      const onClick = (event: MouseEvent) => {
        const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
        if (!(link instanceof HTMLAnchorElement) || !element.contains(link)) return;
        if (!isClientNavigation(event, link, window.location.origin)) return;
        event.preventDefault();
        const to = `${link.pathname}${link.search}${link.hash}`;
        const here = `${window.location.pathname}${window.location.search}${window.location.hash}`;
        // As <Link> does: a link to the page shown replaces its history entry.
        void navigate(to, { replace: to === here });
      };
      element.addEventListener('click', onClick);
      return () => element.removeEventListener('click', onClick);
    },
    [navigate],
  );
}
