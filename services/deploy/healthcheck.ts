#!/usr/bin/env node
// The container health check: `node dist/services/deploy/healthcheck.js [/healthz|/readyz]`.
// The slim image has no curl, so node asks the server on BRAIN_PORT itself, over loopback
// (a Host the server always accepts). Exit 0 when it answers 2xx within 4 s, 1 otherwise.
async function main(): Promise<number> {
  const path = process.argv[2] ?? '/healthz';
  const port = Number(process.env.BRAIN_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write('healthcheck: BRAIN_PORT must be the port this subject serves on\n');
    return 1;
  }
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) });
    // The body (readyz says what is not ready) lands in `docker inspect`'s health log.
    process.stdout.write(`${path}: ${res.status} ${(await res.text()).slice(0, 300)}\n`);
    return res.ok ? 0 : 1;
  } catch (error) {
    process.stdout.write(`${path}: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
