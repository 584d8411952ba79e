// relay-filter/src/web_crawlers.rs: the event's own User-Agent (request.headers, as the SDK recorded it), not the
// tunnel request's: a crawler's page load reports through a browser-like client too.
import { userAgentFilter } from './user-agent-filter.ts';

const WEB_CRAWLERS = new RegExp(
  [
    'Mediapartners-Google',
    'AdsBot-Google',
    'Googlebot',
    'FeedFetcher-Google',
    'Storebot-Google',
    'BingBot',
    'BingPreview',
    'Baiduspider',
    'Slurp',
    'Sogou',
    'facebook',
    'meta-',
    'ia_archiver',
    'bots?([/\\s\\);]|$)',
    'spider([/\\s\\);]|$)',
    'Slack',
    'Calypso\\sAppCrawler',
    'pingdom',
    'lyticsbot',
    'AWS\\sSecurity\\sScanner',
    'HubSpot\\sCrawler',
    'Bytespider',
    'Better\\sUptime',
    'Cloudflare-Healthchecks',
    'GTmetrix',
    'BrightEdgeOnCrawl',
    'ELB-HealthChecker',
    'naver.me/spd',
    'ClaudeBot',
    'CCBot',
    'OAI-SearchBot',
    'GPTBot',
    'PerplexityBot',
    'Applebot',
    'DuckDuckBot',
  ].join('|'),
  'i',
);

const ALLOWED_WEB_CRAWLERS = /Slackbot\s1\.\d+|SentryUptimeBot|ChatGPT-User/i;

export const isWebCrawler = (ua: string) => WEB_CRAWLERS.test(ua) && !ALLOWED_WEB_CRAWLERS.test(ua);

export const webCrawlers = userAgentFilter('web-crawlers', isWebCrawler);
