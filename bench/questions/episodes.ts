// Hand-written episodes of the homelab and novel subjects, with their dates. Questions name
// them as '@<id>'.
import type { EpisodeDraft, SetSubject } from './types.js';

const e = (subject: SetSubject) => (id: string, kind: string, date: string, title: string, body: string, tags?: string[]): EpisodeDraft => ({
  id, subject, kind, occurredAt: `${date}T${20 + (id.length % 3)}:${String(10 + (id.length * 7) % 50).padStart(2, '0')}:00Z`, title, body, ...(tags ? { tags } : {}),
});
const h = e('homelab');
const n = e('novel');
const p = e('personal');

export const HOMELAB_EPISODES: EpisodeDraft[] = [
  h('hl-vlan40', 'work-session', '2024-03-09', 'Cameras moved to VLAN 40', 'Moved the four cameras to VLAN 40 on sw-poe and blocked internet for that VLAN on rtr01; only Frigate on pve2 may reach them on port 554 (RTSP).', ['cameras', 'vlan']),
  h('hl-jonas-call', 'meeting', '2024-03-23', 'Call with Jonas about the offsite Pi', 'Jonas is happy to keep the offsite Pi on his bookshelf; in exchange I keep a copy of his photos. Agreed on Tailscale, no port forward on his router.', ['offsite']),
  h('hl-pve3-join', 'deploy', '2024-04-06', 'pve3 joined the cluster', 'Added pve3 (the OptiPlex 7060) to the cluster and moved Prometheus, Grafana and Loki onto it; pve1 has room again.', ['proxmox']),
  h('hl-dns-outage', 'incident', '2024-04-21', 'Whole house lost DNS', 'Nothing resolved for an hour: Unbound on pve1 crashed after an update and pi-dns had a broken root hints file. Fixed both and added a DNS check to Uptime Kuma.', ['dns']),
  h('hl-quorum', 'incident', '2024-05-14', 'Cluster lost quorum', 'Took pve2 down for a RAM upgrade while pve3 was rebooting: the cluster lost quorum and pve1 refused to start containers until pve3 came back. Lesson: one node at a time.', ['proxmox']),
  h('hl-ups-1', 'incident', '2024-06-02', 'UPS self-test failed', 'The UPS self-test failed: battery health low, runtime estimate down to 6 minutes at 210 W. Ordered a new battery cartridge.', ['power']),
  h('hl-ups-2', 'work-session', '2024-06-10', 'New UPS battery', 'Swapped the UPS battery for an APC RBC123 cartridge; runtime estimate back to 19 minutes.', ['power']),
  h('hl-ipv6-off', 'decision-made', '2024-07-13', 'IPv6 off on most VLANs', 'Turned IPv6 off on VLANs 10, 30, 40 and 50 after the third prefix change from Fibrenet broke the static addresses; VLAN 20 keeps SLAAC only.', ['network']),
  h('hl-no-k3s', 'decision-made', '2024-08-03', 'Decided against k3s', 'Spent a weekend trying k3s on pve3 and decided against it: too many moving parts for twenty services. Staying with compose files in LXC containers.', ['containers']),
  h('hl-sd-card', 'incident', '2024-08-24', 'pi-dns SD card died', 'pi-dns went read-only: the SD card was worn out. Rebuilt it on a USB SSD with the Ansible role in thirty minutes.', ['dns']),
  h('hl-smart-1', 'incident', '2024-09-08', 'SMART warning on nas01 sdc', 'smartd alert: /dev/sdc attribute 187 Reported_Uncorrect went from 0 to 2. Pool still ONLINE; started a long self-test.', ['storage', 'smart']),
  h('hl-smart-2', 'incident', '2024-09-15', 'sdc getting worse', 'sdc now shows 187 at 14 and 197 Current_Pending_Sector at 8. Ordered a replacement WD Red Plus 8 TB.', ['storage', 'smart']),
  h('hl-disk-swap', 'work-session', '2024-09-20', 'Replaced sdc in tank', 'Offlined sdc, swapped in the new drive, ran zpool replace; the resilver took 10 h 12 min and the scrub afterwards was clean.', ['storage', 'zfs']),
  h('hl-authelia', 'deploy', '2024-10-19', 'Authelia in front of Grafana and Paperless', 'Deployed Authelia in front of Grafana and Paperless; TOTP enrolled on both phones, session lifetime 12 hours.', ['auth']),
  h('hl-immich-oom', 'bug', '2024-11-03', 'Immich ML container killed', 'The Immich machine learning container kept restarting with exit code 137 during the face detection job: out of memory. Raised its limit to 4 GB.', ['photos']),
  h('hl-wifi', 'work-session', '2024-12-07', 'Access point firmware', 'Upgraded the upstairs access point to firmware 6.6; roaming between floors is smoother now.', ['wifi']),
  h('hl-drill-1', 'work-session', '2024-12-28', 'Restore drill: Paperless', 'Restore drill: restored Paperless from restic into a scratch container in 23 minutes; documents and tags intact.', ['backup']),
  h('hl-renovate', 'deploy', '2025-01-18', 'Renovate set up', 'Set up Renovate against the infra repository in Gitea; the first run opened 14 merge requests.', ['updates']),
  h('hl-power-cut', 'incident', '2025-02-11', 'Power cut', 'Power cut for 42 minutes from 19:10. NUT shut the nodes down at 30 percent; everything came back except pve3, which needed a wake-on-LAN packet.', ['power']),
  h('hl-cert-expiry', 'incident', '2025-03-18', 'Internal certificates expired', 'Every internal site showed ERR_CERT_DATE_INVALID: the step-ca intermediate had expired. Renewed it and put a reminder in the calendar a month earlier.', ['tls']),
  h('hl-jellyfin-qsv', 'bug', '2025-04-26', 'Jellyfin transcoding on CPU', 'After the Proxmox 8.4 update Jellyfin transcoded on the CPU again: the render device permissions in the container had reset. Fixed with an idmap for the render group.', ['media']),
  h('hl-isp-outage', 'incident', '2025-05-03', 'Fibrenet outage', 'Six-hour outage at Fibrenet; the mtr report showed loss at their second hop. Uptime Kuma on the VPS noticed it first.', ['isp']),
  h('hl-coral', 'bug', '2025-06-07', 'Frigate lost the Coral', 'Frigate stopped detecting: the Coral USB TPU was not found after a kernel update on pve2 because its USB ID changed on first inference. Passed the whole USB controller through instead.', ['cameras']),
  h('hl-fans', 'work-session', '2025-07-20', 'Quieter NAS fans', 'nas01 was too loud in the heat: replaced the two rear fans with Noctua NF-A14s; drive temperatures down 5 C.', ['hardware']),
  h('hl-ups-3', 'work-session', '2025-08-17', 'UPS runtime test', 'UPS runtime test a year after the new battery: pulled the plug, 17 minutes at 215 W before NUT triggered the shutdown at 30 percent.', ['power']),
  h('hl-drill-2', 'work-session', '2025-09-27', 'Restore drill: Vaultwarden', 'Restore drill: Vaultwarden from the B2 copy in 11 minutes, but the attachments folder was missing from the backup. Fixed the include list.', ['backup']),
  h('hl-offsite-stale', 'incident', '2025-10-12', 'Offsite backup four days old', 'The stale backup alert fired: the newest offsite snapshot was four days old. Jonas had replaced his router and Tailscale on the Pi was logged out.', ['backup']),
  h('hl-pve9', 'work-session', '2025-11-08', 'pve3 on Proxmox VE 9', 'Upgraded pve3 to Proxmox VE 9 after pve8to9 came back clean; pve1 and pve2 follow next Saturday.', ['proxmox']),
];

export const NOVEL_EPISODES: EpisodeDraft[] = [
  n('nv-saltink-scene', 'scene-write', '2024-03-16', 'Scene: Orrin teaches salt ink', 'Wrote the chapter 7 scene where Orrin teaches salt ink: the chart soaked in the basin and the hidden route rising on it like a bruise. 1,900 words.', ['salt-ink']),
  n('nv-ch14', 'chapter-write', '2024-05-11', 'Drafted chapter 14', 'Drafted chapter 14, Orrin\'s death in the map room; 4,200 words in one sitting.', []),
  n('nv-title', 'decision-made', '2024-06-01', 'Working title chosen', 'Settled on The Salt Archive as the working title, over Low Water and The Drowned Road.', ['title']),
  n('nv-prologue', 'decision-made', '2024-07-20', 'Prologue cut', 'Cut the prologue about the flooding of Merrow; the reveal moves to chapter 20, through Ysolde\'s notebooks.', ['structure']),
  n('nv-rook-scene', 'scene-write', '2024-08-10', 'Scene: Rook spares Jory', 'Wrote Rook letting Jory go in the rain: mercy without a word, only a sign in harbour language.', []),
  n('nv-idris-tides', 'note', '2024-09-12', 'Idris on causeways', 'Idris says a causeway like the Drowned Road would be uncovered for about two hours at a spring low, not one. Need to fix chapter 22.', ['research']),
  n('nv-sefa', 'note', '2024-10-05', 'The Archivist\'s name', 'Idea: the Archivist has a name she guards, Sefa, and gives it to Ilsabet only in chapter 17.', ['archive']),
  n('nv-ruth-call', 'meeting', '2024-11-14', 'Call with Ruth Amsel', 'Ruth wants to represent the book. Agreed on a light edit of part two before she sends it out in January.', ['publishing']),
  n('nv-deal', 'meeting', '2025-02-20', 'Call with Ruth: the offer', 'Harrow & Finch offered a two-book deal; Dana Whitlock will be the editor. Accepted.', ['publishing']),
  n('nv-past-tense', 'decision-made', '2025-03-02', 'Switch to past tense', 'Decided to move the whole draft to past tense: present tense fought the flashbacks to Ysolde.', ['style']),
  n('nv-merrow-1', 'scene-write', '2025-04-05', 'Merrow bell scene, first pass', 'Chapter 23, first pass at the Merrow bell scene; the sluice gate reveal comes far too fast.', []),
  n('nv-merrow-2', 'scene-write', '2025-05-10', 'Merrow bell scene, second pass', 'Rewrote the Merrow bell scene of chapter 23 from Teodor\'s side; better, but the tide timing is off.', []),
  n('nv-merrow-3', 'scene-write', '2025-06-14', 'Merrow bell scene, third pass', 'The Merrow bell scene finally works: the bell rings as the tide turns and Ilsabet finds Ysolde\'s camp before the gate.', []),
  n('nv-draft2-done', 'note', '2025-06-28', 'Second draft finished', 'Second draft finished at 96,400 words; sent to Ruth and the two beta readers.', []),
  n('nv-clara-notes', 'meeting', '2025-07-02', 'Beta notes from Clara', 'Coffee with Clara: the middle of part two still drags; she suggests cutting the second funeral scene.', ['beta-reader']),
  n('nv-dana-call', 'meeting', '2025-11-20', 'Call with Dana', 'Copy edits arrive in February; Dana wants the map of Vell redrawn by an illustrator for the endpapers.', ['publishing']),
  n('nv-map-sent', 'note', '2025-12-06', 'Map sent to the illustrator', 'Sent my sketch map of Vell to the illustrator: the canals and the ridge in front, the flats fading out to Merrow.', []),
];

export const PERSONAL_EPISODES: EpisodeDraft[] = [
  p('pe-gp', 'meeting', '2024-03-12', 'Appointment with Dr Okafor', 'Check-up at the health centre: blood pressure 138/88, borderline. Dr Okafor wants home readings every morning for a month before deciding anything.', ['health']),
  p('pe-gp-2', 'meeting', '2024-04-30', 'Follow-up with Dr Okafor', 'Follow-up: the home readings averaged 128/82, so no medication. Less salt, keep running, recheck in a year.', ['health']),
  p('pe-review', 'meeting', '2025-04-15', 'Annual review with Fiona', 'Annual review with Fiona: rated strong, a 4 percent raise from May, and she wants me to mentor the new analyst.', ['work']),
  p('pe-landlord', 'meeting', '2025-05-20', 'Meeting with Mr Okonjo about the rent', 'Mr Okonjo came round: the rent goes up by 45 pounds a month from July when the lease renews, and he will replace the bathroom extractor fan first.', ['home']),
];
