// Shared query keys, so that every component asking for the same data shares one request.
import { fetchCaptures, fetchFioComparison } from './client';
import { useQuery } from './useQuery';

export const useCaptureList = () => useQuery('captures', () => fetchCaptures());

export const useFioComparison = (captures: string[], baseline: string) =>
  useQuery(`fio:${captures.join(',')}|${baseline}`, () => fetchFioComparison(captures, baseline));
