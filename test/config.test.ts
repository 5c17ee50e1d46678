// Configuration fails fast and names the file, the field and the fix.
import { describe, expect, it } from 'vitest';
import { parseDenyList } from '../config/deny-list.js';
import { parseKinds } from '../config/kinds.js';
import { loadRuntimeConfig } from '../config/runtime.js';
import { parseSubjects } from '../config/subjects.js';

describe('configuration', () => {
  it('subjects.yaml: personal required, ports unique, names safe, YAML strict', () => {
    expect(() => parseSubjects('subjects:\n  homelab: { port: 7402 }\n', 's.yaml')).toThrow('s.yaml: subjects: the shared subject "personal" must be present');
    expect(() => parseSubjects('subjects:\n  personal: { port: 7401 }\n  homelab: { port: 7401 }\n', 's.yaml')).toThrow(/port: 7401 is already used by "personal"/);
    expect(() => parseSubjects('subjects:\n  personal: { port: 7401 }\n  Home-Lab: { port: 7402 }\n', 's.yaml')).toThrow(/lowercase letters/);
    expect(() => parseSubjects('subjects:\n  personal: { port: 7401 }\n  pg_x: { port: 7402 }\n', 's.yaml')).toThrow(/reserved/);
    expect(() => parseSubjects('subjects:\n  personal: { port: 7401 }\n  personal: { port: 7402 }\n', 's.yaml')).toThrow(/s\.yaml: not valid YAML/);
    expect(() => parseSubjects('subjects: [unclosed', 's.yaml')).toThrow(/not valid YAML/);
    expect(parseSubjects('subjects:\n  personal: { port: 7401 }\n', 's.yaml').subjects[0]).toMatchObject({ name: 'personal', role: 'brain_personal', isPersonal: true });
  });

  it('kinds.yaml: a kind is a thing or an event, never both; descriptions required', () => {
    expect(() => parseKinds('topic:\n  tool: A tool.\nepisode:\n  tool: Using a tool.\n', 'k.yaml')).toThrow(/"tool" is listed as both/);
    expect(() => parseKinds('topic:\n  tool: ""\nepisode: {}\n', 'k.yaml')).toThrow(/k\.yaml: topic\.tool: each kind needs a one-line description/);
    expect(() => parseKinds('topic:\n  Bad_Kind: x\nepisode: {}\n', 'k.yaml')).toThrow(/lowercase letters/);
  });

  it('deny-list.yaml: unknown keys and short tokens are refused; tokens and allowed strings are kept as written', () => {
    expect(() => parseDenyList('pii:\n  email:\n    label: x\n    pattern: y\n    severity: high\n', 'd.yaml')).toThrow(/d\.yaml: pii\.email/);
    expect(() => parseDenyList('pii:\n  ip:\n    label: x\n    pattern: y\n    check: sha\n', 'd.yaml')).toThrow(/d\.yaml: pii\.ip/);
    expect(() => parseDenyList('subjects:\n  homelab: [x]\n', 'd.yaml')).toThrow(/at least 2 characters/);
    const list = parseDenyList('subjects:\n  novel: [Aldric Vane, c++]\nallow: [a.b]\n', 'd.yaml');
    // Postgres compiles them (brain_private.deny_token_pattern), folding them as it folds text.
    expect(list.rules[0]).toMatchObject({ category: 'subject-token:novel', pattern: '', tokens: ['Aldric Vane', 'c++'], check: null });
    expect(list.allow).toEqual(['a.b']);
  });

  it('environment: each variable is validated and named', () => {
    expect(() => loadRuntimeConfig({ BRAIN_DATABASE_URL: 'mysql://x' })).toThrow(/BRAIN_DATABASE_URL: must look like postgres/);
    expect(() => loadRuntimeConfig({ BRAIN_DATABASE_URL: 'postgres://u:secret@h/db' })).toThrow(/must not contain a password/);
    expect(() => loadRuntimeConfig({ BRAIN_EMBEDDER: 'magic' })).toThrow(/BRAIN_EMBEDDER/);
    expect(loadRuntimeConfig({}).mode).toBe('embedded');
    expect(loadRuntimeConfig({ BRAIN_DATABASE_URL: 'postgres://h:5432/brain' }).mode).toBe('server');
  });
});
