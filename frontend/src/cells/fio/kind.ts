import { defineCell } from '../types';
import { FioTableCell } from './FioTableCell';
import { decodeFioTable, defaultFioTableState, encodeFioTable, type FioTableState } from './state';

export const fioTableCell = defineCell<FioTableState>({
  kind: 'fio',
  title: 'fio comparison',
  description: 'IOPS, bandwidth, latency and CPU per job and direction, relative to the baseline',
  defaultState: defaultFioTableState,
  encode: encodeFioTable,
  decode: decodeFioTable,
  Component: FioTableCell,
});
