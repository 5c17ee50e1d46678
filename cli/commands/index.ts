import { backlinks } from './backlinks.js';
import { config } from './config.js';
import { exportCommand } from './export.js';
import { get } from './get.js';
import { history } from './history.js';
import { importCommand } from './import.js';
import { ingest } from './ingest.js';
import { kinds } from './kinds.js';
import { link } from './link.js';
import { list } from './list.js';
import { put } from './put.js';
import { restore } from './restore.js';
import { stats } from './stats.js';
import { tag } from './tag.js';
import { tags } from './tags.js';
import { timeline } from './timeline.js';
import { timelineAdd } from './timeline-add.js';
import { unlink } from './unlink.js';
import { untag } from './untag.js';
import { upcast } from './upcast.js';
import { backup } from './backup.js';
import { call, tools } from './call.js';
import { doctor } from './doctor.js';
import { down } from './down.js';
import { embed } from './embed.js';
import { lint } from './lint.js';
import { pipe } from './pipe.js';
import { remember } from './remember.js';
import { query, search } from './search.js';
import { init } from './init.js';
import { subjects } from './subjects.js';
import { serve } from './serve.js';
import { up } from './up.js';
import { version } from './version.js';

export interface Command {
  readonly usage: string;
  readonly summary: string;
  run(args: string[]): Promise<number>;
}

export const commands: Record<string, Command> = {
  backup,
  init,
  migrate: { ...init, summary: 'Same as init: bring roles, schemas, migrations, kinds and grants up to date.' },
  serve,
  subjects,
  up,
  down,
  doctor,
  version,
  // Retrieval, curation and the tool surface from the command line.
  search,
  query,
  remember,
  embed,
  lint,
  call,
  tools,
  pipe,
  // The knowledge commands (GBrain's CLI): each acts as one subject, see cli/subject.ts.
  get,
  put,
  list,
  stats,
  link,
  unlink,
  tags,
  tag,
  untag,
  timeline,
  'timeline-add': timelineAdd,
  backlinks,
  history,
  restore,
  upcast,
  ingest,
  import: importCommand,
  export: exportCommand,
  kinds,
  config,
};
