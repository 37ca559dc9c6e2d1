// A command line that cannot run as written (unknown flag, missing argument, an output folder that cannot be written): exit code 2.
export class UsageError extends Error {
  override name = 'UsageError' as const;
}
