import { resolveSiteScope, versionNamedIn } from './site-scope.js';
import type { SiteSummary } from '../ingest/site-layout.js';

const site: SiteSummary = {
  defaultLocale: 'en',
  locales: ['en', 'fr'],
  instances: ['default', 'community'],
  versions: [
    { instance: 'default', name: 'current', label: 'Next', path: 'next', last: false },
    { instance: 'default', name: '2.0', label: '2.0', path: '', last: true },
    { instance: 'default', name: '1.0', label: '1.0', path: '1.0', last: false },
    { instance: 'community', name: 'current', label: 'Next', path: '', last: true },
  ],
};

test("keeps to the reader's version and locale, other instances at their last version, the blog always", () => {
  const { filter, scope } = resolveSiteScope('How do I install it?', { version: '1.0', locale: 'fr' }, site);
  expect(filter).toEqual({ versions: ['blog:', 'default:1.0', 'community:current'], locales: ['fr'] });
  expect(scope).toEqual({ instance: 'default', version: '1.0', versionLabel: '1.0', locale: 'fr', ignored: [] });
});

test('without a scope, searches the last version in the default locale', () => {
  const { filter, scope } = resolveSiteScope('How do I install it?', {}, site);
  expect(filter.versions).toContain('default:2.0');
  expect(scope).toMatchObject({ version: '2.0', locale: 'en' });
});

test("a question naming another version searches that version and reports the reader's", () => {
  const { filter, scope } = resolveSiteScope('How was the frobnicator turned on in version 1.0?', { version: '2.0', locale: 'en' }, site);
  expect(filter.versions).toContain('default:1.0');
  expect(filter.versions).not.toContain('default:2.0');
  expect(scope).toMatchObject({ version: '1.0', readerVersion: '2.0' });
  // Naming the version the reader is on changes nothing.
  expect(resolveSiteScope('What is new in 2.0?', { version: '2.0' }, site).scope.readerVersion).toBeUndefined();
});

test('ignores versions and locales the index does not hold, and says which', () => {
  const { scope } = resolveSiteScope('install', { version: '9.9', locale: 'de' }, site);
  expect(scope).toMatchObject({ version: '2.0', locale: 'en' });
  expect(scope.ignored).toEqual([
    'version "9.9" is not in the index (it holds current, 2.0, 1.0)',
    'locale "de" is not in the index (it holds en, fr)',
  ]);
});

test('recognises the usual ways of naming a version, and not numbers inside other ones', () => {
  const versions = site.versions.filter((version) => version.instance === 'default');
  expect(versionNamedIn('does v1.0 support themes?', versions)?.name).toBe('1.0');
  expect(versionNamedIn('in 1.0, how do themes work', versions)?.name).toBe('1.0');
  expect(versionNamedIn('what is in the next version?', versions)?.name).toBe('current');
  expect(versionNamedIn('set the timeout to 1.05 seconds', versions)).toBeNull();
  expect(versionNamedIn('upgrade from 11.0', versions)).toBeNull();
  expect(versionNamedIn('how do I install it', versions)).toBeNull();
});
