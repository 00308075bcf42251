// How conformance/run.sh reads the suite's results (each scenario's checks.json).
//   node outcome.mjs line CHECKS_JSON SCENARIO      one line for a scenario just run
//   node outcome.mjs summary RESULTS EXPECTED_JSON  the figures, compared with the expected failures;
//                                                   exits 1 on a failure not expected or an expected
//                                                   failure that passed
// A scenario fails when a check is a FAILURE or a WARNING (as the suite's own baseline check
// counts it), or when it left no checks.json.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A scenario's outcome: whether it passed, and what failed. */
function outcome(checksFile) {
  if (!existsSync(checksFile)) return { passed: false, problems: ['no checks.json: the scenario did not run'] };
  const checks = JSON.parse(readFileSync(checksFile, 'utf8'));
  const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  const counted = checks.filter((check) => check.status === 'SUCCESS' || check.status === 'FAILURE').length;
  return {
    passed: bad.length === 0,
    counted,
    problems: bad.map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? check.description}`),
  };
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'line') {
  const [checksFile, scenario] = rest;
  const result = outcome(checksFile);
  console.log(`${result.passed ? '✓' : '✗'} ${scenario}${result.passed ? '' : `: ${result.problems.join('; ')}`}`);
} else if (command === 'summary') {
  const [results, expectedFile] = rest;
  const expected = JSON.parse(readFileSync(expectedFile, 'utf8'));
  let wrong = 0;
  const figures = [];
  for (const mode of ['client', 'server']) {
    const folder = join(results, mode);
    if (!existsSync(folder)) continue;
    const listed = expected[mode] ?? {};
    const ran = readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    let passed = 0;
    for (const name of ran.sort()) {
      const scenario = name.replaceAll('__', '/');
      const result = outcome(join(folder, name, 'checks.json'));
      if (result.passed) passed += 1;
      const reason = listed[scenario];
      if (!result.passed && reason === undefined) {
        wrong += 1;
        console.log(`UNEXPECTED FAILURE (${mode}) ${scenario}: ${result.problems.join('; ')}`);
      } else if (result.passed && reason !== undefined) {
        wrong += 1;
        console.log(`UNEXPECTED PASS (${mode}) ${scenario}: remove it from expected-failures.json ("${reason}")`);
      } else if (!result.passed) {
        console.log(`expected failure (${mode}) ${scenario}: ${reason}`);
      }
    }
    for (const scenario of Object.keys(listed)) {
      if (!ran.includes(scenario.replaceAll('/', '__')) && !process.env.CONFORMANCE_SCENARIOS) {
        wrong += 1;
        console.log(
          `UNKNOWN (${mode}) ${scenario}: listed in expected-failures.json, but the suite has no such scenario`,
        );
      }
    }
    figures.push(`${mode} ${passed}/${ran.length} scenarios passed`);
  }
  console.log(figures.join(', '));
  console.log(wrong === 0 ? 'As expected.' : `${wrong} scenario(s) not as expected-failures.json says.`);
  process.exit(wrong === 0 ? 0 : 1);
} else {
  console.error('usage: node outcome.mjs line CHECKS_JSON SCENARIO | summary RESULTS EXPECTED_JSON');
  process.exit(2);
}
