import { describe, expect, it } from 'vitest';
import type { Page } from './api';
import { fetchAll } from './lists';

describe('fetchAll', () => {
  it('reads every page past the first by following next_cursor', async () => {
    const pages: Record<string, Page<number>> = {
      '/api/v1/phones?limit=100': { data: [1, 2], next_cursor: 'c2' },
      '/api/v1/phones?limit=100&cursor=c2': { data: [3, 4], next_cursor: 'c/3' },
      '/api/v1/phones?limit=100&cursor=c%2F3': { data: [5], next_cursor: null },
    };
    const asked: string[] = [];
    const items = await fetchAll<number>('/api/v1/phones', async (path) => {
      asked.push(path);
      const page = pages[path];
      if (!page) throw new Error(`unexpected ${path}`);
      return page;
    });
    expect(items).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual(Object.keys(pages));
  });

  it('asks once when the first page is the last', async () => {
    let calls = 0;
    const items = await fetchAll<string>('/api/v1/webhooks', async () => {
      calls += 1;
      return { data: ['a'], next_cursor: null };
    });
    expect(items).toEqual(['a']);
    expect(calls).toBe(1);
  });
});
