// The exit codes of the `edgeseg` command line, one meaning each, documented in docs/node.md.
/** `interrupted` is the shell's code for a command ended by SIGINT (128 + 2), for a batch stopped with Ctrl-C after its summary. */
export const EXIT = { ok: 0, failure: 1, usage: 2, badInput: 3, model: 4, interrupted: 130 } as const;
