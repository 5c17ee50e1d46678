// The tables of one subject schema, as kysely sees them. Every subject has the same
// tables, so queries name the schema explicitly: db.withSchema(subject).selectFrom(...).
import type { DocumentsTable } from './tables/documents.table.js';
import type { EpisodesTable, EpisodeTopicsTable } from './tables/episodes.table.js';
import type { LinksTable } from './tables/links.table.js';
import type { OutboxTable } from './tables/outbox.table.js';
import type { RawDataTable } from './tables/raw-data.table.js';
import type { SourcesTable } from './tables/sources.table.js';
import type { TopicTagsTable } from './tables/topic-tags.table.js';
import type { TopicsTable } from './tables/topics.table.js';
import type { VersionsTable } from './tables/versions.table.js';

export interface KnowledgeDatabase {
  topics: TopicsTable;
  episodes: EpisodesTable;
  episode_topics: EpisodeTopicsTable;
  topic_tags: TopicTagsTable;
  links: LinksTable;
  documents: DocumentsTable;
  sources: SourcesTable;
  raw_data: RawDataTable;
  versions: VersionsTable;
  outbox: OutboxTable;
}
