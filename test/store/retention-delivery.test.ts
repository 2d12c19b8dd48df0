/**
 * What a subscriber sees of a settled stream (its entries expired, its head and document kept): a resume from
 * before the head is answered with the head document (`resumed:false`, `too_old`), one at the head resumes,
 * a client still following gets the next change as a patch on the document it holds; a forgotten stream
 * (its document expired too) is served at its kept seq without a document.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addRace, clientPool, type Harness, raceDoc, startHarness } from '../delivery/ws/harness.js';

let h: Harness;
const clients = clientPool();
const partner = () => clients.partner(h.url);

afterEach(async () => {
  clients.terminateAll();
  await h?.close();
});

describe('expired streams, as subscribers see them', () => {
  it('answers a resume from before its head with the head document, and one at its head with resumed', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    for (let n = 0; n <= 4; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const { epoch } = await h.log.head('R1');
    const following = partner();
    following.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 5, epoch } } });
    await following.nextOfType('resumed');

    const settledBefore = new Date(h.clock.now() + 1);
    expect(await h.log.expire({ settledBefore, forgetBefore: new Date(0) })).toEqual({
      settled: 1,
      forgotten: 0,
    });

    const behind = partner();
    behind.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 2, epoch } } });
    expect(await behind.nextOfType('snapshot')).toMatchObject({
      stream: 'R1',
      seq: 5,
      documentSeq: 5,
      resumed: false,
      reason: 'too_old',
      document: raceDoc('R1', 4),
    });
    const atHead = partner();
    atHead.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 5, epoch } } });
    expect(await atHead.nextOfType('resumed')).toMatchObject({ stream: 'R1', fromSeq: 5 });

    // The race is written again (a late correction): followers get a patch on the kept document.
    await h.publishDoc('R1', raceDoc('R1', 5));
    for (const c of [following, behind, atHead])
      expect(await c.nextOfType('patch')).toMatchObject({ stream: 'R1', seq: 6, base: 5 });
  });

  it('gives a new subscriber of a forgotten stream its kept seq and no document', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    for (let n = 0; n <= 2; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const cutoff = new Date(h.clock.now() + 1);
    expect(await h.log.expire({ settledBefore: cutoff, forgetBefore: cutoff })).toEqual({
      settled: 0,
      forgotten: 1,
    });
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    expect(await c.nextOfType('snapshot')).toMatchObject({
      stream: 'R1',
      seq: 3,
      documentSeq: 0,
      document: null,
    });
  });
});
