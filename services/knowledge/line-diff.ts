// A compact line diff for `history`: what a version changed in a card's body, as the
// removed (-) and added (+) lines, never the whole text. Bodies run to 200,000 characters,
// so the work is bounded: the common head and tail are stripped first (most edits touch
// one place, or append), and the middle is compared line by line (LCS) only while that
// stays small; past that it is reported as replaced wholesale.

export interface LineDiff {
  removed: number;
  added: number;
  /** '- line' and '+ line' entries in text order, with '…' between separate places. */
  lines: string[];
}

/** Cells of the LCS table past which the middle is reported as replaced wholesale. */
const MAX_CELLS = 250_000;

function splitLines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
}

export function lineDiff(before: string, after: string): LineDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const ops: ('=' | '-' | '+')[] = [];
  const text: string[] = [];
  if (x.length * y.length > MAX_CELLS || x.length === 0 || y.length === 0) {
    for (const l of x) (ops.push('-'), text.push(l));
    for (const l of y) (ops.push('+'), text.push(l));
  } else {
    // LCS lengths of every suffix pair, then one walk from the start.
    const w = y.length + 1;
    const L = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        L[i * w + j] = x[i] === y[j] ? L[(i + 1) * w + j + 1]! + 1 : Math.max(L[(i + 1) * w + j]!, L[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        ops.push('=');
        text.push(x[i]!);
        i++;
        j++;
      } else if (i < x.length && (j === y.length || L[(i + 1) * w + j]! >= L[i * w + j + 1]!)) {
        // Removals first where either way keeps the longest common part, as diff prints them.
        ops.push('-');
        text.push(x[i]!);
        i++;
      } else {
        ops.push('+');
        text.push(y[j]!);
        j++;
      }
    }
  }
  const out: LineDiff = { removed: 0, added: 0, lines: [] };
  let gap = false;
  ops.forEach((op, k) => {
    if (op === '=') {
      gap = out.lines.length > 0;
      return;
    }
    if (gap) out.lines.push('…');
    gap = false;
    if (op === '-') out.removed++;
    else out.added++;
    out.lines.push(`${op} ${text[k]}`);
  });
  return out;
}
