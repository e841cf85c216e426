import path from 'node:path';
import { loadCoreConfig } from './config.js';
import { DocsChatError } from './errors.js';

function configError(env: Record<string, string>): DocsChatError {
  try {
    loadCoreConfig(env, '/srv/app');
  } catch (error) {
    return error as DocsChatError;
  }
  throw new Error('expected a configuration error');
}

describe('core configuration', () => {
  it('works offline with no variables set: the neural embedder in an embedded store under .data', () => {
    const config = loadCoreConfig({}, '/srv/app');
    expect(config.embedder.provider).toBe('neural');
    expect(config.store).toEqual({ backend: 'embedded', collection: 'docusaurus-book' });
    expect(config.dataDir).toBe(path.resolve('/srv/app/.data'));
    expect(config.docsDir).toBe(path.resolve('/srv/app/docs-site/docs'));
    expect(config.routeBasePath).toBe('/docs');
  });

  it('reads a whole site to ingest from DOCS_SITE_DIR, and refuses a site config without the site', () => {
    expect(loadCoreConfig({}, '/srv/app').site).toBeUndefined();
    expect(loadCoreConfig({ DOCS_SITE_DIR: 'website', DOCS_SITE_CONFIG: 'site.json' }, '/srv/app').site).toEqual({
      dir: path.resolve('/srv/app/website'),
      configFile: path.resolve('/srv/app/site.json'),
    });
    const orphan = configError({ DOCS_SITE_CONFIG: 'site.json' });
    expect(orphan.message).toBe('DOCS_SITE_CONFIG is set but DOCS_SITE_DIR is not.');
    expect(orphan.hint).toContain('DOCS_SITE_DIR');
  });

  it('switches to Gemini embeddings when a Gemini key is set', () => {
    const config = loadCoreConfig({ GEMINI_API_KEY: 'k' }, '/srv/app');
    expect(config.embedder).toMatchObject({ provider: 'gemini', apiKey: 'k' });
  });

  it('uses Qdrant when QDRANT_URL is set', () => {
    const config = loadCoreConfig({ QDRANT_URL: 'http://localhost:6333', QDRANT_COLLECTION: 'book' }, '/srv/app');
    expect(config.store).toEqual({ backend: 'qdrant', collection: 'book', url: 'http://localhost:6333' });
  });

  it('reads out-of-scope thresholds that override the calibrated ones, and refuses values out of range', () => {
    expect(loadCoreConfig({}, '/srv/app').scope).toEqual({});
    expect(loadCoreConfig({ SCOPE_MIN_VOCABULARY: '0.3', SCOPE_MIN_EVIDENCE: '1.1' }, '/srv/app').scope).toEqual({
      minVocabulary: 0.3,
      minEvidence: 1.1,
    });
    const tooHigh = configError({ SCOPE_MIN_VOCABULARY: '40' });
    expect(tooHigh.message).toBe('SCOPE_MIN_VOCABULARY="40" is not a number from 0 to 1.');
    expect(tooHigh.hint).toContain('0.4');
    expect(configError({ SCOPE_MIN_EVIDENCE: 'high' }).message).toContain('from 0 to 2');
  });

  it('names the variable and the fix when a value is wrong', () => {
    const badProvider = configError({ EMBEDDING_PROVIDER: 'cohere' });
    expect(badProvider.code).toBe('config_invalid');
    expect(badProvider.message).toContain('EMBEDDING_PROVIDER');
    expect(badProvider.hint).toContain('local, gemini, openai');

    expect(configError({ VECTOR_STORE: 'qdrant' }).message).toContain('QDRANT_URL');
    expect(configError({ QDRANT_URL: 'localhost:6333' }).hint).toContain('http://localhost:6333');
    expect(configError({ EMBEDDING_DIMENSIONS: '-3' }).message).toContain('EMBEDDING_DIMENSIONS');
    expect(configError({ EMBEDDING_PROVIDER: 'gemini' }).hint).toContain('GEMINI_API_KEY');
  });

  it("reads the inference threads' nice value, from 0 to 19 only", () => {
    expect(loadCoreConfig({}, '/srv/app').embedder.threadNiceness).toBeUndefined();
    expect(loadCoreConfig({ EMBEDDING_THREAD_NICENESS: '0' }, '/srv/app').embedder.threadNiceness).toBe(0);
    expect(loadCoreConfig({ EMBEDDING_THREAD_NICENESS: '19' }, '/srv/app').embedder.threadNiceness).toBe(19);
    for (const value of ['-5', '20', '2.5', 'low']) {
      const error = configError({ EMBEDDING_THREAD_NICENESS: value });
      expect(error.message).toBe(`EMBEDDING_THREAD_NICENESS="${value}" is not a whole number from 0 to 19.`);
      expect(error.hint).toContain('leave it unset for 10');
    }
  });
});

describe('RETRIEVAL_PROFILE overrides', () => {
  const fixtures = path.join(path.dirname(new URL(import.meta.url).pathname), 'profile', '__fixtures__');

  it('stops start-up naming a profile value that is out of range, with its range', () => {
    const error = configError({ RETRIEVAL_PROFILE: path.join(fixtures, 'dense-weight-out-of-range.json') });
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('ranking.denseWeight=7 is out of range');
    expect(error.message).toContain('from 0 to 3');
    expect(error.message).toContain('RETRIEVAL_PROFILE=');
  });

  it('refuses to override a value that shapes the index (it would need a re-index), listing those it can set', () => {
    const error = configError({ RETRIEVAL_PROFILE: path.join(fixtures, 'index-time-value.json') });
    expect(error.message).toContain('"chunking.maxTokens" is not a profile value an admin can set');
    expect(error.hint).toContain('ranking.denseWeight');
  });

  it('names the variable when the file is not JSON', () => {
    expect(configError({ RETRIEVAL_PROFILE: '/nonexistent/profile.json' }).message).toContain(
      'RETRIEVAL_PROFILE=/nonexistent/profile.json cannot be read',
    );
  });

  it('keeps valid overrides for the retrieval profile', () => {
    expect(loadCoreConfig({ RETRIEVAL_PROFILE: path.join(fixtures, 'valid-overrides.json') }, '/srv/app').profileOverrides).toEqual({
      'ranking.pageWeight': 0.2,
      'scope.coverageSections': 4,
    });
  });

  it('refuses EMBEDDING_DIMENSIONS that the neural model cannot give', () => {
    expect(configError({ EMBEDDING_PROVIDER: 'neural', EMBEDDING_DIMENSIONS: '256' }).message).toContain('gives 512 dimensions');
  });
});
