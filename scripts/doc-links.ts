// Relative links in the repository's markdown: each must name an existing file, and each #anchor a heading of the
// target as GitHub renders it. Pure functions over file contents, so the test can feed it a broken file too.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** A link that does not resolve: where it is and what is wrong. */
export interface BrokenLink {
  file: string;
  line: number;
  link: string;
  problem: string;
}

/** Markdown without fenced code blocks and inline code spans (their brackets and `#` lines are not markdown). */
function withoutCode(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
  });
}

/** GitHub's heading anchor (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replaceAll(' ', '-');
}

/** Every anchor a markdown file offers: its headings' slugs, repeated ones numbered as GitHub does. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.+?)\s*#*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The link targets of a markdown file with their line numbers (inline links and reference definitions). */
export function linksOf(markdown: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  withoutCode(markdown).forEach((text, index) => {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line: index + 1, target: m[1] ?? '' });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(\s|$)/.exec(text);
    if (definition?.[1]) links.push({ line: index + 1, target: definition[1] });
  });
  return links;
}

/** Checks the relative links of `files` (paths relative to `root`) against the tree under `root`. */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (path: string) => {
    let anchors = anchorCache.get(path);
    if (!anchors) {
      anchors = anchorsOf(readFileSync(join(root, path), 'utf8'));
      anchorCache.set(path, anchors);
    }
    return anchors;
  };
  const broken: BrokenLink[] = [];
  for (const file of files) {
    for (const { line, target } of linksOf(readFileSync(join(root, file), 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …: not ours to check offline
      const [path = '', anchor] = target.split('#', 2);
      const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      const report = (problem: string) => broken.push({ file, line, link: target, problem });
      if (resolved.startsWith('..')) report('points outside the repository');
      else if (!existsSync(join(root, resolved))) report(`no file ${resolved}`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsIn(resolved).has(anchor)) {
        report(`no heading for #${anchor} in ${resolved}`);
      }
    }
  }
  return broken;
}

/** The markdown the project documents itself in: READMEs of the root and every workspace, docs/, the changelog. */
export function documentationFiles(root: string): string[] {
  const files = ['README.md', 'CHANGELOG.md'];
  for (const parent of ['services', 'packages']) {
    for (const name of readdirSync(join(root, parent))) {
      if (existsSync(join(root, parent, name, 'README.md'))) files.push(`${parent}/${name}/README.md`);
    }
  }
  for (const entry of readdirSync(join(root, 'docs'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.md')) {
      files.push(relative(root, join(entry.parentPath, entry.name)));
    }
  }
  return files.sort();
}
