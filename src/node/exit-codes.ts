// The exit codes of the `edgeseg` command line, one meaning each, documented in the README.
export const EXIT = { ok: 0, failure: 1, usage: 2, badInput: 3, model: 4 } as const;
