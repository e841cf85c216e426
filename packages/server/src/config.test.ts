import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_SERVER_SETTINGS, loadConfig, loadDotEnvFile, loadServerSettings } from './config.js';

function problemsOf(env: Record<string, string>): string {
  try {
    loadServerSettings(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('the server configuration', () => {
  it('works with no variables at all: port 8000, extractive answers, the local docs site allowed', () => {
    const settings = loadServerSettings({});
    expect(settings.port).toBe(8000);
    expect(settings.llm.provider).toBe('extractive');
    expect(settings.corsOrigins).toEqual(['http://localhost:3000']);
    expect(settings.rateLimit).toEqual({ max: DEFAULT_SERVER_SETTINGS.rateLimitMax, windowMs: 60_000 });
    expect(settings.adminToken).toBeUndefined();
    expect(settings.databaseUrl).toBeUndefined();
    expect(settings.logLevel).toBe('info');
    expect(settings.retrievalCache).toEqual({ maxEntries: 500, ttlMs: 300_000 });
    expect(settings.conversationRetentionDays).toBeUndefined();
    expect(settings.metricsToken).toBeUndefined();
  });

  it('reads the conversation retention in days and the metrics token', () => {
    const settings = loadServerSettings({ CONVERSATION_RETENTION_DAYS: '90', METRICS_TOKEN: 'metrics-token-0123456789' });
    expect(settings.conversationRetentionDays).toBe(90);
    expect(settings.metricsToken).toBe('metrics-token-0123456789');
  });

  it('bounds the time to receive a request and limits feedback and conversation reads on their own', () => {
    const defaults = loadServerSettings({});
    expect(defaults.requestTimeoutMs).toBe(30_000);
    expect(defaults.headersTimeoutMs).toBe(10_000);
    expect(defaults.feedbackRateLimit).toEqual({ max: 20, windowMs: 60_000 });
    expect(defaults.conversationRateLimit).toEqual({ max: 40, windowMs: 60_000 });
    const settings = loadServerSettings({
      REQUEST_TIMEOUT_MS: '5000',
      HEADERS_TIMEOUT_MS: '2000',
      FEEDBACK_RATE_LIMIT_MAX: '4',
      CONVERSATION_RATE_LIMIT_MAX: '9',
      RATE_LIMIT_WINDOW_MS: '10000',
    });
    expect(settings).toMatchObject({
      requestTimeoutMs: 5000,
      headersTimeoutMs: 2000,
      feedbackRateLimit: { max: 4, windowMs: 10_000 },
      conversationRateLimit: { max: 9, windowMs: 10_000 },
    });
    expect(problemsOf({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '5000' })).toMatch(
      /HEADERS_TIMEOUT_MS \(5000\) is longer than REQUEST_TIMEOUT_MS \(1000\)/,
    );
    expect(problemsOf({ REQUEST_TIMEOUT_MS: '0' })).toMatch(/REQUEST_TIMEOUT_MS="0" is not valid/);
  });

  it('reads the soft memory limit, 300 MB unless set, 0 to turn it off, and refuses values no server could live under', () => {
    // PGlite runs in a process of its own, so the server's limit is the same with and without DATABASE_URL.
    expect(loadServerSettings({}).memorySoftLimitMb).toBe(300);
    expect(loadServerSettings({ DATABASE_URL: 'postgres://docs:chat@db:5432/docs' }).memorySoftLimitMb).toBe(300);
    expect(loadServerSettings({ MEMORY_SOFT_LIMIT_MB: '300' }).memorySoftLimitMb).toBe(300);
    expect(loadServerSettings({ MEMORY_SOFT_LIMIT_MB: '0' }).memorySoftLimitMb).toBe(0);
    expect(loadServerSettings({ MEMORY_SOFT_LIMIT_MB: '450' }).memorySoftLimitMb).toBe(450);
    expect(problemsOf({ MEMORY_SOFT_LIMIT_MB: '1' })).toMatch(
      /MEMORY_SOFT_LIMIT_MB=1 is below what a server process needs.*at least 128, or to 0/,
    );
    expect(problemsOf({ MEMORY_SOFT_LIMIT_MB: '300MB' })).toMatch(
      /MEMORY_SOFT_LIMIT_MB="300MB" is not valid: set it to a whole number of MB/,
    );
    expect(problemsOf({ MEMORY_SOFT_LIMIT_MB: '-5' })).toMatch(/MEMORY_SOFT_LIMIT_MB="-5" is not valid/);
  });

  it('chooses Gemini when GEMINI_API_KEY is set and takes the model and base URL from the environment', () => {
    const settings = loadServerSettings({
      GEMINI_API_KEY: 'k',
      LLM_MODEL: 'gemini-flash-latest',
      GEMINI_BASE_URL: 'http://127.0.0.1:9999',
    });
    expect(settings.llm).toMatchObject({ provider: 'gemini', apiKey: 'k', model: 'gemini-flash-latest', baseUrl: 'http://127.0.0.1:9999' });
  });

  it('accepts an OpenAI-compatible server without a key when LLM_BASE_URL points at it', () => {
    const settings = loadServerSettings({ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'http://localhost:11434/v1', LLM_MODEL: 'llama3.2' });
    expect(settings.llm).toMatchObject({ provider: 'openai', baseUrl: 'http://localhost:11434/v1', apiKey: undefined });
  });

  it('reads origins, limits, the admin token and the proxy setting', () => {
    const settings = loadServerSettings({
      CORS_ORIGINS: 'https://docs.example.com/, http://localhost:3000',
      RATE_LIMIT_MAX: '5',
      RATE_LIMIT_WINDOW_MS: '10000',
      BODY_LIMIT_BYTES: '2048',
      ADMIN_TOKEN: '0123456789abcdef0123',
      TRUST_PROXY: '2',
      LOG_LEVEL: 'WARN',
      DATABASE_URL: 'postgresql://u:p@db:5432/docs',
    });
    expect(settings.corsOrigins).toEqual(['https://docs.example.com', 'http://localhost:3000']);
    expect(settings.rateLimit).toEqual({ max: 5, windowMs: 10_000 });
    expect(settings.bodyLimitBytes).toBe(2048);
    expect(settings.adminToken).toBe('0123456789abcdef0123');
    expect(settings.trustProxy).toBe(2);
    expect(settings.logLevel).toBe('warn');
    expect(settings.databaseUrl).toBe('postgresql://u:p@db:5432/docs');
    expect(loadServerSettings({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT="eighty" is not valid: set it to a whole number .* between 0 and 65535/],
    [{ PORT: '70000' }, /PORT="70000"/],
    [{ LLM_PROVIDER: 'claude' }, /LLM_PROVIDER="claude" is not known: use one of gemini, openai, extractive/],
    [{ LLM_PROVIDER: 'gemini' }, /LLM_PROVIDER=gemini needs GEMINI_API_KEY/],
    [{ LLM_PROVIDER: 'openai' }, /LLM_PROVIDER=openai needs OPENAI_API_KEY, or LLM_BASE_URL/],
    [{ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'localhost:11434' }, /LLM_BASE_URL="localhost:11434" is not an http\(s\) URL/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/],
    [{ CORS_ORIGINS: 'https://docs.example.com/path' }, /CORS_ORIGINS holds "https:\/\/docs.example.com\/path", which is not an origin/],
    [{ ADMIN_TOKEN: 'short' }, /ADMIN_TOKEN is too short.*openssl rand -hex 32/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL="loud" is not a level/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY="maybe" is not valid/],
    [{ HEALTH_CHECK_TIMEOUT_MS: '900' }, /HEALTH_CHECK_TIMEOUT_MS="900"/],
    [{ RETRIEVAL_CACHE_SIZE: '-1' }, /RETRIEVAL_CACHE_SIZE="-1" is not valid: .*0 turns the cache off/],
    [
      { CONVERSATION_RETENTION_DAYS: '0' },
      /CONVERSATION_RETENTION_DAYS="0" is not valid: .*between 1 and 36500, or unset it to keep conversations/,
    ],
    [{ CONVERSATION_RETENTION_DAYS: '30d' }, /CONVERSATION_RETENTION_DAYS="30d" is not valid/],
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN is too short.*or unset it to leave \/metrics open/],
  ])('refuses %j with a message naming the variable and the fix', (env, expected) => {
    expect(problemsOf(env)).toMatch(expected);
  });

  it('lists every problem at once', () => {
    const message = problemsOf({ PORT: 'x', LOG_LEVEL: 'loud', RATE_LIMIT_MAX: '0' });
    expect(message).toMatch(/PORT=/);
    expect(message).toMatch(/LOG_LEVEL=/);
    expect(message).toMatch(/RATE_LIMIT_MAX=/);
  });

  it('reports server and retrieval problems together', () => {
    expect(() => loadConfig({ PORT: 'x', VECTOR_STORE: 'pinecone' })).toThrow(/PORT="x"[\s\S]*VECTOR_STORE="pinecone"/);
    expect(() => loadConfig({ VECTOR_STORE: 'pinecone' })).toThrow(/VECTOR_STORE="pinecone"/);
    const config = loadConfig({ DATA_DIR: '/tmp/docs-chat-config-test' });
    expect(config.core.dataDir).toBe('/tmp/docs-chat-config-test');
    expect(config.server.port).toBe(8000);
  });
});

describe('the .env file', () => {
  it('is loaded when present, without overriding variables already set', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'docs-chat-env-'));
    const file = path.join(directory, '.env');
    try {
      const env: NodeJS.ProcessEnv = { PORT: '9000' };
      expect(loadDotEnvFile(file, env)).toBe(false);
      await writeFile(file, 'LLM_MODEL=gemini-flash-latest\nPORT=8080\n# a comment\nCORS_ORIGINS="https://docs.example.com"\n');
      expect(loadDotEnvFile(file, env)).toBe(true);
      expect(env).toEqual({ PORT: '9000', LLM_MODEL: 'gemini-flash-latest', CORS_ORIGINS: 'https://docs.example.com' });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
