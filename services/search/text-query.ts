// What a person types into search, split into the three pieces brain.search_query() takes
// (migrations/global/0003_search.sql): quoted phrases (required), exclusions (-word or
// -"a phrase", required absent) and plain words (any one suffices).
//
// Why any-word: a natural-language question ("how do I restart the backups after a power
// cut?") almost never has every one of its words on the card that answers it. Measured on
// two benchmarks, all-words matching (websearch_to_tsquery) found nothing for 45% of the
// questions; OR-ing the words and ranking by cover density (ts_rank_cd) put the evidence in
// the top 10 for 64% of them, against 12%. People who type quotes or minus signs mean them,
// so those stay strict.

export interface TextQuery {
  /** Quoted phrases, in websearch syntax: '"a b" "c"'. Empty when none. */
  phrases: string;
  /** Exclusions, in websearch syntax: '-word -"a phrase"'. Empty when none. */
  exclusions: string;
  /** Everything else, as plain text; its words are OR-ed. */
  words: string;
}

// A quoted phrase (a closing quote is optional, as in websearch_to_tsquery), optionally
// negated; or a negated bare word. A minus counts only at the start of a word.
const TOKEN = /(^|\s)(-?)"([^"]*)"?|(^|\s)-([^\s"]+)/g;

export function parseTextQuery(input: string): TextQuery {
  const phrases: string[] = [];
  const exclusions: string[] = [];
  const words = input.replace(TOKEN, (_all, lead1: string | undefined, neg: string | undefined, phrase: string | undefined, lead2: string | undefined, negWord: string | undefined) => {
    if (phrase !== undefined) {
      const p = clean(phrase);
      if (p) (neg ? exclusions : phrases).push(neg ? `-"${p}"` : `"${p}"`);
      return lead1 ?? ' ';
    }
    const w = clean(negWord ?? '');
    if (w) exclusions.push(`-${w}`);
    return lead2 ?? ' ';
  });
  return { phrases: phrases.join(' '), exclusions: exclusions.join(' '), words: words.replace(/\s+/g, ' ').trim() };
}

/** The phrases' and the plain words' text, without quotes or exclusions: what the question is about, word by word. */
export function wordsOf(q: TextQuery): string {
  return `${q.phrases.replace(/"/g, ' ')} ${q.words}`.replace(/\s+/g, ' ').trim();
}

/** Quotes inside a piece would end it early in websearch syntax. */
function clean(text: string): string {
  return text.replace(/"/g, ' ').replace(/\s+/g, ' ').trim();
}
