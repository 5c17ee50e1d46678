export interface TopicTagsTable {
  topic_id: number;
  tag: string;
}
