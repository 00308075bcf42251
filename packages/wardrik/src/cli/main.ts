#!/usr/bin/env node
// The `wardrik` command line. See run-cli.ts.
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2));
// Exit once what was printed is out, even if an idle keep-alive connection would hold the process.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
