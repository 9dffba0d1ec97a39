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
import {loadEngine, makeChecks, parseArgs, parseTrace} from './viewer_common.mjs';

const args = parseArgs('check_flows.mjs', '--engine DIR TRACE.json --expect EXPECT.json',
                       process.argv.slice(2), {expect: null}, ['expect']);
const {check, finish} = makeChecks();
const {Trace, version} = await loadEngine(args.engine);
const expect = JSON.parse(fs.readFileSync(args.expect, 'utf8'));
const parsed = await parseTrace(Trace, JSON.parse(fs.readFileSync(args.trace, 'utf8')), true);
const renderer = parsed?.data?.Renderer;
check(`trace engine ${version} parsed ${path.basename(args.trace)}`, renderer !== undefined);
if (renderer === undefined) finish();

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
finish();
