/** GET/PUT /v1/webhooks/endpoints:export: a backup of every endpoint with its secret, and its restore. */
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteBackend } from './backends.js';
import { type Harness, startHarness } from './harness.js';

describe('endpoints export', () => {
  const open: Harness[] = [];
  afterEach(async () => {
    for (const h of open.splice(0)) await h.close();
  });
  const start = async (adminToken?: string) => {
    const h = await startHarness({ backend: await sqliteBackend(), config: { adminToken } });
    open.push(h);
    return h;
  };
  const auth = { authorization: 'Bearer s3cret-admin' };

  it('restores every endpoint with its id and secret into a store that lost them, and keeps what exists', async () => {
    const before = await start('s3cret-admin');
    const created = await before.app.inject({
      method: 'POST',
      url: '/v1/webhooks/endpoints',
      headers: auth,
      payload: { url: `${before.receiver.url}/hook`, eventTypes: ['runner.scratched'], description: 'ops' },
    });
    const { endpoint, secret } = created.json() as { endpoint: { id: string }; secret: string };
    const exported = await before.app.inject({
      method: 'GET',
      url: '/v1/webhooks/endpoints:export',
      headers: auth,
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['cache-control']).toBe('no-store');
    const backup = exported.json() as { endpoints: Array<{ id: string; secret: string }> };
    expect(backup.endpoints).toEqual([
      {
        id: endpoint.id,
        url: `${before.receiver.url}/hook`,
        kind: 'standard',
        description: 'ops',
        eventTypes: ['runner.scratched'],
        filters: {},
        enabled: true,
        secret,
      },
    ]);

    const wiped = await start('s3cret-admin');
    const put = (h: Harness) =>
      h.app.inject({ method: 'PUT', url: '/v1/webhooks/endpoints:export', headers: auth, payload: backup });
    const restored = await put(wiped);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toEqual({ created: [endpoint.id], kept: [] });
    const again = await wiped.app.inject({
      method: 'GET',
      url: '/v1/webhooks/endpoints:export',
      headers: auth,
    });
    expect(again.json()).toEqual(backup);
    expect((await put(wiped)).json()).toEqual({ created: [], kept: [endpoint.id] });
  });

  it('answers 401 without the admin token, secrets never shown', async () => {
    const h = await start('s3cret-admin');
    const res = await h.app.inject({ method: 'GET', url: '/v1/webhooks/endpoints:export' });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('whsec_');
    const put = await h.app.inject({
      method: 'PUT',
      url: '/v1/webhooks/endpoints:export',
      payload: { endpoints: [] },
    });
    expect(put.statusCode).toBe(401);
  });

  it('refuses an export whose secret is not a whsec_ secret, naming the field', async () => {
    const h = await start();
    const res = await h.app.inject({
      method: 'PUT',
      url: '/v1/webhooks/endpoints:export',
      payload: {
        endpoints: [{ id: 'ep_1', url: `${h.receiver.url}/hook`, eventTypes: ['*'], secret: 'plain' }],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('secret');
  });
});
