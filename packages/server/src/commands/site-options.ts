/**
 * The options of a whole-site ingest: the JSON of `--site-config` (or DOCS_SITE_CONFIG) with the command's
 * flags on top. Shared by `docs-chat ingest --site` and the server's `POST /admin/ingest` when DOCS_SITE_DIR is set.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocsChatError, type SiteInstanceOptions, type SiteOptions } from '@docs-chat/core';

export interface SiteFlags {
  site: string;
  'site-config'?: string;
  'default-locale'?: string;
  locales?: string;
  'last-version'?: string;
  'only-versions'?: string;
  'version-path'?: string[];
  instance?: string[];
  'no-blog'?: boolean;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Site options from --site-config (JSON) and the flags, flags winning. */
export async function siteOptionsFrom(flags: SiteFlags): Promise<SiteOptions> {
  let fromFile: Partial<SiteOptions> = {};
  if (flags['site-config']) {
    try {
      fromFile = JSON.parse(await fs.readFile(flags['site-config'], 'utf8')) as Partial<SiteOptions>;
    } catch (error) {
      throw new DocsChatError(
        'config_invalid',
        `The site config ${flags['site-config']} cannot be read as JSON (${(error as Error).message}).`,
        {
          hint: 'Fix the file or leave out --site-config; see the "Versions and locales" guide for its fields.',
        },
      );
    }
  }
  const instances = new Map<string, SiteInstanceOptions>((fromFile.instances ?? []).map((instance) => [instance.id, instance]));
  const main: SiteInstanceOptions = { ...(instances.get('default') ?? {}), id: 'default' };
  if (flags['last-version']) main.lastVersion = flags['last-version'];
  if (flags['only-versions']) main.onlyIncludeVersions = list(flags['only-versions']);
  for (const entry of flags['version-path'] ?? []) {
    const [name, versionPath] = entry.split('=');
    if (!name || versionPath === undefined) {
      throw new DocsChatError('config_invalid', `--version-path ${entry} is not NAME=PATH.`, {
        hint: 'Write it as --version-path 1.0=legacy (an empty PATH serves the version at the route base).',
      });
    }
    main.versions = { ...main.versions, [name]: { ...main.versions?.[name], path: versionPath } };
  }
  instances.set('default', main);
  for (const entry of flags.instance ?? []) {
    const match = /^([\w-]+)=([^:]+)(?::(.*))?$/.exec(entry);
    if (!match) {
      throw new DocsChatError('config_invalid', `--instance ${entry} is not ID=FOLDER[:ROUTE_BASE].`, {
        hint: 'Write it as --instance community=community:community (the plugin id, its path and its routeBasePath).',
      });
    }
    const [, id, folder, route] = match as unknown as [string, string, string, string | undefined];
    instances.set(id, { ...instances.get(id), id, path: folder, ...(route !== undefined ? { routeBasePath: route } : {}) });
  }
  const options: SiteOptions = { ...fromFile, siteDir: path.resolve(flags.site), instances: [...instances.values()] };
  if (flags['default-locale']) options.defaultLocale = flags['default-locale'];
  if (flags.locales) options.locales = list(flags.locales);
  if (flags['no-blog']) options.blog = false;
  return options;
}

/** The site of DOCS_SITE_DIR / DOCS_SITE_CONFIG as flags, with any site flags given on the command line on top. */
export function configuredSiteFlags(site: { dir: string; configFile?: string }, flags: Partial<SiteFlags> = {}): SiteFlags {
  const configFile = flags['site-config'] ?? site.configFile;
  return { ...flags, site: site.dir, ...(configFile !== undefined ? { 'site-config': configFile } : {}) };
}
