#!/usr/bin/env node
// The `edgeseg` command line; the code lives in src/node/cli.ts and is compiled by `npm run build:lib`.
import { main } from '../dist/src/node/cli.js';

process.exitCode = await main(process.argv.slice(2));
