import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';

const docs = resolve(fileURLToPath(new URL('..', import.meta.url)));
const repository = resolve(docs, '..');

/**
 * Where links to files of the repository that are not pages of the site (a source file,
 * `examples/`, BENCHMARKS.md, docs/deploy/Caddyfile) go: to `WARDRIK_DOCS_REPOSITORY` (e.g.
 * `https://github.com/OWNER/wardrik`) when it is set, else to a copy of the file in the built site
 * under `/repository/` (a folder gets a page listing its files).
 */
const repositoryUrl = process.env['WARDRIK_DOCS_REPOSITORY']?.replace(/\/+$/, '');
const copied = new Set<string>();

/** The API reference's sidebar, written by `npm run docs:api` (TypeDoc), if it was run. */
function apiSidebar(): { text: string; link?: string; items?: unknown[]; collapsed?: boolean }[] {
  const file = join(docs, 'api', 'typedoc-sidebar.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
}

/** The files git tracks under a folder of the repository (what a fresh clone has). */
function trackedFiles(folder: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--', folder], { cwd: repository, encoding: 'utf8' });
  return listed.split('\0').filter((path) => path !== '');
}

/** A link to a repository file or folder that is not a page, as the built site should have it. */
function repositoryHref(path: string, isFolder: boolean, hash: string): string {
  if (repositoryUrl) return `${repositoryUrl}/${isFolder ? 'tree' : 'blob'}/HEAD/${path}${hash}`;
  copied.add(isFolder ? `${path}/` : path);
  return `/repository/${path}${isFolder ? '/index.html' : ''}`;
}

export default defineConfig({
  title: 'Wardrik',
  description: 'A TypeScript runtime for AI agents that take real actions: durable runs, parks, labels, budgets.',
  cleanUrls: true,
  lastUpdated: false,
  themeConfig: {
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Security', link: '/security' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: [
      { text: 'Start', items: [{ text: 'Getting started', link: '/guide/getting-started' }] },
      {
        text: 'Concepts',
        items: [
          { text: 'The journal', link: '/concepts/journal' },
          { text: 'Parks and answers', link: '/concepts/parks' },
          { text: 'Labels and gates', link: '/concepts/labels-and-gates' },
          { text: 'Budgets and measures', link: '/concepts/budgets' },
        ],
      },
      {
        text: 'Guides',
        items: [
          { text: 'Tools and schemas', link: '/guide/tools' },
          { text: 'Models', link: '/guide/models' },
          { text: 'Agents: callbacks, output, guardrails', link: '/guide/agents' },
          { text: 'Conversations', link: '/guide/conversations' },
          { text: 'Agents working together', link: '/guide/agents-together' },
          { text: 'MCP', link: '/guide/mcp' },
          { text: 'Workers', link: '/guide/workers' },
          { text: 'Many nodes on PostgreSQL', link: '/guide/many-nodes' },
          { text: 'Server and CLI', link: '/guide/cli' },
          { text: 'HTTP API', link: '/guide/http-api' },
          { text: 'The console', link: '/guide/console' },
          { text: 'Telemetry', link: '/guide/telemetry' },
          { text: 'Operations', link: '/guide/operations' },
          { text: 'Deploying', link: '/deploy' },
        ],
      },
      {
        text: 'Migrating',
        items: [
          { text: 'From OpenAI Agents JS', link: '/migrating/openai-agents' },
          { text: 'From ADK for TypeScript', link: '/migrating/adk' },
        ],
      },
      { text: 'The security model', link: '/security' },
      { text: 'Development', link: '/development' },
      { text: 'API reference', link: '/api/', collapsed: true, items: apiSidebar() },
    ],
  },
  markdown: {
    config(md) {
      // Links to files of the repository that are not pages of the site (see repositoryHref).
      md.core.ruler.push('wardrik-repository-links', (state) => {
        const page = (state.env as { path?: string }).path;
        if (!page) return;
        for (const block of state.tokens) {
          for (const token of block.children ?? []) {
            if (token.type !== 'link_open') continue;
            const href = token.attrGet('href');
            if (!href || /^([a-z][a-z0-9+.-]*:|#|\/)/i.test(href)) continue;
            const [target = '', hash = ''] = href.split(/(?=#)/);
            const path = resolve(dirname(page), decodeURIComponent(target));
            const inDocs = path.startsWith(`${docs}/`) && !path.startsWith(join(docs, 'deploy'));
            if (inDocs && (path.endsWith('.md') || !existsSync(path) || statSync(path).isDirectory())) continue;
            if (!existsSync(path)) continue; // VitePress and docs-links.test.ts report it
            token.attrSet('href', repositoryHref(relative(repository, path), statSync(path).isDirectory(), hash));
            token.attrSet('target', '_self'); // VitePress leaves the link as it is
          }
        }
      });
    },
  },
  buildEnd({ outDir }) {
    for (const entry of copied) {
      const files = entry.endsWith('/') ? trackedFiles(entry) : [entry];
      for (const file of files) {
        mkdirSync(dirname(join(outDir, 'repository', file)), { recursive: true });
        copyFileSync(join(repository, file), join(outDir, 'repository', file));
      }
      if (entry.endsWith('/')) {
        const items = files.map((file) => `<li><a href="/repository/${file}">${file.slice(entry.length)}</a></li>`);
        const page = `<!doctype html><meta charset="utf-8"><title>${entry}</title><h1>${entry}</h1><ul>${items.join('')}</ul>\n`;
        writeFileSync(join(outDir, 'repository', entry, 'index.html'), page);
      }
    }
  },
});
