// Placeholders: {source_label}, {target_label}, {rel_type}. Sample source data only.
UNWIND $rows AS row
MATCH (a:{source_label} {id: row.source})
MATCH (b:{target_label} {id: row.target})
MERGE (a)-[:{rel_type}]->(b)
