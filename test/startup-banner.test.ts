import { describe, expect, it } from 'vitest';
import { startupBanner } from '../src/startup-banner.js';

describe('the start-up banner', () => {
  it('names the board a person can open and says the data is simulated', () => {
    expect(startupBanner({ url: 'http://0.0.0.0:8080', upstream: 'embedded simulator', speed: 10 })).toBe(
      [
        '',
        '  racewire is running   board    http://localhost:8080/',
        '                        API      http://localhost:8080/docs   WebSocket ws://localhost:8080/ws',
        '                        upstream the embedded simulator: simulated data, x10 real time',
        '',
        '',
      ].join('\n'),
    );
  });

  it('names the real API without a speed', () => {
    const banner = startupBanner({ url: 'http://[::]:9000', upstream: 'racing API', speed: 10 });
    expect(banner).toContain('board    http://localhost:9000/');
    expect(banner).toContain('upstream the racing API (RACING_API_URL)');
  });
});
