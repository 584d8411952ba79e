// uBlock Origin's own static network filtering engine (@gorhill/ubo-core) fed the filter lists Debian's uBlock Origin
// package ships (webext-ublock-origin-chromium, installed by scripts/machine/setup.sh): the lists the extension
// enables by default, as its assets.json names them, never downloaded. One engine per process (the package's limit).
import { readFileSync } from 'node:fs';

/** What this module uses of @gorhill/ubo-core, which ships no types (imported by name at run time, so tsc skips it). */
interface UboCore {
  pslInit(raw: string): unknown;
  StaticNetFilteringEngine: {
    create(options: { noPSL: boolean }): Promise<Engine>;
    release(): Promise<void>;
  };
}
interface Engine {
  useLists(lists: FilterList[]): Promise<void>;
  /** 0 no filter matched, 1 blocked, 2 let through by an exception. */
  matchRequest(details: { originURL: string; url: string; type: string }): 0 | 1 | 2;
  /** The filter of the last match as the engine normalized it (`$xmlhttprequest` is `$xhr`). */
  toLogData(): { raw: string } | undefined;
}
const UBO_CORE: string = '@gorhill/ubo-core';

/** Where Debian's package puts the extension's assets (UBO_ASSETS_DIR for another copy of them). */
export const UBO_ASSETS_DIR = process.env.UBO_ASSETS_DIR ?? '/usr/share/chromium/extensions/ublock-origin/assets/';

export interface FilterList {
  name: string;
  raw: string;
}

/** The request kinds the extension sees (Chrome's webRequest types), which `$xhr`, `$ping`, `$script`… name. */
export type RequestType =
  | 'main_frame'
  | 'sub_frame'
  | 'stylesheet'
  | 'script'
  | 'image'
  | 'font'
  | 'media'
  | 'xmlhttprequest'
  | 'ping'
  | 'csp_report'
  | 'websocket'
  | 'other';

export interface Verdict {
  /** The rule as written in its list (the first line of the list with the engine's matching pattern). */
  rule: string;
  list: string;
}

export interface Blocker {
  /** The lists in force, by name. */
  readonly lists: string[];
  /** The rule that blocks a request of `type` to `url` made by a page at `originUrl`; undefined: it passes. */
  match(url: string, type: RequestType, originUrl: string): Verdict | undefined;
}

/**
 * Rules that exist for single sites today, applied to all: each generalizes site-specific rules of the shipped lists
 * (EasyPrivacy, uBO Privacy), the one step a list maintainer takes to stop every deployment of a product at once.
 */
export const SITE_RULES_APPLIED_TO_ALL: FilterList = {
  name: 'site-rules-applied-to-all',
  raw: [
    '! ||julius.ai/monitoring, ||nius.de/monitoring (EasyPrivacy), ||suno.com/monitoring (uBO Privacy)',
    '/monitoring',
    '! ||tumblr.com/pop/js/modern/sentry-, ||redditstatic.com/shreddit/sentry- (EasyPrivacy)',
    '/sentry-',
    '! ||claude.ai/sentry^ (EasyPrivacy)',
    '/sentry^',
    '! ||hostinger.com/api-proxy/api/sentry/ (EasyPrivacy)',
    '/api/sentry/',
  ].join('\n'),
};

interface Asset {
  content?: string;
  off?: boolean;
  contentURL?: string | string[];
}

/** The lists uBlock Origin enables on a fresh install, read from the package's own copies. */
export function shippedLists(dir = UBO_ASSETS_DIR): FilterList[] {
  let assets: Record<string, Asset>;
  try {
    assets = JSON.parse(readFileSync(`${dir}assets.json`, 'utf8')) as Record<string, Asset>;
  } catch (error) {
    throw new Error(
      `no uBlock Origin filter lists in ${dir} (${(error as Error).message}): install Debian's webext-ublock-origin-chromium (scripts/machine/setup.sh)`,
    );
  }
  return Object.entries(assets).flatMap(([name, asset]) => {
    const local = [asset.contentURL ?? []].flat().find((url) => url.startsWith('assets/'));
    if (asset.content !== 'filters' || asset.off || !local) return [];
    return [{ name, raw: readFileSync(`${dir}${local.slice('assets/'.length)}`, 'utf8') }];
  });
}

/** The line of `lists` the engine's (normalized) filter came from: same pattern, options as the list wrote them. */
function ruleAsWritten(lists: FilterList[], normalized: string): Verdict {
  const pattern = normalized.split('$')[0];
  for (const list of lists) {
    const line = list.raw.split('\n').find((l) => l === normalized || l.trimEnd().split('$')[0] === pattern);
    if (line !== undefined) return { rule: line.trimEnd(), list: list.name };
  }
  return { rule: normalized, list: '?' };
}

let current: { key: string; blocker: Promise<Blocker> } | undefined;

/**
 * The engine with the shipped lists and `extra` ones: built once per process for the same lists (a few seconds); asked
 * for other lists, the one engine the package allows is built again.
 */
export function loadBlocker(extra: FilterList[] = [], dir = UBO_ASSETS_DIR): Promise<Blocker> {
  const key = JSON.stringify([dir, extra]);
  if (current?.key === key) return current.blocker;
  const previous = current?.blocker;
  const blocker = (async () => {
    const { pslInit, StaticNetFilteringEngine } = (await import(UBO_CORE)) as UboCore;
    if (previous)
      await previous.then(
        () => StaticNetFilteringEngine.release(),
        () => undefined,
      );
    const lists = [...shippedLists(dir), ...extra];
    pslInit(readFileSync(`${dir}thirdparties/publicsuffix.org/list/effective_tld_names.dat`, 'utf8'));
    const engine = await StaticNetFilteringEngine.create({ noPSL: true });
    await engine.useLists(lists);
    return {
      lists: lists.map((list) => list.name),
      match(url: string, type: RequestType, originUrl: string) {
        if (engine.matchRequest({ url, type, originURL: originUrl }) !== 1) return undefined;
        return ruleAsWritten(lists, engine.toLogData()?.raw ?? '?');
      },
    };
  })();
  current = { key, blocker };
  return blocker;
}
