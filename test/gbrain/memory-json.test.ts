import { describe, expect, it } from 'vitest';
import { memoryToTopics, parseMemoryJson, slugify } from '../../services/gbrain/memory-json.js';

describe('slugify', () => {
  it('keeps letters and digits of any script, lowercased', () => {
    expect(slugify('Zoë Müller')).toBe('zoë-müller');
    expect(slugify('  Hello, World!  ')).toBe('hello-world');
    expect(slugify('東京 タワー')).toBe('東京-タワー');
    expect(slugify('हिन्दी भाषा')).toBe('हिन्दी-भाषा'); // combining marks stay
    expect(slugify('C++ & Rust 2024')).toBe('c-rust-2024');
    expect(slugify('Ze\u0301')).toBe('zé'); // NFC
    expect(slugify('!!!')).toBe('untitled');
    expect(slugify('', 'x')).toBe('x');
  });
});

describe('parseMemoryJson', () => {
  const jsonl = [
    '{"type":"entity","name":"Zoë Müller","entityType":"person","observations":["Engineer in Berlin","Speaks 日本語\\nfluently"]}',
    '{"type":"entity","name":"Brex","entityType":"organization","observations":[]}',
    '',
    '{"type":"relation","from":"Zoë Müller","to":"Brex","relationType":"works_at"}',
    '{"type":"relation","from":"Zoë Müller","to":"Nobody","relationType":"knows"}',
    'not json',
    '{"type":"entity","name":"Zoë Müller","entityType":"person","observations":["Engineer in Berlin","Likes tea"]}',
    '{"type":"thing"}',
  ].join('\r\n');

  it('reads entities and relations, reporting bad lines by number', () => {
    const g = parseMemoryJson(jsonl, 'mem.json');
    expect(g.entities).toEqual([
      { name: 'Zoë Müller', entityType: 'person', observations: ['Engineer in Berlin', 'Speaks 日本語\nfluently', 'Likes tea'] },
      { name: 'Brex', entityType: 'organization', observations: [] },
    ]);
    expect(g.relations).toHaveLength(2);
    expect(g.problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(/^mem\.json:6: not valid JSON/),
      expect.stringMatching(/^mem\.json:8: "type" is "thing"/),
      expect.stringMatching(/^mem\.json: entity "Zoë Müller" appears more than once/),
    ]);
  });

  it('turns entities into topics and relations into links', () => {
    const { topics, links, problems } = memoryToTopics(parseMemoryJson(jsonl, 'mem.json'), 'mem.json');
    expect(topics[0]).toEqual({ slug: 'person/zoë-müller', kind: 'person', title: 'Zoë Müller', body: '- Engineer in Berlin\n- Speaks 日本語\n  fluently\n- Likes tea' });
    expect(topics[1]).toMatchObject({ slug: 'organization/brex', body: '' });
    expect(links).toEqual([{ fromSlug: 'person/zoë-müller', toSlug: 'organization/brex', context: 'Zoë Müller works_at Brex', relationType: 'works_at' }]);
    expect(problems[0]!.reason).toMatch(/names "Nobody", which is not an entity/);
  });

  it('reads the whole-file {entities, relations} shape and keeps colliding slugs apart', () => {
    const g = parseMemoryJson(JSON.stringify({ entities: [{ name: 'Zoë', entityType: 'person', observations: ['a'] }, { name: 'ZOË', entityType: 'Person', observations: [] }], relations: [] }));
    expect(g.entities).toHaveLength(2);
    const { topics, problems } = memoryToTopics(g);
    expect(topics.map((t) => t.slug)).toEqual(['person/zoë', 'person/zoë-2']);
    expect(problems[0]!.reason).toMatch(/memory\.json: entity "ZOË" would take the slug person\/zoë/);
  });
});
