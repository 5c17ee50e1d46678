// Calibrated judgement, per embedding model: every embedder has its own cosine scale (the
// offline model's unrelated pairs sit near 0.1, nomic-embed-text's near 0.4), so a threshold
// fitted on one means nothing for another. The numbers come from the benches named beside them;
// change them only with those benches' output (docs/retrieval.md keeps the figures).

/**
 * Where a model's cosines sit: `unrelated` is typical of a question and a card with nothing to
 * do with it, `related` of a question and the card that answers it. Evidence is read on this
 * scale (0 at unrelated, 1 at related), so one set of weights can serve models whose raw
 * cosines differ.
 */
export interface CosineScale {
  readonly unrelated: number;
  readonly related: number;
}

/** Logistic weights turning a hit's evidence (relevance.ts) into its relevance. */
export interface RelevanceModel {
  readonly bias: number;
  readonly coverage: number;
  /** Weight of the cosine, read on `scale`. */
  readonly cosine: number;
  /** Weight of the cosine's lift above the question's median candidate, read on `scale`. */
  readonly lift: number;
  readonly scale: CosineScale;
  /** The same without a vector (keyword-only brains, cards not embedded yet), with its own floor. */
  readonly keywordOnly: { readonly bias: number; readonly coverage: number; readonly floor: number };
  /** A question whose best hit is below this is answered "nothing relevant". */
  readonly floor: number;
  /** Once a question is answered, its other hits are shown while their relevance is at least floor x companions. */
  readonly companions: number;
  /** Whether the scale was measured on this model (false: taken from published figures, see the note; such a model's searches are not gated by the floor). */
  readonly calibrated: boolean;
  readonly note: string;
}

// bench/search/questions.ts (2026-11-30): logistic fits on the first 20 candidates of each of
// its 263 questions; the floor is the lowest that leaves at least 95% of the 43 nonsense
// questions with nothing (hybrid: 95.3%, keyword-only: 95.3%). The offline model's cosine
// barely separates answers from noise (0.435 on average against 0.429 for a nonsense
// question's best hit); how far a hit stands above the question's other candidates (lift)
// does, with coverage. The price is in docs/retrieval.md: a third of the answerable questions
// share too few words with their answer for the offline model to vouch for it, and are
// answered "nothing relevant" with their best titles named (minRelevance: 0 shows them).
const KEYWORD_ONLY = Object.freeze({ bias: -4.947, coverage: 5.105, floor: 0.13 });
const WEIGHTS = { bias: -4.539, coverage: 4.923, cosine: -0.688, lift: 12.717, keywordOnly: KEYWORD_ONLY, floor: 0.18, companions: 0 } as const;

export const RELEVANCE_MODELS: Readonly<Record<string, RelevanceModel>> = Object.freeze({
  'use-lite-512': Object.freeze({ ...WEIGHTS, scale: { unrelated: 0, related: 1 }, calibrated: true, note: 'fitted on bench/search/questions.ts with the offline embedder' }),
  // Not measured here (no Ollama on the bench machines): nomic-embed-text's cosines run higher
  // for everything; these are its commonly reported ranges. The question bench measures them
  // against a real Ollama with --ollama URL (docs/retrieval.md).
  'nomic-embed-text': Object.freeze({ ...WEIGHTS, scale: { unrelated: 0.35, related: 0.75 }, calibrated: false, note: 'scale from published figures, not measured' }),
});

/** For a model with no entry: the nomic scale, the usual one for a modern embedder. */
const UNKNOWN: RelevanceModel = Object.freeze({ ...RELEVANCE_MODELS['nomic-embed-text']!, note: 'unknown model: the nomic-embed-text scale is assumed' });

/** Model ids carry a tag (nomic-embed-text:latest); the calibration is by the name before it. */
export function relevanceModelFor(embedderModel: string | undefined): RelevanceModel {
  if (embedderModel === undefined) return RELEVANCE_MODELS['use-lite-512']!; // only keywordOnly is used without an embedder
  return RELEVANCE_MODELS[embedderModel.split(':')[0]!] ?? UNKNOWN;
}

/**
 * Search before add (judgement.ts): logistic weights over judgement.ts's features
 * ([bias, ...FEATURE_NAMES]) for P(same) and P(link-worthy), and the thresholds that act on them.
 */
export interface JudgementModel {
  readonly same: readonly number[];
  readonly link: readonly number[];
  /** P(same) from which a card of the same kind is updated. */
  readonly updateAt: number;
  /** P(same) from which a card is flagged as a possible duplicate (the new card is written and the match shown). */
  readonly flagAt: number;
  /**
   * P(same) from which lint reports a pair of cards as possible duplicates: the lowest at which at
   * least half of the pairs reported are the same thing (bench/judgement/lint.ts).
   */
  readonly lintAt: number;
  /** P(link) from which a `mentions` link is made. */
  readonly linkAt: number;
  readonly scale: CosineScale;
  readonly calibrated: boolean;
  readonly note: string;
}

// bench/judgement/duplicates.ts, fitted on all 387 incoming cards of the set (2026-11-30). Its
// two-fold cross-validation, each half measured with weights fitted on the other: same thing
// caught (updated or flagged) 91.3% / 93.1%, related or unrelated cards merged 0.8% / 1.2%,
// link precision 95.7% / 81.4%. The set always has vectors: `noVector` is untrained.
const JUDGEMENT_WEIGHTS = {
  same: [-11.27, 3.36, -2.71, 0.63, 15.71, 1.79, -1.52, 5.13, 9.62],
  link: [-5.96, 0.63, 0.2, 2.02, 15.47, 1.48, -0.33, 0.56, 6.67],
  updateAt: 0.92,
  flagAt: 0.1,
  // bench/judgement/lint.ts (2026-12-01): 83.0% of the same-thing pairs reported, 53.4% of the
  // pairs reported the same thing (65.0% of the labelled ones); 0.4 gives 48.6%.
  lintAt: 0.45,
  linkAt: 0.55,
} as const;

export const JUDGEMENT_MODELS: Readonly<Record<string, JudgementModel>> = Object.freeze({
  'use-lite-512': Object.freeze({ ...JUDGEMENT_WEIGHTS, scale: { unrelated: 0, related: 1 }, calibrated: true, note: 'fitted on bench/judgement/duplicates.ts with the offline embedder' }),
  'nomic-embed-text': Object.freeze({ ...JUDGEMENT_WEIGHTS, scale: { unrelated: 0.35, related: 0.75 }, calibrated: false, note: 'weights of use-lite-512 on a cosine scale from published figures, not measured' }),
});

/**
 * No embedder (or no pgvector): bench/judgement/duplicates.ts --keyword-only, fitted on all
 * (2026-11-30); cross-validated: same thing caught 89.3% / 89.1%, merged 0.8% / 1.2%, link
 * precision 90.7% / 79.8%.
 */
export const KEYWORD_JUDGEMENT: JudgementModel = Object.freeze({
  same: [-10.82, 3.19, -2.5, 0.53, 17.61, 0, 0, 5.2, 8.55],
  link: [-6.12, 0.52, 0.32, 2.23, 18.36, 0, 0, 0.68, 6.33],
  updateAt: 0.93,
  flagAt: 0.09,
  // bench/judgement/lint.ts --keyword-only (2026-12-01): 13.1% of the same-thing pairs reported
  // (lint weighs only pairs alike by title without vectors), 50.0% of the pairs reported right.
  lintAt: 0.35,
  linkAt: 0.56,
  scale: { unrelated: 0, related: 1 },
  calibrated: true,
  note: 'no embedder: lexical evidence only',
});

/** For a model with no entry: the nomic-embed-text scale, as for relevance. */
const UNKNOWN_JUDGEMENT: JudgementModel = Object.freeze({ ...JUDGEMENT_MODELS['nomic-embed-text']!, note: 'unknown model: the nomic-embed-text scale is assumed' });

export function judgementModelFor(embedderModel: string | undefined): JudgementModel {
  if (embedderModel === undefined) return KEYWORD_JUDGEMENT;
  return JUDGEMENT_MODELS[embedderModel.split(':')[0]!] ?? UNKNOWN_JUDGEMENT;
}
