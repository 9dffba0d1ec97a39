// viewer_common.mjs - what the headless viewer checks share: their command
// line, PASS/FAIL lines with a closing summary, and loading a trace into the
// Chrome DevTools trace engine (@paulirish/trace_engine, installed under an
// npm prefix by viewer_test.sh).
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

// Prints the usage error of `tool` and exits 2.
export function usage(tool, synopsis, message) {
  process.stderr.write(`${tool}: error: ${message}\nusage: node ${tool} ${synopsis}\n`);
  process.exit(2);
}

// Parses `--engine DIR TRACE.json` plus the options in `defaults` (each
// `--NAME VALUE`; a number default takes whole numbers only). Returns
// {engine, trace, ...defaults}; `required` lists options that must be given.
export function parseArgs(tool, synopsis, argv, defaults = {}, required = []) {
  const args = {engine: null, trace: null, ...defaults};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const key = a.slice(2);
    if (a.startsWith('--') && key in args && key !== 'trace') {
      if (i + 1 >= argv.length) usage(tool, synopsis, `${a} needs a value`);
      const value = argv[++i];
      if (typeof defaults[key] === 'number' && !/^[0-9]+$/.test(value))
        usage(tool, synopsis, `${a} takes a whole number, not '${value}'`);
      args[key] = typeof defaults[key] === 'number' ? Number(value) : value;
    } else if (a.startsWith('-')) {
      usage(tool, synopsis, `unknown option ${a}`);
    } else if (args.trace === null) {
      args.trace = a;
    } else {
      usage(tool, synopsis, `unexpected argument ${a}`);
    }
  }
  for (const key of ['engine', ...required]) {
    if (args[key] === null) usage(tool, synopsis, `--${key} is required`);
  }
  if (args.trace === null) usage(tool, synopsis, 'no trace given');
  return args;
}

// PASS/FAIL lines; finish() prints "N passed, M failed" and exits 0 only
// when something passed and nothing failed.
export function makeChecks() {
  let passed = 0;
  let failed = 0;
  function check(name, ok, detail = '') {
    if (ok) {
      passed++;
      console.log(`PASS: ${name}`);
    } else {
      failed++;
      console.log(`FAIL: ${name}${detail ? `: ${detail}` : ''}`);
    }
  }
  function finish() {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  }
  return {check, finish};
}

// Node has no DOMRect; the engine's screenshot and layout code refers to it.
function polyfillDOMRect() {
  if (globalThis.DOMRect !== undefined) return;
  globalThis.DOMRect = class DOMRect {
    constructor(x = 0, y = 0, width = 0, height = 0) {
      Object.assign(this, {x, y, width, height, top: y, left: x, right: x + width, bottom: y + height});
    }
  };
}

// The engine module under the npm prefix and its version.
export async function loadEngine(prefix) {
  const dir = path.join(prefix, 'node_modules', '@paulirish', 'trace_engine');
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  polyfillDOMRect();
  const Trace = await import(pathToFileURL(path.join(dir, pkg.main)).href);
  return {Trace, version: pkg.version};
}

// Parses the trace file's events with every handler; `sorted` first sorts
// them by ts. The engine's FlowsHandler pairs flow events in the order it is given them and needs
// timestamp order (its own comment); Sink=json writes stream by stream, so a
// flow's end may come first in the file. Perfetto sorts by itself; here the
// events are sorted by ts (stable, metadata last) as a loader would.
export async function parseTrace(Trace, json, sorted) {
  const events = [...(json.traceEvents ?? json)];
  if (sorted) events.sort((a, b) => (a.ph === 'M') - (b.ph === 'M') || (a.ts ?? 0) - (b.ts ?? 0));
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  return model.parsedTrace();
}
