// Hand-written API answers for unit tests and for the mocked screenshot run (e2e/shots.spec.ts).
// Shapes follow backend/iolens/models/; the values are made up but plausible.
import type { CaptureDetail, CapturePublic, FioComparison, MetricRow, StatCell } from '../api/client';

export const A = '3f9a1c2b4d5e6f70';
export const B = '8c7d6e5f4a3b2c1d';
export const C = 'a1b2c3d4e5f60718';

export function stat(values: number[], runs: string[], base?: number): StatCell {
  const n = values.length;
  const mean = n ? values.reduce((a, b) => a + b, 0) / n : null;
  const sd = n >= 2 && mean !== null ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : null;
  return {
    n,
    mean,
    stddev: sd,
    min: n ? Math.min(...values) : null,
    max: n ? Math.max(...values) : null,
    cv: sd !== null && mean ? sd / mean : null,
    values,
    runs,
    ratio: base !== undefined && mean !== null ? mean / base : null,
  };
}

const runsA = ['r000', 'r001', 'r002'];
const runsB = ['r000', 'r001', 'r002'];
const runsC = ['r000', 'r001'];

function row(metric: string, label: string, unit: string, better: 'higher' | 'lower' | 'neutral', a: number[], b: number[], c?: number[]): MetricRow {
  const base = a.reduce((x, y) => x + y, 0) / a.length;
  const cells: Record<string, StatCell> = { [A]: stat(a, runsA), [B]: stat(b, runsB, base) };
  if (c) cells[C] = stat(c, runsC, base);
  return { metric, label, unit, better, description: `${label} (fixture)`, cells };
}

export const comparison: FioComparison = {
  captures: [
    { id: A, label: '6.18-xfs', kernel: '6.18.44', runs: 3, repeats: 3, tags: { fs: 'xfs', kernel: '6.18' } },
    { id: B, label: '6.18-ext4', kernel: '6.18.44', runs: 3, repeats: 3, tags: { fs: 'ext4', kernel: '6.18' } },
    { id: C, label: '6.1-xfs-emulated', kernel: '6.1.0-28-amd64', runs: 2, repeats: 2, tags: { fs: 'xfs', kernel: '6.1', emulated: 'qemu-tcg' } },
  ],
  baseline: A,
  host_diff: [
    { key: 'kernel.release', values: { [A]: '6.18.44', [B]: '6.18.44', [C]: '6.1.0-28-amd64' } },
    { key: 'targets.0.filesystem.type', values: { [A]: 'xfs', [B]: 'ext4', [C]: 'xfs' } },
    { key: 'targets.0.device.scheduler', values: { [A]: 'none', [B]: 'none', [C]: 'mq-deadline' } },
    { key: 'virtualization', values: { [A]: 'kvm', [B]: 'kvm', [C]: null } },
  ],
  groups: [
    {
      job: 'randwrite',
      ddir: 'write',
      metrics: [
        row('iops', 'IOPS', 'IO/s', 'higher', [171234, 170010, 172500], [152100, 150980, 153800], [21500, 23900]),
        row('bw_bytes', 'Bandwidth', 'B/s', 'higher', [701374464, 696360960, 706560000], [623001600, 618414080, 629964800], [88064000, 97894400]),
        row('clat_mean_ns', 'clat mean', 'ns', 'lower', [845100, 850200, 839900], [951000, 960500, 948200], [5430000, 5920000]),
        row('clat_p50_ns', 'clat p50', 'ns', 'lower', [798720, 806912, 790528], [897024, 905216, 888832], [5210112, 5734400]),
        row('clat_p99_ns', 'clat p99', 'ns', 'lower', [1236992, 1253376, 1269760], [1286144, 1220608, 1302528], [9764864, 11337728]),
        row('clat_p99_9_ns', 'clat p99.9', 'ns', 'lower', [2342912, 2506752, 2277376], [2473984, 2605056, 2342912], [16580608, 18481152]),
        row('usr_cpu', 'usr CPU', '%', 'neutral', [12.3, 12.9, 12.1], [11.2, 11.9, 11.5], [4.1, 4.4]),
        row('sys_cpu', 'sys CPU', '%', 'neutral', [41.2, 40.8, 42.0], [47.5, 48.1, 46.9], [62.0, 61.1]),
      ],
    },
  ],
  facts: {
    kernels: { [A]: '6.18.44', [B]: '6.18.44', [C]: '6.1.0-28-amd64' },
    has_config: { [A]: false, [B]: false, [C]: false },
    kernel_options: [],
    config_diff_count: null,
    warnings: [],
    workload_diff: [],
  },
  fio_commands: {
    [A]: ['fio', '--output-format=json+', '--output=fio.json', '--name=randwrite', '--filename=/mnt/test/f', '--size=1g', '--bs=4k', '--rw=randwrite', '--ioengine=libaio', '--iodepth=32', '--direct=1', '--runtime=30', '--time_based'],
    [B]: ['fio', '--output-format=json+', '--output=fio.json', '--name=randwrite', '--filename=/mnt/test/f', '--size=1g', '--bs=4k', '--rw=randwrite', '--ioengine=libaio', '--iodepth=32', '--direct=1', '--runtime=30', '--time_based'],
    [C]: ['fio', '--output-format=json+', '--output=fio.json', 'workload/job.fio'],
  },
};

function pub(id: string, label: string, kernel: string, tags: Record<string, string>, created: string, runs: number, repeats: number, summary: string): CapturePublic {
  return {
    id,
    label,
    tags,
    kernel,
    hostname: 'testhost',
    created_at: created,
    ingested_at: '2026-11-22T03:10:00.000000Z',
    workload_kind: 'fio',
    workload_summary: summary,
    runs,
    repeats,
    bundle_sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    bundle_bytes: 48213,
    warnings: [],
    artifact_kinds: ['fio-jobfile', 'fio-json', 'fio-stderr'],
  };
}

export const captureList: CapturePublic[] = [
  pub(A, '6.18-xfs', '6.18.44', { fs: 'xfs', kernel: '6.18' }, '2026-11-22T02:50:11.123456Z', 3, 3, 'randwrite bs=4k iodepth=32 libaio direct=1'),
  pub(B, '6.18-ext4', '6.18.44', { fs: 'ext4', kernel: '6.18' }, '2026-11-22T02:58:40.000000Z', 3, 3, 'randwrite bs=4k iodepth=32 libaio direct=1'),
  { ...pub(C, '6.1-xfs-emulated', '6.1.0-28-amd64', { fs: 'xfs', kernel: '6.1', emulated: 'qemu-tcg' }, '2026-11-21T21:14:03.000000Z', 2, 2, 'randwrite bs=4k iodepth=32 libaio direct=1'), hostname: 'qemu-nvme', warnings: ['perf: 12% of sched_waking events lost'] },
  pub('0f1e2d3c4b5a6978', 'bulkstat-sweep', '6.18.44', { fs: 'xfs', sweep: 'ninodes' }, '2026-11-20T10:02:00.000000Z', 18, 3, null as unknown as string),
];
captureList[3] = { ...captureList[3]!, workload_kind: 'cmd', workload_summary: 'xfs_io -c "bulkstat -n $N" /mnt/test' };

export const captureDetail: CaptureDetail = {
  ...captureList[0]!,
  collector: { name: 'iolens-collect', version: '0.1.0', argv: ['iolens-collect', 'run', '--label', '6.18-xfs'] },
  workload: { kind: 'fio', fio_version: 'fio-3.33', jobfile: 'workload/job.fio', fio_args: null, targets: ['/mnt/test/f'] },
  host: [
    { key: 'hostname', value: 'testhost' },
    { key: 'os', value: 'Debian GNU/Linux 12 (bookworm)' },
    { key: 'kernel.release', value: '6.18.44' },
    { key: 'kernel.cmdline', value: 'root=/dev/vda1 console=ttyS0' },
    { key: 'cpu.model', value: 'AMD EPYC 7B13' },
    { key: 'cpu.count', value: '2' },
    { key: 'cpu.governor', value: null },
    { key: 'memory.total_bytes', value: '25769803776' },
    { key: 'cgroup.version', value: '2' },
    { key: 'cgroup.controllers.cpu.weight', value: '100' },
    { key: 'targets.0.device.name', value: 'loop0' },
    { key: 'targets.0.device.scheduler', value: 'none' },
    { key: 'targets.0.filesystem.type', value: 'xfs' },
    { key: 'targets.0.filesystem.options', value: 'rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota' },
  ],
  runs_detail: runsA.map((id, i) => ({
    id,
    index: i,
    repeat: i,
    params: {},
    started_at: `2026-11-22T02:5${i}:12.000000Z`,
    ended_at: `2026-11-22T02:5${i}:42.512000Z`,
    exit_code: 0,
    cmdline: comparison.fio_commands[A]!,
  })),
  artifacts: [
    { run_id: null, kind: 'fio-jobfile', path: 'workload/job.fio', size: 211, sha256: 'ab'.repeat(32) },
    ...runsA.flatMap((r) => [
      { run_id: r, kind: 'fio-json', path: `runs/${r}/fio.json`, size: 18234, sha256: 'cd'.repeat(32) },
      { run_id: r, kind: 'fio-stderr', path: `runs/${r}/fio.stderr`, size: 0, sha256: 'e3'.repeat(32) },
    ]),
  ],
  notes: ['perf: not found on PATH; perf version not recorded'],
};
