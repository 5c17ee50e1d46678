// Logistic regression by Newton's method (iteratively reweighted least squares), for the
// benches that calibrate a judgement from labelled examples: a handful of features, a few
// thousand rows. A small ridge term keeps separable data from running the weights to infinity.

export interface Example {
  x: readonly number[];
  y: 0 | 1;
}

/** Weights [bias, w1, ..., wn]. */
export function fitLogistic(examples: readonly Example[], opts: { ridge?: number; iterations?: number } = {}): number[] {
  const n = (examples[0]?.x.length ?? 0) + 1;
  const ridge = opts.ridge ?? 1e-3;
  let w = new Array<number>(n).fill(0);
  for (let it = 0; it < (opts.iterations ?? 50); it++) {
    const grad = new Array<number>(n).fill(0);
    const hess = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    for (const e of examples) {
      const f = [1, ...e.x];
      const p = sigmoid(dot(w, f));
      const s = p * (1 - p);
      for (let i = 0; i < n; i++) {
        grad[i]! += (p - e.y) * f[i]!;
        for (let j = 0; j < n; j++) hess[i]![j]! += s * f[i]! * f[j]!;
      }
    }
    for (let i = 1; i < n; i++) {
      grad[i]! += ridge * w[i]!;
      hess[i]![i]! += ridge;
    }
    const step = solve(hess, grad);
    w = w.map((wi, i) => wi - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

export function dot(a: readonly number[], b: readonly number[]): number {
  return a.reduce((s, x, i) => s + x * b[i]!, 0);
}

/** Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    const d = m[c]![c]! || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / d;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / (row[i]! || 1e-12));
}
