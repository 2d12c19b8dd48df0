import { describe, expect, it } from 'vitest';
import { countDroppedRows, createMetrics } from '../../src/http/metrics.js';

describe('racewire_dropped_rows_total', () => {
  it('counts dropped rows by the collection their path ends in, and by code', async () => {
    const metrics = createMetrics();
    countDroppedRows(metrics, [
      { path: 'data.dividends[3]', code: 'bad_row' },
      { path: 'data.meetings[0].races[4]', code: 'bad_row' },
      { path: 'data.meetings[2].races[0]', code: 'bad_row' },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('racewire_dropped_rows_total{collection="dividends",code="bad_row"} 1');
    expect(text).toContain('racewire_dropped_rows_total{collection="races",code="bad_row"} 2');
  });
});
