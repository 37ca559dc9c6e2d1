// A Vite logger that keeps what it is told to warn about, so that a test can say a build printed nothing.
import { createLogger, type Logger } from 'vite';

export function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = createLogger('warn', { allowClearScreen: false });
  const keep = (msg: string) => void warnings.push(msg);
  Object.assign(logger, { warn: keep, warnOnce: keep, error: keep });
  return { logger, warnings };
}
