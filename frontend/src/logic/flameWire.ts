// The flame graph's columns answer (`Accept: application/vnd.iolens.flame-columns`), read: the
// same FlameGraph as the JSON answer, its tree as little-endian typed arrays viewed in place in
// the answer's buffer, its frame names a table over one decoded string (flameNames.ts). No
// JSON.parse of the tree (12.7 MB of numbers at 450k nodes, parsed on the page's main thread
// before the graph could be laid out). The writer and the format: backend/iolens/views/flame_wire.py; both read and write
// testdata/vectors/flame-wire.json (flameWire.test.ts).
//
// A cut or damaged answer is an error that names the section or field, never an empty graph.

import { Names } from './flameNames';

export const FLAME_COLUMNS = 'application/vnd.iolens.flame-columns';
const MAGIC = 0x464c4f49; // "IOLF" read as a little-endian u32
export const FLAME_WIRE_VERSION = 1;
const HEADER = 16;
const ENTRY = 24;
const ALIGN = 8;

const JSON_T = 1;
const TEXT_T = 2;
const U8 = 3;
const U16 = 4;
const U32 = 5;
const F64 = 6;
const TYPE_NAMES: Record<number, string> = { 1: 'json', 2: 'text', 3: 'u8', 4: 'u16', 5: 'u32', 6: 'f64' };
const SIZE: Record<number, number> = { 3: 1, 4: 2, 5: 4, 6: 8 };
// the types each column may take (flame_wire.COLUMNS)
const COLUMNS = {
  name: [U16, U32],
  depth: [U8, U16, U32],
  self_w: [U8, U16, U32, F64],
  self_n: [U8, U16, U32, F64],
} as const;
// the difference's (flame_wire.DIFF_COLUMNS), and its noise flags: both or neither
const DIFF_COLUMNS = {
  name: COLUMNS.name,
  depth: COLUMNS.depth,
  self_a: [U8, U16, U32, F64],
  self_b: [U8, U16, U32, F64],
  samp_a: [U8, U16, U32, F64],
  samp_b: [U8, U16, U32, F64],
} as const;
const NOISE = ['noise_s', 'noise_t'] as const;

export type Numbers = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/** The tree's columns as the layout reads them (FlameTree's fields, typed arrays). */
export interface TreeColumnsWire {
  names: Names;
  name: Numbers;
  depth: Numbers;
  self_weight: Numbers;
  self_samples: Numbers;
}

/** The difference's tree columns (FlameDiffTree's fields, typed arrays; noise flags 0/1 or null). */
export interface DiffColumnsWire {
  names: Names;
  name: Numbers;
  depth: Numbers;
  self_a: Numbers;
  self_b: Numbers;
  samples_a: Numbers;
  samples_b: Numbers;
  noise_self: Uint8Array | null;
  noise_total: Uint8Array | null;
}

export class FlameWireError extends Error {
  constructor(message: string) {
    super(`flame answer: ${message}`);
    this.name = 'FlameWireError';
  }
}

const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

interface Section {
  type: number;
  count: number;
  offset: number;
  bytes: number;
}

function numbers(buf: ArrayBuffer, s: Section): Numbers {
  if (LITTLE) {
    switch (s.type) {
      case U8:
        return new Uint8Array(buf, s.offset, s.count);
      case U16:
        return new Uint16Array(buf, s.offset, s.count);
      case U32:
        return new Uint32Array(buf, s.offset, s.count);
      default:
        return new Float64Array(buf, s.offset, s.count);
    }
  }
  // a big-endian machine: copy through a DataView
  const v = new DataView(buf, s.offset, s.bytes);
  const out = s.type === U8 ? new Uint8Array(s.count) : s.type === U16 ? new Uint16Array(s.count) : s.type === U32 ? new Uint32Array(s.count) : new Float64Array(s.count);
  for (let i = 0; i < s.count; i++) out[i] = s.type === U8 ? v.getUint8(i) : s.type === U16 ? v.getUint16(2 * i, true) : s.type === U32 ? v.getUint32(4 * i, true) : v.getFloat64(8 * i, true);
  return out;
}

/** Read a columns answer: its head (the FlameGraph without its tree, parsed) and its tree. */
export function decodeFlameColumns(buf: ArrayBuffer): { head: unknown; tree: TreeColumnsWire } {
  const { head, names, cols } = readColumns(buf, COLUMNS, []);
  return { head, tree: { names, name: cols.name!, depth: cols.depth!, self_weight: cols.self_w!, self_samples: cols.self_n! } };
}

/** Read a difference's columns answer (flame_wire.encode_diff): its head (the FlameDiff without its tree) and its tree. */
export function decodeFlameDiffColumns(buf: ArrayBuffer): { head: unknown; tree: DiffColumnsWire } {
  const { head, names, cols } = readColumns(buf, DIFF_COLUMNS, NOISE);
  const present = NOISE.filter((c) => cols[c] !== undefined);
  if (present.length === 1) throw new FlameWireError(`section '${present[0]}' without its pair`);
  for (const c of present) {
    const v = cols[c]!;
    for (let i = 0; i < v.length; i++) if (v[i]! > 1) throw new FlameWireError(`column '${c}': node ${i} is ${v[i]}, not 0 or 1`);
  }
  const flags = (c: (typeof NOISE)[number]) => (cols[c] as Uint8Array | undefined) ?? null;
  return {
    head,
    tree: { names, name: cols.name!, depth: cols.depth!, self_a: cols.self_a!, self_b: cols.self_b!, samples_a: cols.samp_a!, samples_b: cols.samp_b!, noise_self: flags('noise_s'), noise_total: flags('noise_t') },
  };
}

/** The head, names and columns of an answer: `required` columns (with their types), `optional` u8 ones when present. */
function readColumns(buf: ArrayBuffer, required: Record<string, readonly number[]>, optional: readonly string[]): { head: unknown; names: Names; cols: Record<string, Numbers | undefined> } {
  const size = buf.byteLength;
  if (size < HEADER) throw new FlameWireError(`${size} bytes, shorter than its ${HEADER}-byte header`);
  const dv = new DataView(buf);
  if (dv.getUint32(0, true) !== MAGIC) throw new FlameWireError('no IOLF magic at its start (not a columns answer)');
  const version = dv.getUint32(4, true);
  if (version !== FLAME_WIRE_VERSION) throw new FlameWireError(`version ${version}, this reader reads ${FLAME_WIRE_VERSION}`);
  const count = dv.getUint32(8, true);
  const length = dv.getUint32(12, true);
  if (length !== size) throw new FlameWireError(`header says ${length} bytes, got ${size} (truncated?)`);
  if (HEADER + count * ENTRY > size) throw new FlameWireError(`section table of ${count} entries ends past the answer's ${size} bytes`);
  const found = new Map<string, Section>();
  const ascii = new TextDecoder('latin1');
  for (let k = 0; k < count; k++) {
    const at = HEADER + k * ENTRY;
    const name = ascii.decode(new Uint8Array(buf, at, 8)).replace(/\0+$/, '');
    const s = { type: dv.getUint32(at + 8, true), count: dv.getUint32(at + 12, true), offset: dv.getUint32(at + 16, true), bytes: dv.getUint32(at + 20, true) };
    if (s.offset % ALIGN) throw new FlameWireError(`section '${name}' at byte ${s.offset}, not a multiple of ${ALIGN}`);
    if (s.offset + s.bytes > size) throw new FlameWireError(`section '${name}' ends at byte ${s.offset + s.bytes}, past the answer's ${size} bytes`);
    const width = SIZE[s.type];
    if (width !== undefined && s.bytes !== s.count * width) throw new FlameWireError(`section '${name}': ${s.bytes} bytes for ${s.count} ${TYPE_NAMES[s.type]} values`);
    found.set(name, s);
  }
  const section = (name: string, types: readonly number[]): Section => {
    const s = found.get(name);
    if (!s) throw new FlameWireError(`no section '${name}'`);
    if (!types.includes(s.type)) throw new FlameWireError(`section '${name}' of type ${TYPE_NAMES[s.type] ?? s.type}, expected ${types.map((t) => TYPE_NAMES[t]).join(' or ')}`);
    return s;
  };
  const utf8 = new TextDecoder('utf-8', { fatal: true });

  const h = section('head', [JSON_T]);
  let head: unknown;
  try {
    head = JSON.parse(utf8.decode(new Uint8Array(buf, h.offset, h.bytes)));
  } catch (e) {
    throw new FlameWireError(`section 'head' is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const t = section('names', [TEXT_T]);
  let text: string;
  try {
    text = utf8.decode(new Uint8Array(buf, t.offset, t.bytes));
  } catch {
    throw new FlameWireError("section 'names' is not UTF-8");
  }
  // the names hold no NUL (the tree is cut at NULs): a table of where each starts, no strings
  // made until a name is read (flameNames.ts; a split into 216k strings took 60-110 ms at 450k nodes)
  const names = Names.joined(text, t.count);
  if (names === null) throw new FlameWireError(`section 'names' holds ${text === '' ? 0 : text.split('\0').length} names, its count says ${t.count}`);

  const cols: Record<string, Numbers | undefined> = {};
  for (const [c, types] of Object.entries(required)) cols[c] = numbers(buf, section(c, types));
  for (const c of optional) if (found.has(c)) cols[c] = numbers(buf, section(c, [U8]));
  const name = cols.name!;
  const depth = cols.depth!;
  const n = name.length;
  for (const [c, v] of Object.entries(cols)) {
    if (v !== undefined && v.length !== n) throw new FlameWireError(`column '${c}' has ${v.length} values, 'name' has ${n}`);
  }
  const k = names.length;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    if (name[i]! >= k) throw new FlameWireError(`column 'name': node ${i} names ${name[i]}, past the ${k} names`);
    const d = depth[i]!;
    if (d > prev + 1 || (i > 0 && d === 0)) throw new FlameWireError(`column 'depth': node ${i} at depth ${d} after depth ${prev} (not a pre-order tree)`);
    prev = d;
  }
  return { head, names, cols };
}
