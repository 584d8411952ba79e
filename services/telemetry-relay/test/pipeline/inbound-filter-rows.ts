// The conformance rows of inbound-filters.test.ts: each names the relay-filter test (file::function) or Sentry
// source it comes from, the item as Relay's test builds it, and Relay's decision with a new project's filters.

export interface FilterRow {
  item: 'event' | 'transaction' | 'raw_security';
  payload: Record<string, unknown>;
  /** The FilterStatKey name Relay drops it with; undefined when Relay keeps it. */
  dropped?: string;
}

/** browser_extensions.rs `get_event_with_exception`: ours first, two empty exceptions after it. */
const withException = (exception: Record<string, unknown>) => ({ exception: { values: [exception, {}, {}] } });
/** … `get_event_with_exception_source`: the source, then two anonymous frames (skipped from the tail). */
const source = (path: string) =>
  withException({
    stacktrace: { frames: [{ abs_path: path }, { abs_path: '<anonymous>' }, { abs_path: '<anonymous>' }] },
  });
const value = (text: string) => withException({ value: text });
/** testutils.rs `get_event_with_user_agent`: the header as a [name, value] pair. */
const ua = (agent: string) => ({ request: { headers: [['User-Agent', agent]] } });
const transaction = (name: string, type = 'transaction') => ({
  type,
  transaction: name,
  start_timestamp: 1_795_000_000,
  timestamp: 1_795_000_001,
  contexts: { trace: { trace_id: '4c79f60c11214eb38604f4ae0781bfb2', span_id: 'fa90fdead5f74052' } },
});
/** csp.rs `get_csp_event`, as the browser posts it (the relay's CSP endpoint wraps it as raw_security). */
const csp = (blocked?: string, sourceFile?: string) => ({
  'csp-report': {
    'document-uri': 'https://shop.example.com/',
    ...(blocked === undefined ? {} : { 'blocked-uri': blocked }),
    ...(sourceFile === undefined ? {} : { 'source-file': sourceFile }),
  },
});

type Row = [name: string, row: FilterRow];
const event = (payload: Record<string, unknown>, dropped?: string): FilterRow =>
  dropped ? { item: 'event', payload, dropped } : { item: 'event', payload };
const rows = (test: string, inputs: string[], make: (input: string) => FilterRow): Row[] =>
  inputs.map((input) => [`${test}: ${input.slice(0, 70)}`, make(input)]);

const BE = 'browser_extensions.rs';
const WC = 'web_crawlers.rs';
const LB = 'legacy_browsers.rs';
const TX = 'transaction_name.rs';

export const RELAY_FILTER_ROWS: Row[] = [
  // Relay's test inputs list by list, alike in shape on purpose (`duplicates` pairs them).
  ...rows(
    `${BE}::test_filter_known_browser_extension_source`,
    [
      'https://graph.facebook.com/',
      'https://connect.facebook.net/en_US/sdk.js',
      'https://eatdifferent.com.woopra-ns.com/main.js',
      'https://static.woopra.com/js/woopra.js',
      'chrome-extension://my-extension/or/something',
      'chrome://my-extension/or/something',
      'moz-extension://my-extension/or/something',
      'safari-extension://my-extension/or/something',
      'safari-web-extension://my-extension/or/something',
      '127.0.0.1:4001/isrunning',
      'webappstoolbarba.texthelp.com/',
      'http://metrics.itunes.apple.com.edgesuite.net/itunespreview/itunes/browser:firefo',
      'https://fscr.kaspersky-labs.com/B-9B72-7B7/main.js',
      'webkit-masked-url:',
    ],
    (path) => event(source(path), 'browser-extensions'),
  ),
  ...rows(
    `${BE}::test_filter_known_browser_extension_values`,
    [
      'what does conduitPage even do',
      "null is not an object (evaluating 'elt.parentNode')",
      'some error on top.GLOBALS',
      'biiig problem on originalCreateNotification',
      'canvas.contentDocument',
      'MyApp_RemoveAllHighlights',
      'http://tt.epicplay.com/not/very/good',
      "Can't find variable: ZiteReader, I wonder why?",
      "jigsaw is not defined and I'm not happy about it",
      'ComboSearch is not defined',
      'http://loading.retry.widdit.com/some/obscure/error',
      'atomicFindClose has messed up',
      'bad news, we have a fb_xd_fragment',
      'oh no! we have a case of: bmi_SafeAddOnload, again !',
      'watch out ! EBCallBackMessageReceived',
      'error _gCrWeb',
      'plugin.setSuspendState is not a function',
      'Extension context invalidated',
      'useless error webkit-masked-url: please filter',
      "TypeError: can't access dead object because dead stuff smells bad",
    ],
    (text) => event(value(text), 'browser-extensions'),
  ),
  [`${BE}::test_dont_filter_unkown_browser_extension: source`, event(source('https://some/resonable/source.js'))],
  [`${BE}::test_dont_filter_unkown_browser_extension: value`, event(value('some perfectly reasonable value'))],
  [
    `${BE} + Relay's normalization (filename becomes abs_path): a browser SDK frame`,
    event(
      withException({ stacktrace: { frames: [{ filename: 'chrome-extension://abc/content.js' }] } }),
      'browser-extensions',
    ),
  ],
  ...rows(
    `${WC}::test_filter_banned_user_agents`,
    [
      'Googlebot',
      'BingPreview',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
      'bots;',
      'spider)',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'Twitterbot/1.0',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
      'ELB-HealthChecker/2.0',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot',
      'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
    ],
    (agent) => event(ua(agent), 'web-crawlers'),
  ),
  ...rows(
    `${WC}::test_dont_filter_normal_user_agents`,
    [
      'some user agent',
      'APIs-Google (+https://developers.google.com/webmasters/APIs-Google.html)',
      'Slackbot 1.0(+https://api.slack.com/robots)',
      'SentryUptimeBot/1.0 (+http://docs.sentry.io/product/alerts/uptime-monitoring/)',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    ],
    (agent) => event(ua(agent)),
  ),
  // legacy_browsers.rs's user agents, judged with the subfilters Sentry sets for a new project (ie, edge ≤ 18,
  // safari ≤ 11, firefox ≤ 66, chrome ≤ 62, opera ≤ 50, android ≤ 3, opera_mini ≤ 34).
  ...rows(
    `${LB}::test_filter_default_browsers (new-project subfilters)`,
    [
      'Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 7.1; Trident/5.0)',
      'Mozilla/5.0 (compatible; MSIE 9.0; Windows Phone OS 7.5; Trident/5.0; IEMobile/9.0; NOKIA; Lumia 710)',
      'Mozilla/5.0 (Windows NT 6.3; Trident/7.0; rv:11.0) like Gecko',
      'Mozilla/5.0 (Macintosh; U; Intel Mac OS X 1063; tr-DE) AppleWebKit/533.16 (KHTML like Gecko) Version/5.0 Safari/533.16',
      'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/27.0.1453.12 Safari/537.36 OPR/14.0.1116.4',
      'Mozilla/5.0 (Linux; U; Android 3.2; nl-nl; GT-P6800 Build/HTJ85B) AppleWebKit/534.13 (KHTML, like Gecko) Version/4.0 Safari/534.13',
      'Opera/9.80 (J2ME/MIDP; Opera Mini/7.0.32796/59.323; U; fr) Presto/2.12.423 Version/12.16',
      'Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/42.0.2311.135 Safari/537.36 Edge/12.10136',
      'Mozilla/5.0 (Windows NT 6.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2228.0 Safari/537.36',
    ],
    (agent) => event(ua(agent), 'legacy-browsers'),
  ),
  ...rows(
    `${LB} (new-project subfilters): current browsers`,
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
      'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
    ],
    (agent) => event(ua(agent)),
  ),
  ...rows(
    `${TX}::test_matches (Sentry's HEALTH_CHECK_GLOBS)`,
    ['a/b/healthcheck/c', 'a_HEALTHCHECK_b', 'healthcheck', '/health', 'a/HEALTH', 'GET /readyz', '/api/heartbeat'],
    (name) => ({ item: 'transaction', payload: transaction(name), dropped: 'filtered-transaction' }),
  ),
  ...rows(
    `${TX}::test_does_not_match (Sentry's HEALTH_CHECK_GLOBS)`,
    ['bad', '/bad', 'a/b/c', 'health', 'healthz', '/health/', '/healthz/', '/healthx', '/healthzx'],
    (name) => ({ item: 'transaction', payload: transaction(name) }),
  ),
  [`${TX}::test_only_filters_transactions_not_anything_else`, event(transaction('/health', 'error'))],
  ...[
    [undefined, 'about'],
    ['ms-browser-extension', undefined],
    ['http://foo.superfish.com', undefined],
    [undefined, 'chrome-extension://fdsa'],
    [undefined, 'http://localhost:8000'],
    [undefined, 'http://foo.superfish.com'],
    ['moz-extension://abc/script.js', undefined],
  ].map(
    ([blocked, file]): Row => [
      `csp.rs::test_sentry_csp_filter_compatibility_bad_reports: ${blocked ?? ''} ${file ?? ''}`,
      { item: 'raw_security', payload: csp(blocked, file), dropped: 'invalid-csp' },
    ],
  ),
  ...[
    ['http://example.com', undefined],
    [undefined, 'http://example.com'],
    [undefined, undefined],
  ].map(
    ([blocked, file]): Row => [
      `csp.rs::test_sentry_csp_filter_compatibility_good_reports: ${blocked ?? ''} ${file ?? ''}`,
      { item: 'raw_security', payload: csp(blocked, file) },
    ],
  ),
  // sentry/ingest/inbound_filters.py `_chunk_load_error_filter` (its docstring's example and each pair)
  ...[
    [
      'ChunkLoadError',
      'Loading chunk 3662 failed.\n(error: https://domain.com/_next/static/chunks/29107295-0151559bd23117ba.js)',
    ],
    ['Uncaught Error', 'ChunkLoadError: Loading chunk 12 failed.'],
    ['ChunkLoadError', 'Failed to load chunk /_next/static/chunks/app_page_tsx.js'],
    ['Error', 'Uncaught (in promise): ChunkLoadError: Loading chunk 7 failed.'],
  ].map(
    ([type, text]): Row => [
      `inbound_filters.py::_chunk_load_error_filter: ${type}: ${text?.slice(0, 40)}`,
      event(withException({ type, value: text }), 'chunk-load-error'),
    ],
  ),
  [
    'inbound_filters.py::_chunk_load_error_filter: another type',
    event(withException({ type: 'TypeError', value: 'Loading chunk 3 failed.' })),
  ],
  // … `_hydration_error_filter`: React's minified messages link the decoder with the error's number.
  ...['418', '419', '421', '422', '423', '425'].map(
    (code): Row => [
      `inbound_filters.py::_hydration_error_filter: react.dev #${code}`,
      event(
        value(`Minified React error #${code}; visit https://react.dev/errors/${code} for the full message`),
        'react-hydration-errors',
      ),
    ],
  ),
  [
    'inbound_filters.py::_hydration_error_filter: reactjs.org decoder #425',
    event(
      value(
        'Minified React error #425; visit https://reactjs.org/docs/error-decoder.html?invariant=425 for the full message',
      ),
      'react-hydration-errors',
    ),
  ],
  [
    'inbound_filters.py::_hydration_error_filter: #420 is not one',
    event(value('visit https://react.dev/errors/420 for the full message')),
  ],
  // localhost.rs (opt-in: INBOUND_FILTERS=default,localhost in this table)
  ...['127.0.0.1', '::1'].map(
    (ip): Row => [`localhost.rs::test_filter_local_ip: ${ip}`, event({ user: { ip_address: ip } }, 'localhost')],
  ),
  ...['133.12.12.1', '2001:db8:0:0:0:ff00:42:8329'].map(
    (ip): Row => [`localhost.rs::test_dont_filter_non_local_ip: ${ip}`, event({ user: { ip_address: ip } })],
  ),
  ...['127.0.0.1', 'localhost'].map(
    (host): Row => [
      `localhost.rs::test_filter_local_domains: ${host}`,
      event({ request: { url: `http://${host}:8080/` } }, 'localhost'),
    ],
  ),
  ...['my.dom.com', '123.123.123.44'].map(
    (host): Row => [
      `localhost.rs::test_dont_filter_non_local_domains: ${host}`,
      event({ request: { url: `http://${host}:8080/` } }),
    ],
  ),
  ['localhost.rs::test_dont_filter_missing_ip_or_domains', event({})],
];
