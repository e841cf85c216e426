import { DocsChatError } from './core-api.js';
import { ConversationStoreUnavailableError } from './conversations/conversation-store.js';
import { LlmError } from './llm/chat-model.js';
import { runServeCommand, startupFailure } from './serve-command.js';
import { captureStderr, createTestIndex, eventually, freePort } from './testing/test-server.js';

describe('docs-chat serve', () => {
  it('stops with exit code 1 and names the variable to fix when the configuration is wrong', async () => {
    const { code, stderr } = await captureStderr(() => runServeCommand([], { PORT: 'abc', LLM_PROVIDER: 'gemini' }));
    expect(code).toBe(1);
    expect(stderr).toMatch(/PORT="abc"/);
    expect(stderr).toMatch(/GEMINI_API_KEY/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('stops with the ingest command to run when there is no index yet', async () => {
    const { code, stderr } = await captureStderr(() =>
      runServeCommand(['--port', '0', '--host', '127.0.0.1'], {
        DATA_DIR: '/tmp/docs-chat-serve-test-no-index',
        EMBEDDING_PROVIDER: 'local',
      }),
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/docs-chat ingest/);
  });

  it('refuses unknown flags with the usage text', async () => {
    const { code, stderr } = await captureStderr(() => runServeCommand(['--verbose'], {}));
    expect(code).toBe(2);
    expect(stderr).toMatch(/Usage: docs-chat serve/);
  });

  it('turns each kind of start-up failure into a message with what to do', () => {
    expect(startupFailure(new DocsChatError('config_invalid', 'Bad.', { hint: 'Fix it.' }))).toBe('Bad.\n  → Fix it.');
    expect(startupFailure(new LlmError('llm_auth', 'Key rejected.', { hint: 'Check GEMINI_API_KEY.' }))).toBe(
      'Key rejected.\n  → Check GEMINI_API_KEY.',
    );
    expect(startupFailure(new LlmError('llm_model_not_found', 'No such model.'))).toBe('No such model.');
    expect(startupFailure(new ConversationStoreUnavailableError('Down.'))).toMatch(/^Down\.\n {2}→ Check that the database/);
    expect(startupFailure(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }))).toMatch(/set PORT to a free port/);
    expect(startupFailure('odd')).toBe('odd');
  });
});

describe('docs-chat serve once started', () => {
  it('answers until SIGTERM, then stops gracefully with exit code 0', async () => {
    const index = await createTestIndex();
    const port = await freePort();
    try {
      const running = runServeCommand(['--port', String(port), '--host', '127.0.0.1'], { ...index.env, LOG_LEVEL: 'silent' });
      await eventually(async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/health`)).status === 200;
        } catch {
          return false;
        }
      }, 60_000);
      process.emit('SIGTERM', 'SIGTERM');
      await expect(running).resolves.toBe(0);
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    } finally {
      await index.remove();
    }
  }, 90_000);
});
