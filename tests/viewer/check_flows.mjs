// tests/viewer/check_flows.mjs - loads a JSON trace of nvtxw-otf2-import into
// the Chrome DevTools trace engine (@paulirish/trace_engine) headlessly and
// checks what its Performance panel would draw against the OTF2 oracle's
// account of the archive: the rows with slices, each location row's slices by
// kind, the slices per region name, the task rows, and the flow arrows (each
// MPI message from its send to its receive, per row and record kind).
//
//   node check_flows.mjs --engine DIR TRACE.json --expect EXPECT.json
//
// EXPECT.json is written by otf2_expect.py from tests/otf2/otf2_oracle.py's
// reading of the archive (python3-otf2), not from the JSON under test; its
// docstring says which record becomes which slice. {"threads": {STREAM:
// {CLASS: N}}, "regions": {NAME: N}, "task_rows": {"rows": N, "slices": N},
// "flows": N, "flow_starts"/"flow_ends": {STREAM: {KIND: N}}}; CLASS is
// "region" (slices named after OTF2 regions) or an otf2:* slice name.
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

// A test that expects nothing proves nothing: the archive has MPI messages,
// region slices and task slices.
check('the expectation has flows, region slices and task slices',
      expect.flows > 0 && Object.keys(expect.regions).length > 0 && expect.task_rows.slices > 0);

const count = (map, key, n = 1) => map.set(key, (map.get(key) ?? 0) + n);
const classOf = name => (name.startsWith('otf2:') ? name : 'region');
const diff = (got, want) => {
  const keys = [...new Set([...got.keys(), ...Object.keys(want)])].sort();
  return keys.filter(k => (got.get(k) ?? 0) !== (want[k] ?? 0))
      .slice(0, 4).map(k => `${k}: engine ${got.get(k) ?? 0}, expected ${want[k] ?? 0}`).join('; ');
};

// Rows with slices: the locations' (by stream name) and the tasks' rows.
const rows = new Map();       // stream -> Map(class -> slices)
const regions = new Map();    // region name -> slices on location rows
const threadNames = new Map(); // "pid/tid" -> row name
const others = [];
let taskRows = 0;
let taskSlices = 0;
let taskOther = 0;
for (const [pid, proc] of renderer.processes) {
  for (const [tid, thread] of proc.threads) {
    threadNames.set(`${pid}/${tid}`, thread.name);
    if (thread.entries.length === 0) continue;
    if (thread.name in expect.threads) {
      const classes = rows.get(thread.name) ?? new Map();
      for (const e of thread.entries) {
        count(classes, classOf(e.name));
        if (classOf(e.name) === 'region') count(regions, e.name);
      }
      rows.set(thread.name, classes);
    } else if (/^task \S+$/.test(thread.name)) {
      taskRows++;
      taskSlices += thread.entries.length;
      taskOther += thread.entries.filter(e => e.name !== 'otf2:TaskSlice').length;
    } else {
      others.push(thread.name);
    }
  }
}
const want = Object.keys(expect.threads);
check(`${want.length} location rows with slices`,
      rows.size === want.length && others.length === 0,
      `engine has ${rows.size} of them; missing: ${want.filter(n => !rows.has(n)).join(', ') || '-'}; ` +
      `unexpected: ${others.slice(0, 5).join(', ') || '-'}`);
for (const [name, classes] of Object.entries(expect.threads)) {
  for (const [cls, n] of Object.entries(classes)) {
    const got = rows.get(name)?.get(cls) ?? 0;
    check(`${name}: ${n} ${cls} slices`, got === n, `engine has ${got}`);
  }
  const extra = [...(rows.get(name)?.keys() ?? [])].filter(c => !(c in classes));
  check(`${name}: no other kind of slice`, extra.length === 0, `engine also has ${extra.join(', ')}`);
}
check(`${Object.keys(expect.regions).length} region names with their slice counts`,
      diff(regions, expect.regions) === '', diff(regions, expect.regions));
const {rows: wantRows, slices: wantSlices} = expect.task_rows;
check(`${wantRows} task rows holding ${wantSlices} otf2:TaskSlice slices`,
      taskRows === wantRows && taskSlices === wantSlices && taskOther === 0,
      `engine has ${taskRows} rows, ${taskSlices} slices, ${taskOther} not otf2:TaskSlice`);

// Flows: how many, and per row and record kind where they start and end.
const flows = parsed.data.Flows?.flows ?? [];
check(`${expect.flows} flows, each from one event to another`,
      flows.length === expect.flows && flows.every(f => f.length === 2),
      `engine has ${flows.length} (sizes ${[...new Set(flows.map(f => f.length))].join(',')})`);
const ends = [['start', expect.flow_starts, f => f[0]], ['end', expect.flow_ends, f => f[f.length - 1]]];
for (const [which, wanted, pick] of ends) {
  const got = new Map(); // "row|kind" -> flows
  for (const f of flows) {
    const e = pick(f);
    count(got, `${threadNames.get(`${e.pid}/${e.tid}`)}|${e.name}`);
  }
  const flat = {};
  for (const [row, kinds] of Object.entries(wanted))
    for (const [kind, n] of Object.entries(kinds)) flat[`${row}|${kind}`] = n;
  const total = Object.values(flat).reduce((a, b) => a + b, 0);
  check(`flows ${which} at ${total} message records on their rows (${Object.keys(flat).length} row and kind pairs)`,
        diff(got, flat) === '', diff(got, flat));
}
finish();
