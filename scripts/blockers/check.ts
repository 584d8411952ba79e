// Which filter-list rule would block each of a deployment's URLs: uBlock Origin's engine with the lists Debian's
// package ships (what a visitor with uBlock Origin has), then with rules that exist for single sites today applied to
// all (what one edit of a list would do). Used by `npm run check:blockers` and `npm run deploy:check`.
import { loadBlocker, SITE_RULES_APPLIED_TO_ALL, type Verdict } from '@app/test-kit/filter-lists';
import type { DeploymentUrl } from './deployment-urls.ts';

export interface Finding extends DeploymentUrl {
  /** The shipped lists' rule that blocks it, by request kind; empty: it passes. */
  blocked: Array<Verdict & { type: string }>;
  /** Passes the shipped lists, but a single site's rule applied to all would block it. */
  atRisk: Array<Verdict & { type: string }>;
}

/**
 * Each URL as the page at `origin` requests it, checked against the shipped lists and the site rules applied to all in
 * one engine; only a URL the site rules match is checked again against the shipped lists alone (a second engine
 * build, seconds), since the engine names one rule per match.
 */
export async function checkUrls(urls: DeploymentUrl[], origin: string): Promise<Finding[]> {
  const verdicts = async (extra: (typeof SITE_RULES_APPLIED_TO_ALL)[], of: DeploymentUrl[]) => {
    const blocker = await loadBlocker(extra);
    return of.map((u) =>
      u.types.flatMap((type) => {
        const verdict = blocker.match(u.url, type, origin);
        return verdict ? [{ ...verdict, type }] : [];
      }),
    );
  };
  const both = await verdicts([SITE_RULES_APPLIED_TO_ALL], urls);
  const generic = (i: number) => both[i]?.some((v) => v.list === SITE_RULES_APPLIED_TO_ALL.name) ?? false;
  const recheck = urls.filter((_, i) => generic(i));
  const shippedOnly = recheck.length > 0 ? await verdicts([], recheck) : [];
  return urls.map((u, i) => {
    const shipped = generic(i) ? (shippedOnly[recheck.indexOf(u)] ?? []) : (both[i] ?? []);
    return { ...u, blocked: shipped, atRisk: shipped.length > 0 ? [] : (both[i] ?? []) };
  });
}

const verdicts = (list: Finding['blocked']) => list.map((v) => `${v.rule} (${v.list}, ${v.type})`).join('; ');

/** One line per URL: passes, blocked by (rule, list, request kind), or at risk from a single site's rule. */
export function describeFindings(findings: Finding[]): string {
  return findings
    .map((f) => {
      const verdict = f.blocked.length
        ? `BLOCKED by ${verdicts(f.blocked)}`
        : f.atRisk.length
          ? `passes; at risk: ${verdicts(f.atRisk)}`
          : 'passes';
      return `  ${f.what.padEnd(11)} ${f.url}  ${verdict}\n`;
    })
    .join('');
}
