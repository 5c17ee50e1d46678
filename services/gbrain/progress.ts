// Progress of a long import on stderr: a redrawn bar (files done/total, rate, time left)
// when stderr is a terminal, else a plain line every `every` files, so logs stay readable.
import type { ImportProgress } from './import.js';

export function progressReporter(stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }, label = 'import', every = 500): (p: ImportProgress) => void {
  const started = performance.now();
  let lastDraw = 0;
  return ({ done, total }) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const left = rate > 0 ? (total - done) / rate : 0;
    const stats = `${done}/${total} files  ${rate.toFixed(0)}/s  ${done === total ? `done in ${clock(seconds)}` : `${clock(left)} left`}`;
    if (stream.isTTY) {
      const now = performance.now();
      if (done !== total && now - lastDraw < 100) return; // redraw at most ten times a second
      lastDraw = now;
      const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - stats.length - label.length - 6));
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${stats}\x1b[K${done === total ? '\n' : ''}`);
    } else if (done % every === 0 || done === total) {
      stream.write(`${label}: ${stats}\n`);
    }
  };
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
