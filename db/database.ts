// The tables of one subject schema, as kysely sees them. Every subject has the same
// tables, so queries name the schema explicitly: db.withSchema(subject).selectFrom(...).
import type { ChunksTable } from './tables/chunks.table.js';
import type { DocumentsTable } from './tables/documents.table.js';
import type { EmbeddingStateTable } from './tables/embedding-state.table.js';
import type { EpisodesTable, EpisodeTopicsTable } from './tables/episodes.table.js';
import type { GbrainFilesTable, GbrainIngestLogTable, GbrainPagesTable } from './tables/gbrain.table.js';
import type { LinksTable } from './tables/links.table.js';
import type { OutboxTable } from './tables/outbox.table.js';
import type { ProposalsTable } from './tables/proposals.table.js';
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
  proposals: ProposalsTable;
  gbrain_pages: GbrainPagesTable;
  gbrain_files: GbrainFilesTable;
  gbrain_ingest_log: GbrainIngestLogTable;
  /** Only where pgvector is installed (migrations/subject/0003_embeddings.sql). */
  chunks: ChunksTable;
  embedding_state: EmbeddingStateTable;
}
