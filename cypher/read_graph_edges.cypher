// Placeholders: {label}, {rel_type}. Each relationship once; the caller drops direction,
// duplicates and self-loops.
MATCH (a:{label})-[:{rel_type}]->(b:{label})
RETURN CASE WHEN $id_property IS NULL THEN elementId(a) ELSE a[$id_property] END AS source,
       CASE WHEN $id_property IS NULL THEN elementId(b) ELSE b[$id_property] END AS target
