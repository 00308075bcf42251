/**
 * No page refers to a file that does not exist: every relative link and image in README.md,
 * CHANGELOG.md and the docs site's pages (docs/, not the API reference TypeDoc generates) names a
 * file or folder of this repository, and every #anchor a heading of its target — as VitePress
 * makes heading ids (the site) and as GitHub does (the repository), so a link works in both.
 * Markdown is parsed by VitePress's own renderer, so code blocks and spans are not links.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMarkdownRenderer } from 'vitepress';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const docs = join(root, 'docs');
/** Generated at `npm run docs:build` (git-ignored); VitePress's build fails on a dead link into it. */
const generated = join(docs, 'api');

type Renderer = Awaited<ReturnType<typeof createMarkdownRenderer>>;
let markdown: Renderer;

beforeAll(async () => {
  markdown = await createMarkdownRenderer(docs, {}, '/');
}, 60_000);

/** The Markdown files whose links are checked, from the repository's root. */
function checkedFiles(): string[] {
  const pages = readdirSync(docs, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md') && !/^(api|\.vitepress|node_modules)([/\\]|$)/.test(path))
    .map((path) => join('docs', path));
  return ['README.md', 'CHANGELOG.md', ...pages].map((path) => path.split(sep).join('/'));
}

/** A heading's id as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function githubSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

interface Parsed {
  readonly links: { href: string; line: number }[];
  /** Anchors both VitePress and GitHub give a heading of this file. */
  readonly anchors: Set<string>;
}

const parsed = new Map<string, Parsed>();

function parse(path: string, text = readFileSync(path, 'utf8')): Parsed {
  const known = parsed.get(path);
  if (known) return known;
  const tokens = markdown.parse(text, { path, relativePath: relative(docs, path), cleanUrls: true });
  const links: { href: string; line: number }[] = [];
  const anchors = new Set<string>();
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') {
      const id = token.attrGet('id');
      // The heading's text as GitHub reads it: its source without code span and emphasis marks.
      const title = (tokens[index + 1]?.content ?? '').replace(/[`*]/g, '');
      if (id && id === githubSlug(title)) anchors.add(id);
    }
    for (const child of token.children ?? []) {
      if (child.attrGet('class') === 'header-anchor') continue; // the permalink VitePress adds to headings
      const href =
        child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null;
      if (href !== null) links.push({ href, line: (token.map?.[0] ?? 0) + 1 });
    }
  });
  const result = { links, anchors };
  parsed.set(path, result);
  return result;
}

/** What is wrong with each relative link of a file: its line, the link and why. */
function brokenLinks(path: string, text?: string): string[] {
  const problems: string[] = [];
  for (const { href, line } of parse(path, text).links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // https:, mailto:
    const [target = '', anchor] = href.split('#', 2) as [string, string | undefined];
    const where = `${relative(root, path)}:${line}: ${href}`;
    if (target.startsWith('/')) {
      problems.push(`${where}: an absolute path (works on the site or on GitHub, not both): use a relative one`);
      continue;
    }
    const file = target === '' ? path : resolve(dirname(path), decodeURIComponent(target));
    if (file === generated || file.startsWith(`${generated}${sep}`)) continue;
    if (!existsSync(file)) {
      problems.push(`${where}: ${relative(root, file)} does not exist`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(file).isDirectory() || !file.endsWith('.md')) {
      problems.push(`${where}: #${anchor} in a file that is not Markdown`);
    } else if (!parse(file).anchors.has(anchor)) {
      problems.push(
        `${where}: ${relative(root, file)} has no heading #${anchor} (as both VitePress and GitHub make ids)`,
      );
    }
  }
  return problems;
}

describe('links in the README, the CHANGELOG and the docs pages', () => {
  it('are checked in every page', () => {
    const files = checkedFiles();
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/index.md', 'docs/deploy.md', 'docs/security.md']),
    );
    expect(files.some((file) => file.startsWith('docs/api/'))).toBe(false);
  });

  it('name files and headings that exist', () => {
    const problems = checkedFiles().flatMap((file) => brokenLinks(join(root, file)));
    expect(problems, `broken links:\n${problems.join('\n')}\n`).toEqual([]);
  });

  it('are reported when they do not (the check can fail)', () => {
    const page = join(docs, 'guide', 'a-page-of-the-test.md');
    const text = [
      '# A page',
      '',
      'See [the journal](../concepts/journal.md#runs), [tools](tools.md#no-such-heading),',
      '[a file](../../packages/nowhere.ts), ![a picture](../missing.png) and `[code](nowhere.md)`.',
      '',
      '```md',
      '[in a code block](nowhere.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(page, text)).toEqual([
      'docs/guide/a-page-of-the-test.md:3: tools.md#no-such-heading: docs/guide/tools.md has no heading #no-such-heading (as both VitePress and GitHub make ids)',
      'docs/guide/a-page-of-the-test.md:3: ../../packages/nowhere.ts: packages/nowhere.ts does not exist',
      'docs/guide/a-page-of-the-test.md:3: ../missing.png: docs/missing.png does not exist',
    ]);
  });
});
