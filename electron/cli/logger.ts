/** The headless engine's log: JSON lines on stderr (stdout stays for results), secrets redacted. */
import { pino, type Logger } from 'pino';
import { escapeInvisible } from '../store/tables/orgs';
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
    // A remote's error or a dataset's name in a line is JSON-escaped for controls only: format characters
    // (a U+202E) are escaped too, so a terminal shows the line as it is.
    { write: (line: string) => io.stderr(escapeInvisible(line)) },
  );
}
