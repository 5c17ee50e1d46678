// A hand-built relevance set: cards a personal brain might hold, and questions with the
// cards that answer them. Three kinds of question: keyword-friendly (they share words with
// the card), natural-language (some shared words, lots of noise), and paraphrases that
// share no content word with their card, which only meaning can connect.
export interface BenchCard {
  slug: string;
  kind: string;
  title: string;
  body: string;
}

export interface BenchQuery {
  query: string;
  relevant: string[];
  /** 'paraphrase' shares no content word with its relevant cards. */
  style: 'keyword' | 'question' | 'paraphrase';
}

const c = (slug: string, kind: string, title: string, body: string): BenchCard => ({ slug, kind, title, body });

export const CARDS: BenchCard[] = [
  c('svc/backups', 'environment', 'Nightly database backups', 'pgBackRest writes incremental backups to the NAS every night and a full backup on Sundays. Retention is four weeks.'),
  c('svc/restore-drill', 'methodology', 'Restore drill', 'Once a quarter restore the latest backup into a scratch VM and run the smoke tests against it; write down how long it took.'),
  c('svc/proxy', 'environment', 'Reverse proxy', 'Caddy terminates TLS for every internal service and renews certificates from the internal ACME server automatically.'),
  c('svc/dns', 'environment', 'Internal DNS', 'dnsmasq on the router answers for the lan zone; names come from the network configuration repository.'),
  c('svc/vpn', 'environment', 'WireGuard VPN', 'WireGuard on the gateway; each laptop and phone has its own peer key. Port 51820 is the only one open to the internet.'),
  c('svc/monitoring', 'environment', 'Monitoring stack', 'Prometheus scrapes every host; Grafana dashboards; Alertmanager pages through ntfy when a target is down for five minutes.'),
  c('svc/nas', 'environment', 'NAS', 'A four-bay Synology with two mirrored pairs; SMB shares for media and a dedicated share for backups.'),
  c('svc/ups', 'environment', 'UPS and power', 'The rack runs on an APC UPS with about twenty minutes of runtime; NUT shuts the servers down cleanly when the battery reaches thirty percent.'),
  c('svc/proxmox', 'environment', 'Proxmox cluster', 'Three Proxmox nodes; containers for services, VMs only where a kernel module is needed. Live migration over the storage network.'),
  c('svc/ollama', 'environment', 'Ollama embeddings host', 'Ollama serves nomic-embed-text on the Mac mini at port 11434 for the brain embeddings.'),
  c('svc/postgres', 'environment', 'Postgres server', 'Postgres 16 with pgvector on the storage host; one role per subject; connections only from the loopback interface.'),
  c('svc/home-assistant', 'environment', 'Home Assistant', 'Home Assistant runs the lights, the heating schedule and the door sensors; Zigbee through a USB coordinator.'),
  c('decision/no-public-dns', 'decision', 'No public DNS records for internal services', 'Internal names resolve only inside the network, so nothing internal is discoverable from outside.'),
  c('decision/containers-first', 'decision', 'Containers before virtual machines', 'Every new service starts as an LXC container; a VM needs a reason such as a custom kernel.'),
  c('decision/certs-internal-ca', 'decision', 'Internal certificate authority', 'step-ca issues certificates for internal names; browsers trust its root through the device management profile.'),
  c('incident/disk-failure', 'concept', 'Disk failure playbook', 'When a drive in a mirror fails: order the replacement, check SMART on its partner, swap the disk and let the resilver finish before any reboot.'),
  c('concept/raid', 'concept', 'RAID levels', 'RAID 1 mirrors two disks. RAID 5 stripes with parity across three or more; a rebuild reads every sector of the survivors.'),
  c('concept/3-2-1', 'methodology', 'The 3-2-1 rule', 'Keep three copies of data, on two different media, with one copy offsite.'),
  c('concept/idempotence', 'concept', 'Idempotence', 'An operation is idempotent when running it twice leaves the same state as running it once; retries become safe.'),
  c('concept/rrf', 'concept', 'Reciprocal rank fusion', 'Combine ranked lists by summing one over k plus rank; robust because it ignores the incomparable raw scores.'),
  c('concept/hnsw', 'concept', 'HNSW index', 'Hierarchical navigable small world graphs give approximate nearest neighbours in logarithmic time; ef_search trades recall for speed.'),
  c('concept/tsvector', 'concept', 'Postgres full-text search', 'to_tsvector stems words into lexemes; a GIN index makes matching fast; ts_rank_cd scores by cover density.'),
  c('concept/structural-enforcement', 'design-pattern', 'Structural enforcement beats procedural', 'Make the wrong action impossible rather than discouraged: database grants instead of checks in application code.'),
  c('concept/outbox', 'design-pattern', 'Transactional outbox', 'Write the event into a table in the same transaction as the change, so the record and the change cannot disagree.'),
  c('concept/backoff', 'design-pattern', 'Exponential backoff', 'Retry after a delay that doubles each failure, with a cap and jitter, so a struggling service is not hammered.'),
  c('tool/psycopg3', 'tool', 'psycopg3', 'The Python Postgres driver; use connection pools and set search_path per connection, not per session.'),
  c('tool/tmux', 'tool', 'tmux', 'Terminal multiplexer: detach with prefix d, split panes with prefix percent; sessions survive an ssh disconnect.'),
  c('tool/ansible', 'tool', 'Ansible', 'Playbooks describe hosts; roles bundle tasks; run with check mode first to see what would change.'),
  c('tool/git-bisect', 'tool', 'git bisect', 'Binary search through history for the commit that introduced a bug: mark good and bad, test, repeat.'),
  c('tool/ripgrep', 'tool', 'ripgrep', 'rg searches file contents recursively and respects gitignore; far faster than grep on large trees.'),
  c('tool/jq', 'tool', 'jq', 'Command-line JSON processor: select fields with dot paths, map over arrays, and output raw strings with -r.'),
  c('tool/vitest', 'tool', 'Vitest', 'The test runner for the TypeScript projects; globalSetup starts shared fixtures once per run.'),
  c('tool/kysely', 'tool', 'Kysely', 'Type-safe SQL query builder for TypeScript; withSchema picks the schema per query.'),
  c('tool/colima', 'tool', 'colima', 'Container runtime for macOS; start it before docker compose, and give it enough memory for Postgres.'),
  c('methodology/session-close', 'methodology', 'Session close ritual', 'At the end of a working session, propose cards against the rubric and write nothing until confirmed.'),
  c('methodology/search-before-add', 'methodology', 'Search before add', 'Before creating a topic, search for an existing one: update on a confident match, link loose matches, otherwise create an island.'),
  c('methodology/blog-voice', 'methodology', 'Blog writing voice', 'Short paragraphs, first person, concrete numbers; explain the why before the how; no marketing adjectives.'),
  c('methodology/code-review', 'methodology', 'Code review checklist', 'Read the tests first, then the interface, then the implementation; ask what happens on failure and on retry.'),
  c('methodology/weekly-review', 'methodology', 'Weekly review', 'Every Friday: empty the inbox, review open projects, pick three priorities for next week.'),
  c('food/sourdough', 'methodology', 'Sourdough starter care', 'Feed the levain with flour and water daily; keep it in the fridge between bakes and discard half before each feeding.'),
  c('food/bread-bake', 'methodology', 'Baking a loaf', 'Bulk ferment until the dough has risen by half, shape, cold proof overnight, bake in a covered Dutch oven at 250 C.'),
  c('food/coffee', 'methodology', 'Pour-over coffee', 'Fifteen grams of coffee to 250 grams of water at 94 C; bloom for thirty seconds, then pour in slow circles.'),
  c('food/risotto', 'methodology', 'Risotto', 'Toast the rice, add hot stock a ladle at a time and stir; finish with butter and parmesan off the heat.'),
  c('food/kimchi', 'methodology', 'Kimchi', 'Salt the cabbage for two hours, rinse, mix with chilli paste, garlic and fish sauce; ferment a week in a cool place.'),
  c('people/ada', 'person', 'Ada, the landlord', 'Owns the flat; rent is due on the first of the month; prefers e-mail over phone calls.'),
  c('people/bram', 'person', 'Bram, the electrician', 'Installed the consumer unit and the outdoor sockets; call him for anything on the mains.'),
  c('people/chen', 'person', 'Dr Chen', 'The family doctor at the practice on Mill Road; appointments open at eight each morning.'),
  c('people/dana', 'person', 'Dana, the editor', 'Edits the book manuscript; wants chapters as Word files with tracked changes, by the fifteenth.'),
  c('novel/mara', 'character', 'Mara', 'The protagonist: grew up in the lighthouse on the cliff, afraid of deep water, stubborn and funny.'),
  c('novel/lighthouse', 'location', 'The lighthouse on the cliff', 'A white tower above the harbour; the lamp has not gone out in eighty years, until chapter nine.'),
  c('novel/harbour-town', 'location', 'Harbour town', 'A fishing village of narrow lanes; the pub by the quay is where rumours start.'),
  c('novel/chapter-1', 'chapter-summary', 'Chapter 1: The storm', 'A storm strands a stranger in the harbour; Mara finds him on the rocks below the lighthouse.'),
  c('novel/theme-memory', 'concept', 'Theme: memory and the sea', 'Everything the sea takes, it returns changed; memory works the same way in the book.'),
  c('media/deep-work', 'media', 'Deep Work (Cal Newport)', 'Argues for long undistracted blocks of concentration; schedule them and defend them.'),
  c('media/designing-data', 'media', 'Designing Data-Intensive Applications', 'Kleppmann on replication, partitioning, transactions and the trade-offs of distributed storage.'),
  c('project/brain', 'project', 'claude-brain', 'Long-term memory for Claude over MCP: subjects sealed by Postgres roles, hybrid search, deliberate capture.'),
  c('project/garden', 'project', 'Vegetable garden', 'Four raised beds: tomatoes, beans, courgettes and herbs; water in the evening, compost in autumn.'),
  c('project/bike', 'project', 'Bike maintenance', 'Clean and lube the chain every two weeks; check tyre pressure before long rides; replace brake pads at 1 mm.'),
  c('finance/taxes', 'concept', 'Tax return', 'Self-assessment is due by the end of January; keep receipts for equipment and the home-office share of bills.'),
  c('finance/budget', 'methodology', 'Monthly budget', 'Every payday move fixed costs to the bills account, savings first, and spend what is left.'),
  c('health/running', 'methodology', 'Running plan', 'Three runs a week: one long and slow, one with intervals, one easy; add no more than ten percent per week.'),
  c('health/sleep', 'methodology', 'Sleep routine', 'Same wake-up time every day, no screens after ten, a cool dark bedroom.'),
  c('travel/packing', 'methodology', 'Packing list', 'Passport, chargers, adapter, medication, one spare set of clothes in the hand luggage.'),
  c('home/boiler', 'environment', 'Boiler', 'Combi boiler in the kitchen cupboard; serviced every October; if the pressure drops below one bar, top it up with the filling loop.'),
];

export const QUERIES: BenchQuery[] = [
  { query: 'nightly backups', relevant: ['svc/backups'], style: 'keyword' },
  { query: 'how do I test that the backups can actually be restored?', relevant: ['svc/restore-drill', 'svc/backups'], style: 'question' },
  { query: 'which service renews the TLS certificates?', relevant: ['svc/proxy', 'decision/certs-internal-ca'], style: 'question' },
  { query: 'WireGuard port', relevant: ['svc/vpn'], style: 'keyword' },
  { query: 'who gets alerted when a host goes down and how?', relevant: ['svc/monitoring'], style: 'question' },
  { query: 'what happens to the servers during a power cut?', relevant: ['svc/ups'], style: 'question' },
  { query: 'pgvector role per subject', relevant: ['svc/postgres'], style: 'keyword' },
  { query: 'why do we start services as containers rather than VMs?', relevant: ['decision/containers-first'], style: 'question' },
  { query: 'a drive in the mirror died, what now?', relevant: ['incident/disk-failure', 'concept/raid'], style: 'question' },
  { query: 'how many copies of my data should I keep and where?', relevant: ['concept/3-2-1'], style: 'question' },
  { query: 'retrying safely when a request fails', relevant: ['concept/idempotence', 'concept/backoff'], style: 'question' },
  { query: 'combining ranked lists from two search engines', relevant: ['concept/rrf'], style: 'question' },
  { query: 'psycopg3 search_path', relevant: ['tool/psycopg3'], style: 'keyword' },
  { query: 'find the commit that broke the build', relevant: ['tool/git-bisect'], style: 'question' },
  { query: 'keep my terminal programs alive after the ssh connection drops', relevant: ['tool/tmux'], style: 'question' },
  { query: 'what should happen at the end of a working session?', relevant: ['methodology/session-close'], style: 'question' },
  { query: 'how do I write blog posts in my own voice?', relevant: ['methodology/blog-voice'], style: 'question' },
  { query: 'pour-over ratio', relevant: ['food/coffee'], style: 'keyword' },
  { query: 'when is the rent due and how do I contact the landlord?', relevant: ['people/ada'], style: 'question' },
  { query: 'who edits the manuscript and what format does she want?', relevant: ['people/dana'], style: 'question' },
  { query: 'Mara lighthouse', relevant: ['novel/mara', 'novel/lighthouse'], style: 'keyword' },
  { query: 'when is the tax return due?', relevant: ['finance/taxes'], style: 'question' },
  { query: 'boiler pressure low', relevant: ['home/boiler'], style: 'keyword' },
  // Paraphrases: no content word in common with the cards they mean.
  { query: 'looking after the yeast culture for my loaves', relevant: ['food/sourdough'], style: 'paraphrase' },
  { query: 'who can fix wiring in the house?', relevant: ['people/bram'], style: 'paraphrase' },
  { query: 'seeing a GP', relevant: ['people/chen'], style: 'paraphrase' },
  { query: 'Korean pickled side dish', relevant: ['food/kimchi'], style: 'paraphrase' },
  { query: 'focus without interruptions', relevant: ['media/deep-work'], style: 'paraphrase' },
  { query: 'getting a good night of rest', relevant: ['health/sleep'], style: 'paraphrase' },
  { query: 'what to bring on a trip', relevant: ['travel/packing'], style: 'paraphrase' },
  { query: 'jogging schedule', relevant: ['health/running'], style: 'paraphrase' },
  { query: 'growing tomatoes and herbs', relevant: ['project/garden'], style: 'question' },
  { query: 'automating the lamps and radiators', relevant: ['svc/home-assistant'], style: 'paraphrase' },
  { query: 'cycling upkeep', relevant: ['project/bike'], style: 'paraphrase' },
  { query: 'how do I divide my salary?', relevant: ['finance/budget'], style: 'paraphrase' },
];
