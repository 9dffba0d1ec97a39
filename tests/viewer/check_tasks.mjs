// tests/viewer/check_tasks.mjs - loads the JSON export of an
// `nvtxw-replay --synthetic tasks` report into the Chrome DevTools trace
// engine (@paulirish/trace_engine) headlessly and checks what its
// Performance panel would draw for the task model (docs/tasks.md):
//   - one track per task plus one per worker, and no other track with slices;
//   - what the workload's parameters fix: the worker rows, as many task rows
//     as tasks, slot numbers below `live`, 1..`slices` slices per task row,
//     every slice `slice` ns +-50% long;
//   - each task's row holds exactly the task's slices, and every suspension
//     is a gap on it: no slice between the suspension and the resumption,
//     and a slice that begins at the resumption;
//   - every causal link is a flow from the wake mark on the waker's worker
//     row to the resumed slice on the task's row, at the right times.
//
//   node check_tasks.mjs --engine DIR TRACE.json --expect EXPECT.json
//
// EXPECT.json comes from tasks_expect.py, never from the JSON file: "spec"
// and "workers" from the workload's parameters (docs/synthetic.md: worker
// rows, the number of tasks, slot and slice-count bounds, slice lengths),
// the rest from the text sink's dump of the same report (exact slice times,
// gaps and links, which the parameters cannot predict): {"spec": {workers,
// tasks, live, slices, slice}, "workers": [NAME...], "tasks": {NAME:
// {"slices": [[BEGIN, END]...], "gaps": [[SUSPENDED, RESUMED]...]}},
// "links": [[WORKER, TIME, CAUSE, TASK, BEGIN]...]}, times in ns.
// Prints one line per check and "N passed, M failed"; exit 0 when all pass.
import fs from 'node:fs';
import path from 'node:path';
import {loadEngine, makeChecks, parseArgs, parseTrace} from './viewer_common.mjs';

const args = parseArgs('check_tasks.mjs', '--engine DIR TRACE.json --expect EXPECT.json',
                       process.argv.slice(2), {expect: null}, ['expect']);
const {check, finish} = makeChecks();
const {Trace, version} = await loadEngine(args.engine);
const expect = JSON.parse(fs.readFileSync(args.expect, 'utf8'));
const json = JSON.parse(fs.readFileSync(args.trace, 'utf8'));
const base = Number(json.otherData?.timestampBase_ns ?? 0);
const parsed = await parseTrace(Trace, json, true);
const renderer = parsed?.data?.Renderer;
check(`trace engine ${version} parsed ${path.basename(args.trace)}`, renderer !== undefined);
if (renderer === undefined) finish();

// Engine microseconds back to the producer's nanoseconds.
const ns = us => Math.round(us * 1000) + base;

// Tracks with slices, by name; the name of every thread by pid and tid
// (instants, such as the wake marks, are not among a track's entries).
const tracks = new Map();
const threadNames = new Map();
for (const [pid, proc] of renderer.processes) {
  for (const [tid, thread] of proc.threads) {
    threadNames.set(`${pid}/${tid}`, thread.name);
    if (thread.entries.length === 0) continue;
    if (tracks.has(thread.name)) check(`one track named ${thread.name}`, false, 'two tracks');
    tracks.set(thread.name, thread.entries);
  }
}
const trackOf = e => threadNames.get(`${e.pid}/${e.tid}`);
const taskNames = Object.keys(expect.tasks);
check(`the expectation has tasks, suspensions and causal links`,
      taskNames.length > 0 && expect.links.length > 0 &&
      Object.values(expect.tasks).some(t => t.gaps.length > 0));

// What the spec determines, whatever the dump says.
const spec = expect.spec;
const taskRows = [...tracks.keys()].filter(n => n.startsWith('task '));
const workerRows = [...tracks.keys()].filter(n => !n.startsWith('task ')).sort();
check(`${spec.workers} worker rows: ${expect.workers[0]} .. ${expect.workers.at(-1)}`,
      JSON.stringify(workerRows) === JSON.stringify([...expect.workers].sort()),
      `engine has ${workerRows.join(', ')}`);
check(`${spec.tasks} task rows (tasks=${spec.tasks})`, taskRows.length === spec.tasks,
      `engine has ${taskRows.length}`);
const badName = taskRows.filter(n => !(/^task [0-9]+\.[0-9]+$/.test(n) && Number(n.slice(5).split('.')[0]) < spec.live));
check(`task rows named task SLOT.GENERATION, SLOT < ${spec.live} (live)`, badName.length === 0,
      `e.g. ${badName.slice(0, 3).join(', ')}`);
const slicesOf = n => tracks.get(n).filter(e => e.ph === 'X');
const badCount = taskRows.filter(n => slicesOf(n).length < 1 || slicesOf(n).length > spec.slices);
check(`every task row holds 1..${spec.slices} slices (slices=${spec.slices})`, badCount.length === 0,
      `${badCount.length} do not, e.g. ${badCount.slice(0, 3).map(n => `${n}: ${slicesOf(n).length}`).join(', ')}`);
const [shortest, longest] = [Math.floor(spec.slice / 2), spec.slice + Math.floor(spec.slice / 2)];
const lengths = taskRows.flatMap(n => slicesOf(n).map(e => ns(e.ts + e.dur) - ns(e.ts)));
const badLength = lengths.filter(d => d < shortest || d > longest);
check(`every task slice lasts ${shortest}..${longest} ns (slice=${spec.slice} +-50%)`,
      lengths.length > 0 && badLength.length === 0,
      `${badLength.length} of ${lengths.length} do not, e.g. ${badLength.slice(0, 3).join(', ')} ns`);

// What only the dump knows: each task's name, slices, gaps and links.
const wanted = new Set([...expect.workers, ...taskNames]);
check(`${wanted.size} tracks: ${expect.workers.length} workers + ${taskNames.length} tasks`,
      tracks.size === wanted.size && [...wanted].every(n => tracks.has(n)),
      `engine has ${tracks.size}; missing: ${[...wanted].filter(n => !tracks.has(n)).slice(0, 5).join(', ')}`);

// Each task row: exactly its slices; each suspension a gap.
let rowsOk = 0;
let gapsOk = 0;
let gapCount = 0;
const rowProblems = [];
for (const [name, want] of Object.entries(expect.tasks)) {
  const got = (tracks.get(name) ?? []).filter(e => e.ph === 'X').map(e => [ns(e.ts), ns(e.ts + e.dur)]);
  got.sort((a, b) => a[0] - b[0]);
  const same = got.length === want.slices.length &&
               got.every((s, i) => Math.abs(s[0] - want.slices[i][0]) <= 1 && Math.abs(s[1] - want.slices[i][1]) <= 1);
  if (same) rowsOk++;
  else if (rowProblems.length < 3) rowProblems.push(`${name}: ${JSON.stringify(got)} vs ${JSON.stringify(want.slices)}`);
  for (const [from, to] of want.gaps) {
    gapCount++;
    const inside = got.some(([b, e]) => b < to - 1 && e > from + 1);
    const resumes = got.some(([b]) => Math.abs(b - to) <= 1);
    if (!inside && resumes) gapsOk++;
  }
}
check(`${taskNames.length} task rows hold exactly their slices`, rowsOk === taskNames.length,
      `${taskNames.length - rowsOk} differ, e.g. ${rowProblems.join('; ')}`);
check(`${gapCount} suspensions are gaps on their task rows`, gapsOk === gapCount,
      `${gapCount - gapsOk} are not`);

// Causal links: flows from the wake mark to the resumed slice.
const flows = parsed.data.Flows?.flows ?? [];
const byKey = new Map();
for (const f of flows) {
  if (f.length !== 2) continue;
  const [from, to] = f;
  byKey.set(`${trackOf(from)}@${ns(from.ts)}>${trackOf(to)}@${ns(to.ts)}`, [from, to]);
}
let linksOk = 0;
const linkProblems = [];
for (const [worker, time, cause, task, begin] of expect.links) {
  const hit = byKey.get(`${worker}@${time}>${task}@${begin}`);
  if (hit && hit[0].name === cause && hit[1].ph === 'X') linksOk++;
  else if (linkProblems.length < 3) linkProblems.push(`${cause} on ${worker} at ${time} -> ${task} at ${begin}`);
}
check(`${expect.links.length} causal links are flows from the wake to the resumed slice`,
      linksOk === expect.links.length && flows.length === expect.links.length,
      `${linksOk} match, engine has ${flows.length} flows; missing e.g. ${linkProblems.join('; ')}`);
finish();
