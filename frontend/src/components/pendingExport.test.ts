import { describe, expect, it } from 'vitest';
import { requestExport, takeExports, type ExportKind } from './pendingExport';

describe('an export asked for before the save moved the page', () => {
  it('is run by the menu of the saved version that mounts after the request, once', () => {
    requestExport('abc', 'text');
    const got: ExportKind[] = [];
    const stop = takeExports('abc', (k) => got.push(k));
    expect(got).toEqual(['text']);
    stop();
    const again: ExportKind[] = [];
    takeExports('abc', (k) => again.push(k))(); // a later mount of the same version: nothing left
    expect(again).toEqual([]);
  });

  it('is run by a menu of that version already mounted when the request comes', () => {
    const got: ExportKind[] = [];
    const stop = takeExports('def', (k) => got.push(k));
    requestExport('def', 'html');
    expect(got).toEqual(['html']);
    stop();
  });

  it('is not run by the menu of another version, and waits for its own', () => {
    const other: ExportKind[] = [];
    const stop = takeExports('zzz', (k) => other.push(k));
    requestExport('ghi', 'text');
    expect(other).toEqual([]);
    stop();
    const own: ExportKind[] = [];
    takeExports('ghi', (k) => own.push(k))();
    expect(own).toEqual(['text']);
  });
});
