import fs from 'node:fs';
import path from 'node:path';
import { readSharedBuild, type SharedSiteBuild } from './support/shared-build.js';

// Issue 15: the docs-site build (with the plugin's defaults) writes llms.txt, llms-full.txt and a .md twin of every doc.

let build: SharedSiteBuild;
beforeAll(() => {
  build = readSharedBuild();
});

function links(llmsTxt: string): string[] {
  return [...llmsTxt.matchAll(/^- \[[^\]]+\]\(([^)]+)\)/gm)].map((match) => match[1] as string);
}

test('llms.txt links every doc page of the build to a .md twin that exists', () => {
  const llmsTxt = fs.readFileSync(path.join(build.buildDir, 'llms.txt'), 'utf8');
  expect(llmsTxt).toMatch(/^# docs-chat\n\n> /);
  expect(llmsTxt).toMatch(/^## Guides$/m);
  const permalinks = JSON.parse(fs.readFileSync(build.permalinksFile as string, 'utf8')) as { docs: { permalink: string }[] };
  const twins = links(llmsTxt).map((link) => new URL(link).pathname);
  expect(twins.length).toBe(permalinks.docs.length);
  for (const doc of permalinks.docs)
    expect(twins).toContain(doc.permalink.endsWith('/') ? `${doc.permalink}index.html.md` : `${doc.permalink}.md`);
  const missing = twins.filter((twin) => !fs.existsSync(path.join(build.buildDir, twin)));
  expect(missing).toEqual([]);
});

test('llms-full.txt holds every page as markdown without MDX imports or JSX', () => {
  const full = fs.readFileSync(path.join(build.buildDir, 'llms-full.txt'), 'utf8');
  expect(full).toContain('# Connecting AI agents (MCP)');
  // The guide itself names the components in code (`<Tabs>`); only prose outside code must be free of JSX.
  const prose = full.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').replace(/`[^`\n]+`/g, '');
  expect(prose).not.toContain("import Tabs from '@theme/Tabs'");
  expect(prose).not.toMatch(/<\/?(Tabs|TabItem)\b/);
  // The pages that use tabs keep each tab's text: both install commands of the add-to-your-site page.
  expect(full).toContain('npm install @docs-chat/docusaurus-plugin');
});
