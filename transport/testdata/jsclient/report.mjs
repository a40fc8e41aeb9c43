// Shared command-line and reporting plumbing for client.mjs and browser.mjs:
// both print exactly one JSON object on stdout, even when they fail, so the
// Go tests always have something to show.

// Reads leading flags ("--name value") named in defaults, then the positional
// arguments. A flag whose default is a number takes a positive integer.
// Throws with usage when fewer than minPositional arguments remain.
export function parseCommandLine(argv, defaults, minPositional, usage) {
  const flags = { ...defaults };
  let i = 0;
  for (; i < argv.length && Object.hasOwn(defaults, argv[i]); i += 2) {
    const name = argv[i];
    const raw = argv[i + 1];
    if (raw === undefined) throw new Error(`${name} wants a value\n${usage}`);
    if (typeof defaults[name] !== 'number') {
      flags[name] = raw;
      continue;
    }
    const v = Number(raw);
    if (!Number.isInteger(v) || v <= 0) {
      throw new Error(`${name} wants a positive integer, got ${JSON.stringify(raw)}\n${usage}`);
    }
    flags[name] = v;
  }
  const positional = argv.slice(i);
  if (positional.length < minPositional) throw new Error(usage);
  return { flags, positional };
}

// Runs work(report) under a deadline, then prints the report and exits:
// 0 when work finished, 1 when it threw or ran out of time, 2 for bad usage.
// Exiting explicitly matters: a half-closed transport or browser must not keep
// the process alive once the report is out.
export async function reportAndExit(report, parse, work) {
  let timeoutMs;
  try {
    timeoutMs = parse();
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
  const deadline = new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`gave up after ${timeoutMs} ms`)), timeoutMs).unref();
  });
  let code = 0;
  try {
    await Promise.race([work(report), deadline]);
  } catch (err) {
    report.fatal = String(err?.stack ?? err);
    code = 1;
  }
  process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(code));
}

// Formats anything thrown or emitted as an error.
export function errorText(err) {
  return String(err?.message ?? err);
}
