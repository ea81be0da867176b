/** The headless engine's log: JSON lines on stderr (stdout stays for results), secrets redacted. */
import { pino, type Logger } from 'pino';
import type { CliIo } from './io';

export const LOG_LEVEL_ENV = 'DATASET_HEALTH_LOG_LEVEL';

export function cliLogger(io: CliIo): Logger {
  return pino(
    {
      level: io.env[LOG_LEVEL_ENV] ?? 'warn',
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', 'apiKey'],
        censor: '[redacted]',
      },
    },
    { write: (line: string) => io.stderr(line) },
  );
}
