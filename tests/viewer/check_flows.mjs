// tests/viewer/check_flows.mjs - loads a JSON trace of nvtxw-otf2-import into
// the Chrome DevTools trace engine (@paulirish/trace_engine) headlessly and
// checks what its Performance panel would draw: the number of threads with
// slices, the number of slices per thread, and the flow arrows (each message
// from its send to its receive).
//
//   node check_flows.mjs --engine DIR TRACE.json --expect EXPECT.json
//
// EXPECT.json: {"threads": {"NAME": slices, ...}, "flows": N}, computed by
// viewer_test.sh from the trace file itself ("X" events per thread_name,
// the thread entries of the engine; flow ids with both "s" and "f"): the
// engine must see what the file says.
// Prints one line per check and "N passed, M failed"; exit 0 when all pass.
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

function usage(message) {
  process.stderr.write(`check_flows.mjs: error: ${message}\n` +
                       'usage: node check_flows.mjs --engine DIR TRACE.json --expect EXPECT.json\n');
  process.exit(2);
}

function parseArgs(argv) {
  const args = {engine: null, trace: null, expect: null};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--engine' || a === '--expect') {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      args[a.slice(2)] = argv[++i];
    } else if (a.startsWith('-')) {
      usage(`unknown option ${a}`);
    } else if (args.trace === null) {
      args.trace = a;
    } else {
      usage(`unexpected argument ${a}`);
    }
  }
  if (args.engine === null || args.trace === null || args.expect === null)
    usage('--engine, --expect and a trace are required');
  return args;
}

const args = parseArgs(process.argv.slice(2));
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

if (globalThis.DOMRect === undefined) {
  globalThis.DOMRect = class DOMRect {
    constructor(x = 0, y = 0, width = 0, height = 0) {
      Object.assign(this, {x, y, width, height, top: y, left: x, right: x + width, bottom: y + height});
    }
  };
}
const dir = path.join(args.engine, 'node_modules', '@paulirish', 'trace_engine');
const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const Trace = await import(pathToFileURL(path.join(dir, pkg.main)).href);
const expect = JSON.parse(fs.readFileSync(args.expect, 'utf8'));
const json = JSON.parse(fs.readFileSync(args.trace, 'utf8'));
// The engine's FlowsHandler pairs flow events in the order it is given them
// and requires timestamp order (its own comment); Sink=json writes stream
// by stream, so a flow's end may come first in the file. Perfetto sorts by
// itself; here the events are sorted by ts (stable) as a loader would.
const events = [...(json.traceEvents ?? json)];
events.sort((a, b) => (a.ph === 'M') - (b.ph === 'M') || (a.ts ?? 0) - (b.ts ?? 0));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const parsed = model.parsedTrace();
const renderer = parsed?.data?.Renderer;
check(`trace engine ${pkg.version} parsed ${path.basename(args.trace)}`, renderer !== undefined);
if (renderer === undefined) {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(1);
}

const threads = new Map();
for (const [, proc] of renderer.processes) {
  for (const [, thread] of proc.threads) {
    if (thread.entries.length > 0) threads.set(thread.name, thread.entries.length);
  }
}
const want = Object.entries(expect.threads).filter(([, n]) => n > 0);
check(`${want.length} threads with slices`, threads.size === want.length,
      `engine: ${[...threads.keys()].join(', ')}`);
for (const [name, slices] of want) {
  const got = threads.get(name);
  check(`${name}: ${slices} slices`, got === slices, `engine has ${got}`);
}
const flows = parsed.data.Flows?.flows ?? [];
check(`${expect.flows} flows, each from one event to another`,
      flows.length === expect.flows && flows.every(f => f.length === 2),
      `engine has ${flows.length} (sizes ${[...new Set(flows.map(f => f.length))].join(',')})`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
