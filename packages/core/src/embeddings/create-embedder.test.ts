import { startGeminiStandIn } from '@docs-chat/stand-ins';
import { createEmbedder } from './create-embedder.js';

describe('createEmbedder', () => {
  it('builds the Gemini embedder with 768 dimensions of gemini-embedding-001 by default, and it answers', async () => {
    const standIn = await startGeminiStandIn();
    try {
      const embedder = createEmbedder({ provider: 'gemini', apiKey: standIn.apiKey, baseUrl: standIn.url });
      expect(embedder).toMatchObject({ provider: 'gemini', model: 'gemini-embedding-001', dimensions: 768, maxBatchSize: 100 });
      const [vector] = await embedder.embed({ texts: ['hello'], task: 'query' });
      expect(vector).toHaveLength(768);
    } finally {
      await standIn.close();
    }
  });

  it('refuses a Gemini embedder without a key and says which variable to set', () => {
    expect(() => createEmbedder({ provider: 'gemini' })).toThrow(
      expect.objectContaining({ code: 'config_invalid', hint: expect.stringContaining('GEMINI_API_KEY') }),
    );
  });

  it('builds the OpenAI-compatible and local embedders with the configured sizes', () => {
    expect(createEmbedder({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' })).toMatchObject({
      provider: 'openai',
      model: 'nomic-embed-text',
      dimensions: 768,
    });
    expect(createEmbedder({ provider: 'local', dimensions: 256 })).toMatchObject({ provider: 'local', dimensions: 256 });
  });

  it('names the valid providers when the configured one is unknown', () => {
    expect(() => createEmbedder({ provider: 'cohere' as 'local' })).toThrow(
      expect.objectContaining({ code: 'config_invalid', hint: expect.stringContaining('neural, local, gemini or openai') }),
    );
  });
});
