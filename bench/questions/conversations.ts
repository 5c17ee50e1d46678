// Generated episodes: personal chats built from the facts (each said once) plus small-talk filler
// that shares their vocabulary, and routine homelab work sessions and novel writing notes.
// Deterministic: every choice comes from mulberry32.
import { mulberry32 } from '../prng.js';
import { FACTS, SPEAKERS, type Speaker } from './facts.js';
import type { EpisodeDraft, SetSubject } from './types.js';

const START = Date.UTC(2024, 0, 1);
const END = Date.UTC(2025, 11, 31);
const DAY = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const fill = (r: Rng, s: string): string => s.replace(/\{(\w+)\}/g, (_, k: string) => pick(r, SLOTS[k] ?? [`{${k}}`]));

const SLOTS: Record<string, string[]> = {
  weather: ['grey', 'wet', 'windy', 'freezing', 'muggy', 'foggy', 'miserable', 'bright but cold', 'boiling'],
  time: ['four', 'five', 'half five', 'six', 'seven'],
  activity: ['a walk by the river', 'the garden centre', 'seeing friends', 'a car boot sale', 'sorting out the spare room', 'the cinema', 'a long lunch', 'a bike ride', 'the farmers\' market', 'doing nothing at all'],
  food: ['pasta', 'soup', 'a stir fry', 'curry', 'fish pie', 'tacos', 'jacket potatoes', 'noodles', 'a veggie lasagne', 'sausage and mash'],
  cuisine: ['Turkish', 'Korean', 'Lebanese', 'Ethiopian', 'Peruvian', 'Sri Lankan', 'Greek'],
  show: ['the new detective series', 'that Scandinavian crime drama', 'the nature documentary', 'the quiz show', 'the sitcom everyone is talking about', 'the dating programme'],
  day: ['Friday', 'Saturday', 'Sunday', 'Tuesday', 'Thursday', 'Wednesday'],
  n: ['two', 'three', 'four', 'five', 'six'],
  workadj: ['mad', 'endless', 'quiet', 'chaotic', 'fine actually', 'a slog'],
};

/** Small talk by theme: the openers I use and the lines that answer them. */
const FILLER: Record<string, { openers: string[]; lines: string[] }> = {
  weather: {
    openers: ['What\'s the weather doing there?', 'Is it still raining where you are?', 'Cold enough for you?'],
    lines: ['It\'s been {weather} all week, I\'ve barely been outside.', 'Can\'t believe how {weather} it is today.', 'Got soaked on the way home, forgot my umbrella again.', 'Lovely sunny morning here, had my coffee outside.', 'The heating is on already, can you believe it.'],
  },
  work: {
    openers: ['How\'s work?', 'Busy day?', 'Good day at work?'],
    lines: ['Work was {workadj} today, meetings until {time}.', 'Long day. The deadline moved again.', 'Finally finished that report I\'d been putting off.', 'Working from home tomorrow, thank goodness.', 'The train was cancelled so I was late again.', 'Traffic was awful this morning.'],
  },
  weekend: {
    openers: ['How was the weekend?', 'Any plans for the weekend?', 'Doing anything nice on {day}?'],
    lines: ['We\'re thinking {activity}.', 'Lazy weekend, mostly {activity}.', 'Saturday was {activity}, Sunday was nothing at all.', 'Not much, maybe {activity}.', 'Thanks for {day}, it was lovely.'],
  },
  food: {
    openers: ['What\'s for dinner?', 'Have you eaten?', 'Cooking anything good tonight?'],
    lines: ['Made {food} for dinner, way too much of it.', 'Tried the new {cuisine} place on the high street, pretty good.', 'I\'m starving, just got in.', 'Leftover {food} for lunch again.', 'Just {food} tonight, nothing exciting.'],
  },
  tv: {
    openers: ['Watching anything good?', 'Seen anything good lately?'],
    lines: ['Started {show}, {n} episodes in.', 'No spoilers please, I\'m behind on {show}.', 'Fell asleep in front of {show} again.'],
  },
  misc: {
    openers: ['How are things?', 'You alright?', 'Any news?', 'Long time no speak!', 'What are you up to?'],
    lines: ['So tired today, slept terribly.', 'Early night for me, I\'m done.', 'Talk later, just going into a shop.', 'Happy Friday!', 'Running late, sorry!', 'Are we still on for {day}?', 'Sorry, missed your message, it\'s been a week.', 'Do you fancy a coffee on {day}?', 'Ha, that made me laugh.'],
  },
};
const THEMES = Object.keys(FILLER);

const FILLER_SPEAKER: Record<Speaker, string[]> = {
  Priya: ['Busy day at the clinic, three spaniels in a row.', 'A parrot bit me today. Again.', 'On lates all week at the clinic.', 'The clinic\'s coffee machine is broken, morale is low.'],
  Tom: ['The boys are bouncing off the walls today.', 'Jess says hi.', 'Half term, send help.', 'Stuck on the M5 again.'],
  Mum: ['Did you remember to ring your grandfather?', 'The garden needs rain.', 'Choir practice ran late tonight.', 'Have you been eating properly?', 'Auntie Jean sends her love.'],
  Sam: ['Marking mocks all evening.', 'Parents\' evening tonight, back late.', 'Year 9 set fire to a paper towel again.', 'I\'ll do the shop on the way home.'],
  Lukas: ['The build server is slow again.', 'Standup ran forty minutes today.', 'Fiona wants the numbers by Thursday.', 'Who broke the shared drive?'],
  Aisha: ['Zain is teething, nobody slept.', 'Is your internet working? Ours keeps dropping.', 'There\'s a van blocking the car park again.', 'Zain says hello, or something like it.'],
  Dev: ['Easy 8k this morning, legs felt fresh.', 'Parkrun tomorrow? Meet at the café at 8:45.', 'Clinic was packed, everyone hurt their back gardening.', 'Thursday intervals are on, six by 800.'],
  Walt: ['The warden came round with the newspaper.', 'Lovely bit of sun on the bench this afternoon.', 'They had fish on Friday, not bad.', 'Tell your mother I\'m fine.'],
  Nora: ['Shelving returns all afternoon, my back aches.', 'Storytime was chaos today, twenty toddlers.', 'The library printer is jammed again.', 'I need a holiday.'],
};

const ME_REPLIES = ['Ha, really?', 'Keep me posted.', 'Good to know.', 'Oh wow.', 'Let\'s catch up properly soon.', 'Same here.', 'Fair enough.', 'Sounds good to me.', 'Noted!', 'Oh no.'];

const iso = (t: number): string => new Date(t).toISOString().replace('.000Z', 'Z');
const dayLabel = (t: number): string => {
  const d = new Date(t);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
};
/** A time of day between 07:00 and 22:59 on the day of t. */
const atHour = (r: Rng, t: number): number => Math.floor(t / DAY) * DAY + (7 + Math.floor(r() * 16)) * 3_600_000 + Math.floor(r() * 60) * 60_000;

function chatEpisode(r: Rng, id: string, speaker: Speaker, t: number, lines: string[]): EpisodeDraft {
  const body = lines.join('\n');
  const roll = r();
  const call = speaker === 'Mum' || speaker === 'Walt' || speaker === 'Tom';
  let kind = 'note';
  let title: string;
  if (roll < (call ? 0.35 : 0.1)) {
    kind = 'meeting';
    title = `${call ? 'Call' : 'Lunch'} with ${speaker === 'Walt' ? 'Grandpa Walt' : speaker}, ${dayLabel(t)}`;
  } else if (roll < 0.75) {
    title = `Chat with ${speaker === 'Walt' ? 'Grandpa Walt' : speaker}, ${dayLabel(t)}`;
  } else {
    const words = (lines[0] ?? '').split(' ').slice(0, 7).join(' ');
    title = `${words}…`;
  }
  return { id, subject: 'personal', kind, occurredAt: iso(t), title, body, tags: ['chat'] };
}

function fillerLines(r: Rng, speaker: Speaker): string[] {
  const theme = FILLER[pick(r, THEMES)]!;
  const own = theme === FILLER.misc && r() < 0.6;
  const line = () => fill(r, own ? pick(r, FILLER_SPEAKER[speaker]) : pick(r, theme.lines));
  const shape = r();
  if (shape < 0.35) return [`${speaker}: ${line()}`];
  if (shape < 0.75) return [`Me: ${fill(r, pick(r, theme.openers))}`, `${speaker}: ${line()}`];
  return [`Me: ${fill(r, pick(r, theme.openers))}`, `${speaker}: ${line()}`, `Me: ${pick(r, ME_REPLIES)}`];
}

/** Personal chat episodes: every fact once, in order per speaker, plus filler. */
export function personalChats(fillerCount: number, seed = 20240101): EpisodeDraft[] {
  const r = mulberry32(seed);
  const out: EpisodeDraft[] = [];
  for (const speaker of SPEAKERS) {
    const facts = FACTS[speaker];
    const span = (END - START) / facts.length;
    facts.forEach((f, i) => {
      const t = atHour(r, f.at ? Date.parse(`${f.at}T00:00:00Z`) : START + span * (i + 0.2 + 0.6 * r()));
      const lines: string[] = [];
      if (f.me) lines.push(`Me: ${f.me}`);
      else if (r() < 0.3) lines.push(`Me: ${pick(r, FILLER.misc!.openers)}`);
      lines.push(`${speaker}: ${f.text}`);
      if (r() < 0.4) lines.push(`Me: ${pick(r, ME_REPLIES)}`);
      out.push(chatEpisode(r, f.id, speaker, t, lines));
    });
  }
  for (let i = 0; i < fillerCount; i++) {
    const speaker = pick(r, SPEAKERS);
    const t = atHour(r, START + r() * (END - START));
    out.push(chatEpisode(r, `chat-${i}`, speaker, t, fillerLines(r, speaker)));
  }
  return out;
}

const HL_SERVICES = ['Jellyfin', 'Immich', 'Paperless', 'Gitea', 'Vaultwarden', 'Traefik', 'Grafana', 'Loki', 'Audiobookshelf', 'Mealie', 'Homepage', 'Mosquitto', 'Zigbee2MQTT', 'Uptime Kuma', 'AdGuard Home', 'Home Assistant'];
const HL_HOSTS = ['pve1', 'pve2', 'pve3', 'nas01', 'pi-dns', 'mini01'];
const HL_ROLES = ['base', 'node_exporter', 'promtail', 'docker', 'sshd', 'unattended-upgrades'];
const HL_TEMPLATES = [
  'Updated {svc} to the new minor release in the Saturday window; no issues.',
  'Merged {k} Renovate merge requests; {svc} needed a small config change for the new version.',
  'Tidied the {role} Ansible role and ran it with --check --diff before applying.',
  'Looked over the Grafana dashboards: nothing unusual, {host} CPU idle most of the week.',
  'Pruned old Docker images on {host}, freed {gb} GB.',
  'Rebooted {host} for a kernel update; containers back within {min} minutes.',
  'Wrote the runbook page for {svc}: how to restart it and where its data lives.',
  'Cleaned up stale DHCP leases on the IoT VLAN and gave the new plug a static lease.',
  'Read the {svc} changelog, nothing urgent; postponed the bump to next week.',
  'Moved {svc} config into the infra repository and removed the hand edits on {host}.',
  'Checked disk usage on {host}: {pct} percent used, nothing to do yet.',
  'Rotated the {svc} logs and lowered the log level to warning.',
  'Added {svc} to the Homepage dashboard with a status widget.',
  'Relabelled the patch cables for {host} while the rack door was open.',
];

/** Routine homelab work sessions. */
export function homelabSessions(count: number, seed = 20240202): EpisodeDraft[] {
  const r = mulberry32(seed);
  const out: EpisodeDraft[] = [];
  for (let i = 0; i < count; i++) {
    const t = atHour(r, START + r() * (END - START));
    const k = 1 + Math.floor(r() * 2);
    const items: string[] = [];
    for (let j = 0; j < k; j++) {
      items.push(pick(r, HL_TEMPLATES)
        .replace('{svc}', pick(r, HL_SERVICES)).replace('{host}', pick(r, HL_HOSTS)).replace('{host}', pick(r, HL_HOSTS))
        .replace('{role}', pick(r, HL_ROLES)).replace('{k}', String(2 + Math.floor(r() * 9)))
        .replace('{gb}', String(2 + Math.floor(r() * 30))).replace('{min}', String(2 + Math.floor(r() * 6)))
        .replace('{pct}', String(20 + Math.floor(r() * 50))));
    }
    out.push({ id: `hl-gen-${i}`, subject: 'homelab', kind: 'work-session', occurredAt: iso(t), title: `Work session, ${dayLabel(t)}`, body: items.join(' '), tags: ['maintenance'] });
  }
  return out;
}

const NV_CHARS = ['Ilsabet', 'Teodor', 'Maud', 'Wenna', 'Jory', 'Hale', 'Audra', 'Nell'];
const NV_ACTIONS = [
  'crosses the fish market at dawn', 'argues with {c2} about money', 'walks the canals at night', 'copies charts at the Long Table',
  'eats alone at the Gull and Anchor', 'waits on the seawall in the rain', 'lies to {c2} and is nearly caught', 'counts coins by candlelight',
  'climbs to the Guildhall roof', 'mends a net on the quay', 'listens at a door', 'buys bread on Chart Street',
];
const NV_TEMPLATES = [
  'Drafted the scene where {c} {a}; {w} words, rough.',
  'Revised the scene where {c} {a}; cut it by a third.',
  'Rewrote the opening of the scene where {c} {a}; the dialogue is tighter.',
  'Short session: the scene where {c} {a}, about {w} words.',
];

/** Routine writing notes for the novel (scene-write, chapter-write, note). */
export function novelSessions(count: number, seed = 20240303): EpisodeDraft[] {
  const r = mulberry32(seed);
  const out: EpisodeDraft[] = [];
  for (let i = 0; i < count; i++) {
    const t = atHour(r, START + r() * (END - START));
    let ch = 1 + Math.floor(r() * 22);
    if (ch >= 23) ch = 22;
    const roll = r();
    let kind: string;
    let title: string;
    let body: string;
    if (roll < 0.65) {
      const c = pick(r, NV_CHARS);
      const a = pick(r, NV_ACTIONS).replace('{c2}', pick(r, NV_CHARS.filter((x) => x !== c)));
      kind = 'scene-write';
      title = `Scene-write, chapter ${ch}`;
      body = pick(r, NV_TEMPLATES).replace('{c}', c).replace('{a}', a).replace('{w}', String(400 + Math.floor(r() * 16) * 100));
    } else if (roll < 0.85) {
      kind = 'chapter-write';
      title = `Revision pass, chapter ${ch}`;
      body = `Revision pass on chapter ${ch}: cut ${100 + Math.floor(r() * 20) * 50} words, tightened the dialogue, checked the point of view stays with ${ch % 2 ? 'Ilsabet' : 'Teodor'}.`;
    } else {
      kind = 'note';
      title = `Writing log, ${dayLabel(t)}`;
      body = `Wrote ${300 + Math.floor(r() * 12) * 100} words before work. ${pick(r, ['Slow going.', 'Good morning at the desk.', 'Distracted, but it counts.', 'The kitchen table again.'])}`;
    }
    out.push({ id: `nv-gen-${i}`, subject: 'novel' as SetSubject, kind, occurredAt: iso(t), title, body, tags: ['writing'] });
  }
  return out;
}
