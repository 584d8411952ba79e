// Errors and breadcrumbs from before the Sentry SDK: an inline head script, run before any module, keeps uncaught
// errors, rejections and the breadcrumbs the SDK would record in bounded queues, for the SDK
// (client/telemetry/sentry-sdk.ts) or client/telemetry/early-send.ts if the page hides first.

/** At most this many early errors are kept: a page that keeps throwing must not grow the queue without limit. */
const EARLY_ERRORS_MAX = 30;
/** The last this many breadcrumbs are kept, as the SDK keeps them (maxBreadcrumbs, framework/shared/timing.ts). */
const EARLY_BREADCRUMBS_MAX = 100;

/** A breadcrumb in the SDK's shape; `timestamp` in seconds since the epoch. */
export interface EarlyBreadcrumb {
  timestamp: number;
  category: string;
  level?: string;
  type?: string;
  message?: string;
  data?: Record<string, unknown>;
}

export interface EarlyErrors {
  events: Array<ErrorEvent | PromiseRejectionEvent>;
  breadcrumbs: EarlyBreadcrumb[];
  /** Stops recording (errors and breadcrumbs alike) and puts back the browser's functions where ours are still in
   * place; the queues stay as they are. */
  stop(): void;
}

declare global {
  interface Window {
    __earlyErrors?: EarlyErrors;
  }
}

// The inline script's body (no `</script` inside, nothing to escape). stop() also puts back the browser's own fetch,
// pushState and console methods where ours are still in place: the SDK, set up next, takes a `fetch` that is not
// native for a wrapper and builds a hidden iframe (twice) to find a clean one, a long task on a phone (decision 049).
// One somebody else put over ours stays, ours then only passes through.
export const EARLY_ERRORS_SCRIPT =
  `(function(w){var q=[],b=[],s=1,h=w.history,C=w.console,F=w.fetch,P=h.pushState,O={},K={},W,H,
a=function(x){s&&(b.length<${EARLY_BREADCRUMBS_MAX}||b.shift(),x.timestamp=Date.now()/1e3,b.push(x))},
f=function(e){s&&q.length<${EARLY_ERRORS_MAX}&&q.push(e)},n=function(t){a({category:'navigation',data:{from:location.pathname,to:String(t)}})};
['debug','info','warn','error','log'].forEach(function(l){var o=O[l]=C[l];C[l]=K[l]=function(){a({category:'console',level:l=='warn'?'warning':l,message:[].join.call(arguments,' ')});return o.apply(C,arguments)}});
w.fetch=W=function(i,o){var d={method:(o&&o.method||'GET').toUpperCase(),url:String(i&&i.url||i)},r=function(x){a({category:'fetch',type:'http',data:d,level:x?'info':'error'})};
return F.apply(w,arguments).then(function(x){d.status_code=x.status;r(x);return x},function(e){r();throw e})};
h.pushState=H=function(d,u,t){t&&n(t);return P.apply(h,arguments)};
w.addEventListener('click',function(e){var t=e.target;t&&t.tagName&&a({category:'ui.click',message:t.tagName.toLowerCase()+(t.id?'#'+t.id:'')+(t.className&&t.className.split?'.'+t.className.trim().split(/\\s+/).join('.'):'')})},!0);
w.addEventListener('error',f);w.addEventListener('unhandledrejection',f);
w.__earlyErrors={events:q,breadcrumbs:b,stop:function(){s=0;w.fetch===W&&(w.fetch=F);h.pushState===H&&(h.pushState=P);
for(var l in K)C[l]===K[l]&&(C[l]=O[l])}}})(window)`.replace(/\n/g, '');

/** Stops the inline recorders and hands over the breadcrumbs (empty when the script was not on the page). */
export function stopEarlyCapture(win: Window): EarlyBreadcrumb[] {
  const early = win.__earlyErrors;
  if (!early) return [];
  early.stop();
  return early.breadcrumbs.splice(0);
}

/** Takes the queued early errors (each is taken once: by the SDK's replay, or by a send without it). */
export function takeEarlyErrors(win: Window): EarlyErrors['events'] {
  return win.__earlyErrors?.events.splice(0) ?? [];
}
