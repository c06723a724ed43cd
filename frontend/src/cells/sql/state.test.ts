import { describe, expect, it } from 'vitest';
import { decodeSql, DEFAULT_SQL, defaultSqlState, encodeSql, type SqlState } from './state';

describe('SQL cell state', () => {
  const cases: SqlState[] = [
    defaultSqlState,
    { sql: 'SELECT 1', chart: null },
    { sql: DEFAULT_SQL, chart: { mark: 'bar', x: 'label', y: ['iops'] } },
    { sql: "SELECT 'a;b:c', 2 AS \"x,y\"", chart: { mark: 'line', x: 'a:b;c', y: ['x,y', 'é %'] } },
    { sql: '', chart: { mark: 'scatter', x: 'x', y: ['y'] } },
  ];
  it.each(cases)('round trip %j', (s) => expect(decodeSql(encodeSql(s))).toEqual(s));

  it('the default encodes to ""', () => {
    expect(encodeSql(defaultSqlState)).toBe('');
    expect(encodeSql({ sql: 'SELECT 1', chart: { mark: 'bar', x: 'a', y: ['b'] } })).toBe('chart=bar:a:b;SELECT 1');
  });

  it('rejects a broken chart with a reason', () => {
    expect((decodeSql('chart=pie:a:b;SELECT 1') as Error).message).toMatch(/not one of/);
    expect((decodeSql('chart=bar:a;SELECT 1') as Error).message).toMatch(/MARK:X:Y/);
    expect((decodeSql('chart=bar:a:b') as Error).message).toMatch(/followed by/);
    expect((decodeSql('chart=bar:a:;SELECT 1') as Error).message).toMatch(/1 to 8/);
    expect(decodeSql('chart=bar:%E0%A4%A:b;x')).toBeInstanceOf(Error);
    expect(decodeSql('x'.repeat(30000))).toBeInstanceOf(Error);
  });
});
