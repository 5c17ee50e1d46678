import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { OfflineEmbedder } from '../../services/embeddings/offline.js';
import { OllamaEmbedder } from '../../services/embeddings/ollama.js';
import { createEmbedder } from '../../services/embeddings/select.js';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';

/** Stands in for the offline embedder so selection tests do not load TensorFlow. */
const stubOffline = (): Embedder => ({
  model: 'use-lite-512',
  dimensions: 512,
  embedDocuments: async (t) => t.map(() => []),
  embedQuery: async () => [],
  health: async () => ({ ok: true }),
});

describe('createEmbedder', () => {
  let fake: FakeOllama;
  beforeAll(async () => {
    fake = await startFakeOllama();
  });
  afterAll(() => fake.close());

  it('auto picks Ollama when its health check passes', async () => {
    const { embedder, reason } = await createEmbedder({ provider: 'auto', ollamaUrl: fake.url, ollamaModel: 'nomic-embed-text' }, { offline: stubOffline });
    expect(embedder).toBeInstanceOf(OllamaEmbedder);
    expect(embedder.dimensions).toBe(768);
    expect(reason).toContain('nomic-embed-text');
    expect(reason).toContain(fake.url);
  });

  it('auto falls back to offline when the model is not pulled, and says how to fix it', async () => {
    const { embedder, reason } = await createEmbedder({ provider: 'auto', ollamaUrl: fake.url, ollamaModel: 'mxbai-embed-large' }, { offline: stubOffline });
    expect(embedder.model).toBe('use-lite-512');
    expect(reason).toContain('ollama pull mxbai-embed-large');
  });

  it('auto falls back to offline when Ollama is down', async () => {
    await fake.down();
    try {
      const { embedder, reason } = await createEmbedder({ provider: 'auto', ollamaUrl: fake.url, ollamaModel: 'nomic-embed-text' }, { offline: stubOffline });
      expect(embedder.model).toBe('use-lite-512');
      expect(reason).toMatch(/offline.*unreachable/);
      // The offline model serves vector search: the reason must not say search is keyword-only.
      expect(reason).not.toContain('keyword-only');
    } finally {
      await fake.up();
    }
  });

  it('an explicit ollama provider is kept even when down, with the reason saying so', async () => {
    await fake.down();
    try {
      const { embedder, reason } = await createEmbedder({ provider: 'ollama', ollamaUrl: fake.url, ollamaModel: 'nomic-embed-text' });
      expect(embedder).toBeInstanceOf(OllamaEmbedder);
      expect(reason).toContain('not usable now');
    } finally {
      await fake.up();
    }
  });

  it('offline uses the bundled model without contacting Ollama', async () => {
    fake.requests.length = 0;
    const { embedder, reason } = await createEmbedder({ provider: 'offline', ollamaUrl: fake.url });
    expect(embedder).toBeInstanceOf(OfflineEmbedder);
    expect(reason).toContain('use-lite-512');
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects a bad config without echoing secrets', async () => {
    await expect(createEmbedder({ provider: 'ollama', ollamaUrl: 'ftp://u:s3cret@host' })).rejects.toThrow(/ollamaUrl/);
    await expect(createEmbedder({ provider: 'ollama', ollamaUrl: 'ftp://u:s3cret@host' })).rejects.not.toThrow(/s3cret/);
    // @ts-expect-error: not a provider
    await expect(createEmbedder({ provider: 'openai' })).rejects.toThrow(/provider/);
  });
});
