// Structured logs (pino) with secrets redacted wherever they could appear.
import { pino, type Logger } from 'pino';

export function createLogger(name: string, level = process.env.BRAIN_LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'password', '*.password', 'token', '*.token', 'adminUrl'],
      censor: '[redacted]',
    },
  });
}
