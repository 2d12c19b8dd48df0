/**
 * The live board: wires the REST views (meetings, ops, the recent events the feed starts with) and one SDK
 * connection (the selected race's live document, the firehose for the feed) to the panels. Selection lives
 * in the URL hash so a reload keeps it; with none, the next race to jump is opened. Times are shown in the
 * viewer's own zone, and the meeting list shows one of its days.
 */
import { RacewireClient } from '@racewire/client';
import { fetchMeetings, fetchOps, fetchRecentEvents, type MeetingSummary, type Ops } from './api.js';
import { dayKey, localTime, meetingDay, utcTime } from './board-day.js';
import { byTestId, fill, h } from './dom.js';
import { FeedView } from './feed-view.js';
import { marketModel, moveOf } from './market-model.js';
import { MarketView } from './market-view.js';
import { renderDaySwitch, renderMeetings } from './meetings-view.js';
import { nextToJump } from './next-to-jump.js';
import { renderNextToJump, tickNextToJump } from './next-view.js';
import { renderOps, upstreamBadge } from './ops-view.js';
import { raceModel } from './race-model.js';
import { RaceView } from './race-view.js';
import { createServerClock } from './server-clock.js';

const MEETINGS_EVERY_MS = 5_000;
const OPS_EVERY_MS = 2_000;
const NEXT_TO_JUMP = 8;

const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const clock = createServerClock();
let meetings: MeetingSummary[] = [];
let ops: Ops | undefined;
let selected: string | undefined;
/** The day the meeting list shows (`YYYY-MM-DD` in the viewer's zone); undefined: today. */
let day: string | undefined;

const raceView = new RaceView(byTestId('race-view'), timeZone);
const marketView = new MarketView(byTestId('market-panel'));
const feed = new FeedView(byTestId('feed'), timeZone, (id) => select(id));
const params = new URLSearchParams(location.search);
const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
const client = new RacewireClient({ url: wsUrl, token: params.get('token') ?? undefined });

/** The server's time (racewire's clock, which the simulator may run fast), the browser's until known. */
const serverNow = () => clock.now() ?? Date.now();

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

/** `followDay`: the list shows the race's day (a link, the strip or a feed item can open another day's race). */
function select(raceId: string, followDay = true) {
  if (raceId === selected) return;
  if (selected) client.unsubscribe(`race:${selected}`);
  selected = raceId;
  if (location.hash !== `#race=${raceId}`) history.replaceState(null, '', `#race=${raceId}`);
  const known = findRace(raceId);
  if (known && followDay) {
    const raceDay = meetingDay(known.meeting, timeZone);
    day = raceDay === dayKey(serverNow(), timeZone) ? undefined : (raceDay ?? day);
  }
  raceView.waiting(
    known ? `${known.meeting.name} R${known.race.raceNumber}` : 'Loading race',
    'Waiting for the race’s snapshot…',
  );
  client.subscribe(`race:${raceId}`);
  document.body.classList.add('has-race');
  drawMeetings();
}

/** What the meeting panels were last drawn from: an unchanged list is not rebuilt under the pointer. */
let drawn = { switch: '', meetings: '' };
let meetingsText = '';

function drawMeetings() {
  const today = dayKey(serverNow(), timeZone);
  const choice = { today, day: day ?? today, timeZone };
  const switchKey = `${today}|${choice.day}`;
  if (switchKey !== drawn.switch) {
    renderDaySwitch(byTestId('day-title'), byTestId('day-switch'), choice, (d) => {
      // Today stays today past midnight; another day stays that date.
      day = d === today ? undefined : d;
      drawMeetings();
    });
  }
  const meetingsKey = `${switchKey}|${selected}|${meetingsText}`;
  if (meetingsKey !== drawn.meetings) {
    renderMeetings(byTestId('meetings'), meetings, choice, selected, select);
    const strip = byTestId('next-to-jump');
    renderNextToJump(strip, nextToJump(meetings, serverNow(), NEXT_TO_JUMP), timeZone, selected, select);
    tickNextToJump(strip, clock.now());
  }
  drawn = { switch: switchKey, meetings: meetingsKey };
}

function drawOps() {
  renderOps(byTestId('ops'), ops, selected);
  const speed = ops?.clockSpeed ?? 1;
  byTestId('speed').textContent = speed === 1 ? '' : `×${speed}`;
  const badge = upstreamBadge(ops?.upstream);
  const el = byTestId('upstream-badge');
  el.hidden = badge === undefined;
  el.textContent = badge?.text ?? '';
  el.title = badge?.title ?? '';
}

async function refreshMeetings() {
  try {
    meetings = await fetchMeetings();
    meetingsText = JSON.stringify(meetings);
    if (!selected && location.hash.startsWith('#race=')) select(decodeURIComponent(location.hash.slice(6)));
    // Nothing linked: the next race to jump, the list staying on today (its meeting may have begun yesterday).
    const next = selected ? undefined : nextToJump(meetings, serverNow(), 1)[0];
    if (next) select(next.raceId, false);
    drawMeetings();
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
  if (now !== undefined) {
    const el = byTestId('server-time');
    el.textContent = localTime(now, timeZone, true);
    el.title = `racewire's clock, your time (${timeZone}); ${utcTime(now)}`;
  }
  raceView.tick(now);
  tickNextToJump(byTestId('next-to-jump'), now);
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
// The server's clock first: "today" and the next race to jump are read on it.
void refreshOps().then(refreshMeetings);
void loadRecentEvents();
setInterval(refreshMeetings, MEETINGS_EVERY_MS);
setInterval(refreshOps, OPS_EVERY_MS);
setInterval(tick, 250);
