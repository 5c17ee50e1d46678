import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmbedderModelError, EmbedderUnavailableError } from '../../services/embeddings/embedder.js';
import { OllamaEmbedder, sameOllamaModel, taskPrefixesFor } from '../../services/embeddings/ollama.js';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.js';

const norm = (v: number[]) => Math.hypot(...v);
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('OllamaEmbedder against a fake Ollama server', () => {
  let fake: FakeOllama;
  beforeAll(async () => {
    fake = await startFakeOllama({ models: { 'nomic-embed-text:latest': 768, 'all-minilm:latest': 384 } });
  });
  afterAll(() => fake.close());
  afterEach(async () => {
    fake.setMode({ wrongModel: null, wrongDimension: null, failStatus: null, delayMs: 0 });
    await fake.up();
    fake.requests.length = 0;
  });

  it('batches documents into groups of batchSize, in order', async () => {
    const e = new OllamaEmbedder({ url: fake.url, batchSize: 32 });
    const texts = Array.from({ length: 70 }, (_, i) => `card number ${i}`);
    const vectors = await e.embedDocuments(texts);

    const embeds = fake.requests.filter((r) => r.path === '/api/embed');
    expect(embeds.map((r) => r.body.input.length)).toEqual([32, 32, 6]);
    expect(embeds.every((r) => r.method === 'POST' && r.body.model === 'nomic-embed-text')).toBe(true);
    expect(vectors).toHaveLength(70);
    for (const v of vectors) {
      expect(v).toHaveLength(768);
      expect(norm(v)).toBeCloseTo(1, 6);
    }
    // Order is kept across batches: vector 40 is the one for text 40.
    const single = await e.embedDocuments([texts[40]!]);
    expect(single[0]).toEqual(vectors[40]);
  });

  it('sends no request for an empty list and rejects blank texts', async () => {
    const e = new OllamaEmbedder({ url: fake.url });
    expect(await e.embedDocuments([])).toEqual([]);
    expect(fake.requests).toHaveLength(0);
    await expect(e.embedDocuments(['ok', '  '])).rejects.toThrow(RangeError);
    await expect(e.embedQuery('')).rejects.toThrow(RangeError);
  });

  it('uses the nomic task prefixes for documents and queries', async () => {
    const e = new OllamaEmbedder({ url: fake.url });
    await e.embedDocuments(['nightly backups']);
    await e.embedQuery('when do backups run');
    const inputs = fake.requests.map((r) => r.body.input);
    expect(inputs).toEqual([['search_document: nightly backups'], ['search_query: when do backups run']]);
  });

  it('sends other models their texts unprefixed', async () => {
    const e = new OllamaEmbedder({ url: fake.url, model: 'all-minilm', dimensions: 384 });
    await e.embedDocuments(['nightly backups']);
    await e.embedQuery('backups');
    expect(fake.requests.map((r) => r.body.input)).toEqual([['nightly backups'], ['backups']]);
    expect(taskPrefixesFor('nomic-embed-text:v1.5').query).toBe('search_query: ');
    expect(taskPrefixesFor('all-minilm')).toEqual({ document: '', query: '' });
  });

  it('ranks by shared words through the fake projection (sanity of the fake)', async () => {
    const e = new OllamaEmbedder({ url: fake.url });
    const [backup, bread] = await e.embedDocuments(['postgres backup every night', 'sourdough bread recipe']);
    const q = await e.embedQuery('postgres backup');
    expect(dot(q, backup!)).toBeGreaterThan(dot(q, bread!));
  });

  it('a model that is not pulled is an EmbedderModelError naming `ollama pull`', async () => {
    const e = new OllamaEmbedder({ url: fake.url, model: 'mxbai-embed-large' });
    const err = await e.embedQuery('x').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderModelError);
    expect((err as Error).message).toContain('ollama pull mxbai-embed-large');
  });

  it('a response from another model is a model mismatch', async () => {
    fake.setMode({ wrongModel: 'all-minilm' });
    const err = await new OllamaEmbedder({ url: fake.url }).embedDocuments(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderModelError);
    expect((err as Error).message).toMatch(/model mismatch.*all-minilm/);
  });

  it('accepts the same model answered with its :latest tag', async () => {
    fake.setMode({ wrongModel: 'nomic-embed-text:latest' });
    await expect(new OllamaEmbedder({ url: fake.url }).embedQuery('x')).resolves.toHaveLength(768);
    expect(sameOllamaModel('nomic-embed-text', 'nomic-embed-text:latest')).toBe(true);
    expect(sameOllamaModel('nomic-embed-text', 'nomic-embed-text:v1.5')).toBe(false);
  });

  it('vectors of the wrong dimension are a model mismatch', async () => {
    fake.setMode({ wrongDimension: 384 });
    const err = await new OllamaEmbedder({ url: fake.url }).embedQuery('x').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderModelError);
    expect((err as Error).message).toMatch(/384-dimensional.*768/);
  });

  it('a server that is down is EmbedderUnavailableError naming the URL and the keyword-only fallback', async () => {
    const e = new OllamaEmbedder({ url: fake.url });
    await fake.down();
    const err = await e.embedDocuments(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderUnavailableError);
    expect((err as Error).message).toContain(fake.url);
    expect((err as Error).message).toContain('keyword-only');
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect((err as Error).cause).toBeDefined();

    await fake.up();
    await expect(e.embedQuery('back again')).resolves.toHaveLength(768);
  });

  it('a 5xx answer is EmbedderUnavailableError', async () => {
    fake.setMode({ failStatus: 503 });
    await expect(new OllamaEmbedder({ url: fake.url }).embedQuery('x')).rejects.toThrow(EmbedderUnavailableError);
  });

  it('a server that does not answer in time is EmbedderUnavailableError', async () => {
    fake.setMode({ delayMs: 2_000 });
    const err = await new OllamaEmbedder({ url: fake.url, timeoutMs: 100 }).embedQuery('x').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderUnavailableError);
    expect((err as Error).message).toContain('within 100 ms');
  });

  it('credentials in the URL are sent as Basic auth and never appear in messages', async () => {
    const url = fake.url.replace('http://', 'http://brain:s3cret-pass@') + '/?token=t0ps3cret';
    const e = new OllamaEmbedder({ url, model: 'missing-model' });
    const notFound = (await e.embedQuery('x').catch((x: unknown) => x)) as Error;
    expect(fake.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('brain:s3cret-pass').toString('base64')}`);
    await fake.down();
    const down = (await e.embedQuery('x').catch((x: unknown) => x)) as Error;
    const health = await e.health();
    expect(notFound).toBeInstanceOf(EmbedderModelError);
    expect(down).toBeInstanceOf(EmbedderUnavailableError);
    for (const text of [notFound.message, down.message, health.reason ?? '', e.displayUrl]) {
      expect(text).not.toMatch(/s3cret|t0ps3cret|brain:/);
    }
  });

  describe('health()', () => {
    it('is ok when the model is pulled (with or without :latest)', async () => {
      expect(await new OllamaEmbedder({ url: fake.url }).health()).toEqual({ ok: true });
      expect(await new OllamaEmbedder({ url: fake.url, model: 'all-minilm:latest', dimensions: 384 }).health()).toEqual({ ok: true });
      expect(fake.requests.every((r) => r.method === 'GET' && r.path === '/api/tags')).toBe(true);
    });

    it('says to pull a missing model', async () => {
      const h = await new OllamaEmbedder({ url: fake.url, model: 'mxbai-embed-large' }).health();
      expect(h.ok).toBe(false);
      expect(h.reason).toContain('ollama pull mxbai-embed-large');
    });

    it('reports a down server without throwing', async () => {
      await fake.down();
      const h = await new OllamaEmbedder({ url: fake.url }).health();
      expect(h.ok).toBe(false);
      expect(h.reason).toContain(fake.url);
    });

    it('reports a 5xx without throwing', async () => {
      fake.setMode({ failStatus: 500 });
      const h = await new OllamaEmbedder({ url: fake.url }).health();
      expect(h).toMatchObject({ ok: false });
      expect(h.reason).toContain('500');
    });
  });

  it('rejects an invalid URL without echoing it', () => {
    expect(() => new OllamaEmbedder({ url: 'not a url secret' })).toThrow(/not a valid URL$/);
  });
});
