// Placeholders: {label}, {rel_type}. Each relationship once (directed pattern).
MATCH (:{label})-[r:{rel_type}]->(:{label})
RETURN count(r) AS count
