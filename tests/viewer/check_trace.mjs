// tests/viewer/check_trace.mjs - loads a JSON trace written by Sink=json into
// the Chrome DevTools trace engine (@paulirish/trace_engine, the model behind
// the Performance panel) headlessly and checks what a viewer would show for
// examples/hello_producer: per thread, the slice count, the nesting depth and
// every slice's name, start, duration and parent.
//
//   node check_trace.mjs --engine DIR TRACE.json [--workers N] [--steps S]
//
// DIR is the npm prefix holding node_modules/@paulirish/trace_engine. The
// expected slices come from hello_producer's formula: worker w, step s starts
// at s*10000 + w*37 ns; phase p lasts 1000 + 250*((7s + 3p + w) % 5) ns and
// is followed by a 100 ns gap; the step ends after the last gap. The JSON is
// in microseconds rebased to the session start (the earliest timestamp, 0).
// Nothing of the expectation is read from the trace: only the engine's view
// of it is compared with the formula.
// Prints one line per check and "N passed, M failed"; exit 0 when all pass.
import fs from 'node:fs';
import {loadEngine, makeChecks, parseArgs, parseTrace} from './viewer_common.mjs';

const PHASES = ['load_mesh', 'compute_fluxes', 'exchange_halo', 'MPI_Allreduce'];
const EPSILON_US = 0.0005; // the JSON has 3 decimals of microseconds

// The slices hello_producer writes on worker w, in nanoseconds.
function expectedSlices(w, steps) {
  const slices = [];
  for (let s = 0; s < steps; s++) {
    let t = s * 10000 + w * 37;
    const step = {name: `step ${s}`, start: t, end: 0, depth: 0, children: []};
    for (let p = 0; p < PHASES.length; p++) {
      const length = 1000 + 250 * ((s * 7 + p * 3 + w) % 5);
      step.children.push({name: PHASES[p], start: t, end: t + length, depth: 1});
      t += length + 100;
    }
    step.end = t;
    slices.push(step);
  }
  return slices;
}

const args = parseArgs('check_trace.mjs', '--engine DIR TRACE.json [--workers N] [--steps S]',
                       process.argv.slice(2), {workers: 4, steps: 250});
const {check, finish} = makeChecks();
const near = (us, ns) => Math.abs(us - ns / 1000) <= EPSILON_US;

// Compares one engine slice (a tree node) with the expected one; '' = same.
function compareSlice(node, want) {
  const e = node.entry;
  const dur = e.dur ?? 0;
  if (e.name !== want.name) return `name '${e.name}', expected '${want.name}'`;
  if (!near(e.ts, want.start)) return `${want.name}: ts ${e.ts} us, expected ${want.start / 1000}`;
  if (!near(dur, want.end - want.start))
    return `${want.name}: dur ${dur} us, expected ${(want.end - want.start) / 1000}`;
  if (node.depth !== want.depth) return `${want.name}: depth ${node.depth}, expected ${want.depth}`;
  return '';
}

const started = Date.now();
const {Trace, version} = await loadEngine(args.engine);
const parsed = await parseTrace(Trace, JSON.parse(fs.readFileSync(args.trace, 'utf8')), false);
const renderer = parsed?.data?.Renderer;
check(`trace engine ${version} parsed ${args.trace}`, renderer !== undefined);
if (renderer === undefined) finish();

// The engine's threads by name (thread_name metadata).
const threads = new Map();
for (const [, proc] of renderer.processes) {
  for (const [, thread] of proc.threads) {
    if (thread.entries.length > 0) threads.set(thread.name, thread);
  }
}
check(`${args.workers} threads with slices`, threads.size === args.workers,
      `found ${threads.size}: ${[...threads.keys()].join(', ')}`);

for (let w = 0; w < args.workers; w++) {
  const name = `worker-${w}`;
  const thread = threads.get(name);
  if (thread === undefined) {
    check(`${name}: present`, false, 'no such thread in the engine');
    continue;
  }
  const want = expectedSlices(w, args.steps);
  const total = want.length * (1 + PHASES.length);
  check(`${name}: ${total} slices`, thread.entries.length === total, `engine has ${thread.entries.length}`);
  let maxDepth = -1;
  for (const entry of thread.entries) {
    const node = renderer.entryToNode.get(entry);
    maxDepth = Math.max(maxDepth, node ? node.depth : -1);
  }
  check(`${name}: nesting depth 2 (steps at 0, phases at 1)`, maxDepth === 1, `max depth ${maxDepth}`);
  const roots = thread.tree ? [...thread.tree.roots] : [];
  roots.sort((a, b) => a.entry.ts - b.entry.ts);
  check(`${name}: ${args.steps} top-level step slices`, roots.length === args.steps, `engine has ${roots.length}`);
  let problem = '';
  for (let s = 0; s < Math.min(roots.length, want.length) && !problem; s++) {
    const root = roots[s];
    problem = compareSlice(root, want[s]);
    const children = [...root.children].sort((a, b) => a.entry.ts - b.entry.ts);
    if (!problem && children.length !== PHASES.length)
      problem = `${want[s].name}: ${children.length} children, expected ${PHASES.length}`;
    for (let p = 0; p < children.length && !problem; p++) {
      problem = compareSlice(children[p], want[s].children[p]);
      if (!problem && children[p].parent !== root) problem = `${want[s].children[p].name}: wrong parent`;
    }
  }
  check(`${name}: names, starts, durations and parents of every slice`, roots.length > 0 && !problem, problem);
}
console.log(`trace engine check took ${Date.now() - started} ms`);
finish();
