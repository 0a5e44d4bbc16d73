// Placeholders: {source_label}, {target_label}, {rel_type}. One batch of $rows between nodes of
// the attempt $attempt, after lock_release in the same transaction. A row whose endpoint is
// missing creates nothing; the caller compares the summary's relationships_created with the
// number of rows and refuses the batch (and so the release) when they differ.
UNWIND $rows AS row
MATCH (a:{source_label} {release_id: $release_id, attempt: $attempt, uid: row.source})
MATCH (b:{target_label} {release_id: $release_id, attempt: $attempt, uid: row.target})
CREATE (a)-[:{rel_type} {release_id: $release_id}]->(b)
