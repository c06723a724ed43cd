import { describe, expect, it } from 'vitest';
import { decodeSched, defaultSchedState, encodeSched, type SchedState } from './state';

describe('sched cell state', () => {
  const d = defaultSchedState;
  const cases: SchedState[] = [
    d,
    { ...d, view: 'rate', measure: 'involuntary', step: 500, overlay: true, counted: false },
    { ...d, view: 'pingpong', run: 'r001', cpus: 'workload', groupBy: 'group', windowUs: 250 },
    { ...d, view: 'delays', cpus: '1,3-4', reason: 'woken' },
    { ...d, view: 'runtime', cpus: 'all', groupBy: 'task' },
  ];
  it.each(cases)('round trip %j', (s) => expect(decodeSched(encodeSched(s))).toEqual(s));

  it('the default encodes to nothing, and a link names only what differs', () => {
    expect(encodeSched(d)).toBe('');
    expect(encodeSched({ ...d, view: 'pingpong', windowUs: 500 })).toBe('v=pingpong;w=500');
    expect(decodeSched('lay=multi;stat=1')).toEqual(d);
  });

  it('rejects garbage with a reason', () => {
    expect((decodeSched('bogus') as Error).message).toMatch(/not key=value/);
    expect((decodeSched('v=flame') as Error).message).toMatch(/v must be one of/);
    expect((decodeSched('q=1') as Error).message).toMatch(/unknown field 'q'/);
    expect((decodeSched('cpus=x') as Error).message).toMatch(/cpus must be/);
    expect((decodeSched('cpus=1,,2') as Error).message).toMatch(/cpus must be/);
    expect((decodeSched('step=150') as Error).message).toMatch(/multiple of 100/);
    expect((decodeSched('step=50') as Error).message).toMatch(/multiple of 100/);
    expect((decodeSched('w=0') as Error).message).toMatch(/1-10000/);
    expect((decodeSched('w=10001') as Error).message).toMatch(/1-10000/);
    expect((decodeSched('run=a b') as Error).message).toMatch(/not a run id/);
    expect(decodeSched('m=ctx')).toBeInstanceOf(Error);
    expect(decodeSched('reason=x')).toBeInstanceOf(Error);
    expect(decodeSched('by=cpu')).toBeInstanceOf(Error);
  });
});
