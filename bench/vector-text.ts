// pgvector's text form ('[0.1234567,...]', seven significant digits: float4 precision), for the
// benches' bulk loads, which pass many vectors at once as a text[] to unnest. The brain itself
// sends each vector as a parameter in the binary form (vectorParam in services/search/vectors.ts).
export function vectorText(v: readonly number[]): string {
  return `[${v.map((x) => Number(x.toPrecision(7))).join(',')}]`;
}
