/**
 * The live board: wires the REST views (meetings, ops, the recent events the feed starts with) and one SDK
 * connection (the selected race's live document, the firehose for the feed) to the panels. Selection lives
 * in the URL hash so a reload keeps it.
 */
import { RacewireClient } from '@racewire/client';
import { fetchMeetings, fetchOps, fetchRecentEvents, type MeetingSummary, type Ops } from './api.js';
import { byTestId, fill, h } from './dom.js';
import { FeedView } from './feed-view.js';
import { marketModel, moveOf } from './market-model.js';
import { MarketView } from './market-view.js';
import { renderMeetings } from './meetings-view.js';
import { renderOps } from './ops-view.js';
import { raceModel } from './race-model.js';
import { RaceView } from './race-view.js';
import { createServerClock } from './server-clock.js';

const MEETINGS_EVERY_MS = 5_000;
const OPS_EVERY_MS = 2_000;

const clock = createServerClock();
let meetings: MeetingSummary[] = [];
let ops: Ops | undefined;
let selected: string | undefined;

const raceView = new RaceView(byTestId('race-view'));
const marketView = new MarketView(byTestId('market-panel'));
const feed = new FeedView(byTestId('feed'), (id) => select(id));
const params = new URLSearchParams(location.search);
const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
const client = new RacewireClient({ url: wsUrl, token: params.get('token') ?? undefined });

function setConnection(state: 'live' | 'connecting' | 'offline', detail = '') {
  const el = byTestId('connection');
  el.dataset.state = state;
  el.textContent =
    state === 'live' ? 'live' : state === 'connecting' ? 'connecting…' : `offline ${detail}`.trim();
}

function findRace(raceId: string) {
  for (const m of meetings) for (const r of m.races) if (r.raceId === raceId) return { meeting: m, race: r };
  return undefined;
}

function select(raceId: string) {
  if (raceId === selected) return;
  if (selected) client.unsubscribe(`race:${selected}`);
  selected = raceId;
  if (location.hash !== `#race=${raceId}`) history.replaceState(null, '', `#race=${raceId}`);
  const known = findRace(raceId);
  raceView.waiting(
    known ? `${known.meeting.name} R${known.race.raceNumber}` : 'Loading race',
    'Waiting for the race’s snapshot…',
  );
  client.subscribe(`race:${raceId}`);
  document.body.classList.add('has-race');
  drawMeetings();
}

function drawMeetings() {
  renderMeetings(byTestId('meetings'), meetings, selected, select);
}

function drawOps() {
  renderOps(byTestId('ops'), ops, selected);
  const speed = ops?.clockSpeed ?? 1;
  byTestId('speed').textContent = speed === 1 ? '' : `×${speed}`;
}

async function refreshMeetings() {
  try {
    meetings = await fetchMeetings();
    drawMeetings();
    if (!selected && location.hash.startsWith('#race=')) select(decodeURIComponent(location.hash.slice(6)));
  } catch {
    // Shown by the ops panel going stale; the next refresh tries again.
  }
}

/** Fills the feed with what happened before the page opened (live events may already be there). */
async function loadRecentEvents() {
  try {
    feed.addHistory(await fetchRecentEvents(feed.showOdds));
  } catch {
    // The live feed still fills; nothing to retry for history.
  }
}

async function refreshOps() {
  try {
    ops = await fetchOps();
    if (ops) clock.sample(ops.time, ops.clockSpeed);
    drawOps();
  } catch {
    setConnection('offline', '(REST)');
  }
}

function tick() {
  const now = clock.now();
  if (now !== undefined) byTestId('server-time').textContent = new Date(now).toISOString().slice(11, 19);
  raceView.tick(now);
}

client.on('open', () => setConnection('live'));
client.on('close', (_code, _reason, again) => setConnection(again ? 'connecting' : 'offline'));
client.on('document', (stream, doc) => {
  if (stream !== selected) return;
  if (doc === null || doc === undefined) {
    raceView.waiting(
      'Not fetched yet',
      'racewire has not fetched this race yet; it will now that you watch it.',
    );
    return;
  }
  raceView.update(raceModel(stream, doc));
  marketView.update(stream, marketModel(doc));
  raceView.tick(clock.now());
});
client.on('event', (event) => {
  feed.add(event);
  const move = moveOf(event);
  if (move) marketView.addMove(event.raceId, move);
});
client.on('error', (code, message) => {
  const list = byTestId('feed');
  list.prepend(h('li', { class: 'feed-item tone-alert' }, `server: ${code}: ${message}`));
});

byTestId<HTMLInputElement>('feed-odds').addEventListener('change', (ev) => {
  feed.showOdds = (ev.target as HTMLInputElement).checked;
  if (feed.showOdds) void loadRecentEvents();
});
byTestId('back').addEventListener('click', () => document.body.classList.remove('has-race'));

fill(byTestId('race-view'), h('p', { class: 'muted empty' }, 'Pick a race to watch it live.'));
setConnection('connecting');
client.subscribe('firehose');
client.connect();
void refreshMeetings();
void refreshOps();
void loadRecentEvents();
setInterval(refreshMeetings, MEETINGS_EVERY_MS);
setInterval(refreshOps, OPS_EVERY_MS);
setInterval(tick, 250);
