// Auto-commit session only (CALL ... IN TRANSACTIONS). Needs Neo4j >= 5.23 (scoped CALL).
MATCH (:AnonNode|AnonUser {release_id: $release_id})-[e:ANON_EDGE|ANON_HAS_FEATURE|ANON_MASKED]->()
CALL (e) { DELETE e } IN TRANSACTIONS OF $batch_size ROWS
