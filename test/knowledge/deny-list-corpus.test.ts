// Issue 15's acceptance for the deny-list, on both databases: the corpus
// (test/fixtures/deny-list-corpus.jsonl: every evasion class and benign look-alikes) driven
// through every route into personal (raw SQL as a project role over its own login on the
// server, the upcast tool, personal's remember tool, a GBrain import into personal, a
// proposal committed into personal), each route refusing at least 99% of the must-refuse
// cases and writing at least 95% of the must-pass ones, every refusal naming the class the
// case pins and never a token or a subject. bench/deny-list/corpus.ts prints the same figures.
import { describe, expect, it } from 'vitest';
import { PASS_THRESHOLD, REFUSE_THRESHOLD } from '../../bench/deny-list/corpus.js';
import { loadCorpus, pct, ratesLine, ROUTES, runRoute } from '../../bench/deny-list/routes.js';
import { describeOnBothDatabases } from '../support/both-databases.js';

const corpus = loadCorpus();

/** Every class the corpus must hold at least one case of (issue 15's list). */
const REFUSE_CLASSES = [
  'token: plain', 'token: no-break space', 'token: zero-width space', 'token: soft hyphen', 'token: bidi control', 'token: Cyrillic a',
  'token: Greek omicron', 'token: full-width letters', 'token: combining accent', 'token: html entity nbsp', 'token: percent escape',
  'token: json unicode escape', 'token: markdown bold', 'token: hyphenated', 'token: underscored', 'token: CamelCase',
  'token: hyphenated line break', 'token: without its article', 'token: letter-digit token', 'token: possessive', 'token: plural', 'token: slug',
  'ip', 'email', 'secret', 'private key', 'other pii',
];
const PASS_CLASSES = ['prose', 'version', 'loopback', 'date/number', 'hash/id', 'code', 'email-like', 'near miss', 'unicode/markup'];
/** What a refusal must never say: the tokens of the test deny-list, and the subjects. */
const NEVER_SAID = ['nas01', 'pve01', 'homelab', 'unifi', 'vlan', 'aldric', 'vane', 'mirewood', 'thornhollow', 'ilsabet', 'marrow', 'synod', 'novel', 'book'];

describe('the deny-list corpus', () => {
  it('holds at least 300 labelled cases, both kinds, every evasion class and benign look-alike', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    const refuse = corpus.filter((c) => c.expect === 'refuse');
    const pass = corpus.filter((c) => c.expect === 'pass');
    expect(refuse.length).toBeGreaterThanOrEqual(150);
    expect(pass.length).toBeGreaterThanOrEqual(150);
    expect(new Set(corpus.map((c) => c.n)).size).toBe(corpus.length);
    for (const c of corpus) expect(['refuse', 'pass']).toContain(c.expect);
    const classes = new Set(corpus.map((c) => c.class));
    expect(REFUSE_CLASSES.filter((k) => !classes.has(k))).toEqual([]);
    expect(PASS_CLASSES.filter((k) => !classes.has(k))).toEqual([]);
    // The issue's own examples are in it, as written there.
    const texts = corpus.map((c) => c.text);
    for (const t of ['export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'http://127.0.0.1:7701/mcp', 'Python 3.11.7.1 fixed the regression', '1.5.2.0 in the old scheme']) {
      expect(texts).toContain(t);
    }
  });
});

describeOnBothDatabases('deny-list corpus on every route into personal', (brain) => {
  for (const route of ROUTES) {
    it(`${route}: at least ${REFUSE_THRESHOLD}% of must-refuse refused and ${PASS_THRESHOLD}% of must-pass written, each refusal naming its class`, async () => {
      const r = await runRoute(brain(), route, corpus);
      console.log(`${brain().label} ${ratesLine(r)}`);
      const show = (list: { n: number; class: string; text: string }[]) => list.map((c) => `#${c.n} ${c.class}: ${JSON.stringify(c.text)}`);
      expect.soft(r.errors, 'failures that were not the deny-list').toEqual([]);
      expect.soft(r.wrongClass.map((w) => `#${w.case.n}: wanted "${w.case.label}" in ${JSON.stringify(w.message)}`)).toEqual([]);
      expect(pct(r.refused, r.mustRefuse), `misses:\n${show(r.misses).join('\n')}`).toBeGreaterThanOrEqual(REFUSE_THRESHOLD);
      expect(pct(r.written, r.mustPass), `false positives:\n${show(r.falsePositives).join('\n')}`).toBeGreaterThanOrEqual(PASS_THRESHOLD);
      expect(r.mustRefuse + r.mustPass).toBe(corpus.length);
    }, 900_000);
  }

  it('a refusal names the field and the class, with a hint, and never the word, its subject or the rule', async () => {
    const probe = [
      { text: 'Ilsabet\u00a0Marrow keeps the ledger', label: 'a word tied to a project' },
      { text: 'export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', label: 'a secret (a key, token or password)' },
      { text: 'write to ada at example dot com', label: 'an e-mail address' },
      { text: 'defanged 192[.]168[.]1[.]20', label: 'an IP address' },
    ].map((p, i) => ({ n: 9000 + i, expect: 'refuse' as const, class: 'probe', ...p }));
    for (const route of ROUTES) {
      const r = await runRoute(brain(), route, probe);
      expect(r.refused, route).toBe(probe.length);
      expect(r.wrongClass, route).toEqual([]);
      for (const o of r.outcomes) {
        const said = (o.message ?? '').toLowerCase();
        for (const word of NEVER_SAID) expect(said, `${route}: ${o.message}`).not.toContain(word);
        // The MCP tools answer with the error code, the field and class, and a hint.
        if (route === 'upcast' || route === 'remember') expect(o.message, route).toMatch(/^Error \(denied_by_deny_list\): .*the body of this topic write into personal contains .*\nHint: Nothing was written\./);
      }
    }
    // The database's own answer: field, class and a hint; the matched text is not in it.
    const homelab = brain().config.subjects.find((s) => s.name === 'homelab')!.role;
    for (const p of probe) {
      let error: { code?: string; message: string; hint?: string; detail?: string } | undefined;
      try {
        await brain().asRole(homelab, (s) => s.query("INSERT INTO personal.topics (slug, kind, title, summary) VALUES ('probe/x', 'concept', 'Probe', $1)", [p.text]));
      } catch (e) {
        error = e as typeof error;
      }
      expect(error?.code).toBe('BRD01');
      expect(error!.message).toBe(`refused by the deny-list: the summary of this topic write into personal contains ${p.label}`);
      expect(error!.hint).toMatch(/^Nothing was written\. .*summary/);
      const said = `${error!.message} ${error!.hint} ${error!.detail}`.toLowerCase();
      for (const word of NEVER_SAID) expect(said).not.toContain(word);
      for (const word of ['example', '192', 'wjalr', 'pattern', '\\m']) expect(said).not.toContain(word);
    }
  }, 300_000);
});
