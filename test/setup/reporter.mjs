// The compact reporter of `npm test` (scripts/run-tests.mjs): one line per test file, every failure
// in full (with the file's stderr), then every skipped test with its reason, and last node's own
// closing summary lines (`# tests`, `# pass`, `# fail`, …) exactly as the TAP reporter prints them,
// so CI reads the result the same way. `npm test -- --test-reporter=tap` gives node's TAP instead.
import { relative } from 'node:path';

const SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /;
const cwd = process.cwd();
const rel = (file) => (file ? relative(cwd, file) || file : '(no file)');

function indent(text, by = '    ') {
  return String(text)
    .split('\n')
    .map((l) => by + l)
    .join('\n');
}

function describeError(error) {
  if (!error) return 'failed';
  // node wraps the test's own error as `cause` of an ERR_TEST_FAILURE.
  const e = error.code === 'ERR_TEST_FAILURE' && error.cause ? error.cause : error;
  if (typeof e !== 'object') return String(e);
  const stack = typeof e.stack === 'string' ? e.stack : '';
  const message = typeof e.message === 'string' && e.message ? e.message : String(e);
  const frames = stack
    .split('\n')
    .filter((l) => /^\s+at /.test(l) && !/node:|node_modules/.test(l))
    .slice(0, 4)
    .join('\n');
  // A test file whose process failed outside any test (an exit code, a signal, a guard's verdict).
  const proc =
    e.exitCode != null || e.signal != null ? ` (the test file's process ended with ${e.signal ?? `exit code ${e.exitCode}`})` : '';
  return `${message}${proc}${frames ? '\n' + frames : ''}`;
}

export default async function* compactReporter(source) {
  const files = new Map();
  const skipped = [];
  const summary = [];
  let current = null;
  const fileOf = (name) => {
    let f = files.get(name);
    if (!f) files.set(name, (f = { pass: 0, fail: 0, skip: 0, todo: 0, ms: 0, failures: [], stderr: [], printed: false }));
    return f;
  };
  function* flush(name) {
    const f = files.get(name);
    if (!f || f.printed) return;
    f.printed = true;
    const counts = [`${f.pass} passed`];
    if (f.fail) counts.push(`${f.fail} FAILED`);
    if (f.skip) counts.push(`${f.skip} skipped`);
    if (f.todo) counts.push(`${f.todo} todo`);
    const failed = f.fail > 0 || f.failures.length > 0;
    yield `${failed ? '✖' : '✔'} ${rel(name)} — ${counts.join(', ')} (${(f.ms / 1000).toFixed(1)} s)\n`;
    for (const x of f.failures) yield `  ✖ ${x.name === name ? rel(name) : x.name}\n${indent(x.error)}\n`;
    if (failed && f.stderr.length) yield `  stderr of ${rel(name)}:\n${indent(f.stderr.join('').trimEnd())}\n`;
  }

  for await (const event of source) {
    const d = event.data ?? {};
    const name = d.file ?? null;
    if (name && name !== current && event.type !== 'test:stderr' && event.type !== 'test:stdout') {
      if (current) yield* flush(current);
      current = name;
    }
    switch (event.type) {
      case 'test:pass':
      case 'test:fail': {
        const f = fileOf(name);
        if (d.nesting === 0 || d.nesting === undefined) f.ms += d.details?.duration_ms ?? 0;
        // Suites (describe) and the per-file wrapper of a passing file are not tests of their own. But
        // a suite fails on its own when one of its hooks (or its body) throws, and then its tests only
        // say they were cancelled: that error is the one to show.
        if (d.details?.type === 'suite') {
          const failureType = d.details?.error?.failureType;
          if (event.type === 'test:fail' && failureType !== 'subtestsFailed') {
            f.failures.push({ name: `${d.name} (${failureType ?? 'suite failed'})`, error: describeError(d.details?.error) });
          }
          break;
        }
        if (d.skip !== undefined && d.skip !== false) {
          f.skip++;
          skipped.push({ file: name, name: d.name, reason: typeof d.skip === 'string' ? d.skip : '(no reason given)' });
        } else if (d.todo !== undefined && d.todo !== false) f.todo++;
        else if (event.type === 'test:pass') f.pass++;
        else {
          f.fail++;
          f.failures.push({ name: d.name, error: describeError(d.details?.error) });
        }
        break;
      }
      case 'test:stderr':
      case 'test:stdout':
        if (name) fileOf(name).stderr.push(d.message ?? '');
        break;
      case 'test:diagnostic':
        if (d.nesting === 0 && SUMMARY.test(d.message ?? '')) summary.push(d.message);
        else if (name) fileOf(name).stderr.push(`${d.message}\n`);
        break;
      default:
        break;
    }
  }
  for (const name of files.keys()) yield* flush(name);
  if (skipped.length) {
    yield `\nskipped (${skipped.length}):\n`;
    for (const s of skipped) yield `  - ${rel(s.file)} › ${s.name}: ${s.reason}\n`;
  }
  yield '\n';
  for (const line of summary) yield `# ${line}\n`;
}
