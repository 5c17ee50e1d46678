// The command table. `brain --help` prints it without loading any command module: each
// module is imported only when its command runs, so `brain version` and `brain --help` do not
// pay for zod, the database, the MCP server or the embedder (test/cli/commands-table.test.ts
// keeps the summaries here equal to the modules' own).

export interface Command {
  readonly usage: string;
  readonly summary: string;
  run(args: string[]): Promise<number>;
}

/** A command whose module loads when it runs. */
export interface LazyCommand {
  readonly summary: string;
  load(): Promise<Command>;
}

const lazy = (summary: string, load: () => Promise<Command>): LazyCommand => ({ summary, load });

/** The command itself, loading its module if it is lazy. */
export function loadCommand(entry: Command | LazyCommand): Promise<Command> {
  return 'load' in entry ? entry.load() : Promise.resolve(entry);
}

const MIGRATE = 'Same as init: bring roles, schemas, migrations, kinds and grants up to date.';

export const commands: Record<string, Command | LazyCommand> = {
  backup: lazy('Write a restorable backup (all subjects, or the ones named) to a timestamped file; restore it with `brain restore FILE`.', async () => (await import('./backup.js')).backup),
  init: lazy('Create or update the brain: roles, schemas, migrations, kinds and grants (idempotent; needs the admin URL on a server).', async () => (await import('./init.js')).init),
  migrate: lazy(MIGRATE, async () => ({ ...(await import('./init.js')).init, summary: MIGRATE })),
  serve: lazy('Serve one subject over MCP: Streamable HTTP on its port (default), or stdio for clients that spawn it.', async () => (await import('./serve.js')).serve),
  subjects: lazy('List, add or remove subjects. Adding provisions schema, role and grants; removing archives the schema, never drops it.', async () => (await import('./subjects.js')).subjects),
  up: lazy('Start every subject\'s MCP server in this process (the embedded brain when BRAIN_DATABASE_URL is unset).', async () => (await import('./up.js')).up),
  view: lazy('Serve the read-only web view of every subject (overview, cards and history, health, upcasts, outbox) as the audit role; `brain up` starts it too.', async () => (await import('./view.js')).view),
  down: lazy('Stop the embedded brain started by `brain up` / `npm start` (it drains sessions and closes cleanly).', async () => (await import('./down.js')).down),
  doctor: lazy('Check the configuration files, the database settings, the embedder and each subject server\'s readiness.', async () => (await import('./doctor.js')).doctor),
  version: lazy('Print the version.', async () => (await import('./version.js')).version),
  // Retrieval, curation and the tool surface from the command line.
  search: lazy('Full-text search (GBrain\'s search): names, terms, "quoted phrases", -exclusions.', async () => (await import('./search.js')).search),
  query: lazy('Hybrid search by meaning and words (GBrain\'s query), over this subject and personal.', async () => (await import('./search.js')).query),
  remember: lazy('Write a card with search before add: a confident match is updated, loose matches get a linked new card, otherwise a new card.', async () => (await import('./remember.js')).remember),
  embed: lazy('Embed this subject\'s cards now: one card, every stale card (default), or all of them again (--all, e.g. after a model change).', async () => (await import('./embed.js')).embed),
  lint: lazy('Report orphans, dead links, unexplained upcasts, near-duplicate cards and tags, stale embeddings; the flags apply the fixes lint may make (never deleting a card).', async () => (await import('./lint.js')).lint),
  call: lazy('Call one MCP tool directly, as the MCP server would (GBrain\'s `call`); prints its text result. Exit 1 when the tool reports an error.', async () => (await import('./call.js')).call),
  tools: lazy('Print the tool definitions as JSON (name, description, input_schema), for tool discovery.', async () => (await import('./call.js')).tools),
  pipe: lazy('JSONL mode: each input line {"tool": NAME, "args": {...}} (or {"id": ..} too) gets one output line {"id", "ok", "text"} or {"id", "ok": false, "error"}.', async () => (await import('./pipe.js')).pipe),
  // The knowledge commands (GBrain's CLI): each acts as one subject, see cli/subject.ts.
  get: lazy('Print a card as its GBrain page (byte for byte the imported file while unchanged); --json gives the card with tags, links and timeline. Exit 3 when there is no such card.', async () => (await import('./get.js')).get),
  put: lazy('Create or replace a card from a GBrain page: frontmatter, compiled truth, timeline (new lines become episodes), tags and wiki links.', async () => (await import('./put.js')).put),
  list: lazy('List cards, most recently updated first, filtered by kind, tag or update date (default limit 50, at most 500).', async () => (await import('./list.js')).list),
  stats: lazy('Counts for one subject: cards per kind, episodes, links, tags, raw data, documents, imported GBrain pages and ingest records.', async () => (await import('./stats.js')).stats),
  link: lazy('Link one card to another (the target need not exist yet); --to-subject personal points into the shared subject.', async () => (await import('./link.js')).link),
  unlink: lazy('Remove the links from one card to another (every relation). Exit 3 when there is none.', async () => (await import('./unlink.js')).unlink),
  tags: lazy('A card\'s tags; without a slug, every tag of the subject with how many cards carry it.', async () => (await import('./tags.js')).tags),
  tag: lazy('Add tags to a card; prints the tags it has afterwards.', async () => (await import('./tag.js')).tag),
  untag: lazy('Take tags off a card; prints the tags it has afterwards.', async () => (await import('./untag.js')).untag),
  timeline: lazy('A card\'s timeline: its episodes, newest first, as GBrain timeline lines (--json: the episodes).', async () => (await import('./timeline.js')).timeline),
  'timeline-add': lazy('Add a dated entry to a card: an episode, and a line at the top of the card\'s timeline markdown. The kind defaults from the source (meeting/call → meeting, else note).', async () => (await import('./timeline-add.js')).timelineAdd),
  backlinks: lazy('Cards linking to this slug, from every subject this one can read (its own, and personal).', async () => (await import('./backlinks.js')).backlinks),
  history: lazy(
    "A card's (or an episode's) versions v1, v2... newest first: when, by whom, why, and what changed (fields, a line diff of the body). Put one back with `brain restore SLUG vN`. Exit 3 when there is no such card.",
    async () => (await import('./history.js')).history,
  ),
  restore: lazy(
    'With a card (or --episode) and a version (see `brain history`): put it back as it was in that version, the state it replaces kept as a version too. ' +
      'With a file: restore a backup written by `brain backup` into an empty brain.',
    async () => (await import('./restore.js')).restore,
  ),
  archive: lazy('Archive a card: hidden from search, list, get and lint, kept with its history; `brain unarchive SLUG` brings it back.', async () => (await import('./archive.js')).archive),
  unarchive: lazy('Bring an archived (or merged) card back, as it was; a merged card stays merged into its survivor.', async () => (await import('./archive.js')).unarchive),
  merge: lazy(
    "Merge card FROM into card INTO in one step: INTO gets FROM's body appended (or --body-file), its tags, links, backlinks, episodes and sources; FROM is archived pointing at INTO. Both histories are kept.",
    async () => (await import('./archive.js')).merge,
  ),
  source: lazy(
    "Cite where a card came from: a stored document (--document ID from ingest, or --file to store one now), or a --uri, with --locator (where in it) and --quote. Without one, list the card's sources.",
    async () => (await import('./source.js')).source,
  ),
  upcast: lazy('Promote a project card into personal, with a reason (the deny-list decides what may cross). Run as the project subject.', async () => (await import('./upcast.js')).upcast),
  ingest: lazy('Store a source document verbatim (the same bytes twice are stored once) with an ingest record; prints the document id.', async () => (await import('./ingest.js')).ingest),
  import: lazy('Import a GBrain markdown directory (or, with --from mcp-memory, an MCP memory server memory.json) into one subject, as its own role. Re-running changes nothing; exit 1 when a file failed or did not validate.', async () => (await import('./import.js')).importCommand),
  export: lazy('Export one subject as a GBrain markdown directory: imported pages unchanged since import come back byte for byte, changed ones edited in place, new cards under their kind\'s directory.', async () => (await import('./export.js')).exportCommand),
  kinds: lazy(
    'The kind vocabulary (kinds.yaml): topic kinds (what something is) and episode kinds (what happened), with the GBrain directories that import into each. ' +
      '`kinds sync` writes kinds.yaml into the database now (removing a kind still in use is refused with the count).',
    async () => (await import('./kinds.js')).kinds,
  ),
  config: lazy('Print the effective configuration (never a password or the admin URL): where the brain is, the files read, the subjects and the subject commands act as.', async () => (await import('./config.js')).config),
  // Installing around the brain: Claude Code skills, the user service that keeps it up; and its search language.
  'text-search': lazy(
    'Show the full-text search language; LANGUAGE (german, simple, …) changes it and reindexes every subject in one transaction; --reindex redoes the index as it is. Admin: needs the admin URL on a server.',
    async () => (await import('./text-search.js')).textSearch,
  ),
  skills: lazy(
    'The Claude Code skills that ship with the brain (session close, ingest, query, maintain, briefing). `skills install` copies them into ~/.claude/skills (every project), or --dir DIR (e.g. a project\'s .claude/skills).',
    async () => (await import('./skills.js')).skills,
  ),
  auth: lazy(
    'OAuth for remote clients: list waiting requests and grants; `auth approve REQUEST` prints the one-time code to type into the authorize page (--read-only grants brain:read only); `auth revoke` ends a grant at once.',
    async () => (await import('./auth.js')).auth,
  ),
  service: lazy(
    'Keep `brain up` running as a user service: install writes a systemd user unit (Linux) or a launchd agent (macOS) for this install, folder and environment, restarted on failure, and starts it; --print only shows the file and the commands, --files-only writes or removes the file and prints the commands.',
    async () => (await import('./service.js')).service,
  ),
};
