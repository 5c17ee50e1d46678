import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface EpisodesTable {
  id: Generated<number>;
  kind: string;
  kind_class: ColumnType<'episode', 'episode' | undefined, never>;
  occurred_at: ColumnType<Date, Date | string, Date | string>;
  date_only: ColumnType<boolean, boolean | undefined, boolean>;
  title: string;
  summary: ColumnType<string, string | undefined, string>;
  detail: ColumnType<string, string | undefined, string>;
  source_label: ColumnType<string, string | undefined, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
export type EpisodeRow = Selectable<EpisodesTable>;
export type NewEpisodeRow = Insertable<EpisodesTable>;

export interface EpisodeTopicsTable {
  episode_id: number;
  topic_id: number;
}
