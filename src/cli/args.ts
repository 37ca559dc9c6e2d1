// What every command of the command line shares: its output streams, and flags parsed into usage errors.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

/** Where a command writes: stdout and stderr, and whether stderr is a terminal (the batch's progress bar is drawn only there). */
export type Io = {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Whether stderr is a terminal. */
  errIsTTY?: boolean;
  errColumns?: () => number | undefined;
};

type Options = NonNullable<ParseArgsConfig['options']>;
type StrictConfig<O extends Options> = {
  args: string[];
  options: O & { help: { type: 'boolean'; short: 'h' } };
  allowPositionals: true;
  strict: true;
};

/** `args` parsed strictly with `options` and `--help`; an unknown or malformed flag is a UsageError. */
export function parse<O extends Options>(args: string[], options: O): ReturnType<typeof parseArgs<StrictConfig<O>>> {
  const config: StrictConfig<O> = {
    args,
    options: { ...options, help: { type: 'boolean' as const, short: 'h' } },
    allowPositionals: true as const,
    strict: true as const,
  };
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A flag's value as a finite number, undefined where the flag is absent. */
export function numberOption(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n))
    throw new UsageError(`--${name} must be a number, got ${JSON.stringify(value)}`);
  return n;
}
