// Placeholders: {source_label}, {target_label}, {rel_type}. One batch of $rows.
UNWIND $rows AS row
MATCH (a:{source_label} {release_id: $release_id, uid: row.source})
MATCH (b:{target_label} {release_id: $release_id, uid: row.target})
CREATE (a)-[:{rel_type} {release_id: $release_id}]->(b)
