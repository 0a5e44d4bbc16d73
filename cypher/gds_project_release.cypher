// The Graph Data Science projection of one complete release (`graphanon neo4j releases`
// prints it): only the rows of the record's current attempt, of a release whose status is
// "complete", as an undirected graph. Every release node is matched as a source, so isolated
// nodes (and features, which start no relationship) are projected too, with a null target;
// masked cells (ANON_MASKED) keep their own relationship type.
MATCH (r:AnonRelease {release_id: $release_id, status: 'complete'})
MATCH (a:AnonNode|AnonUser|AnonFeature {release_id: $release_id, attempt: r.current_attempt})
WHERE a.uid IS NOT NULL
OPTIONAL MATCH (a)-[e:ANON_EDGE|ANON_HAS_FEATURE|ANON_MASKED]->(b)
WITH gds.graph.project($graph_name, a, b,
       {sourceNodeLabels: labels(a), targetNodeLabels: labels(b), relationshipType: type(e)},
       {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.graphName AS graph_name, g.nodeCount AS node_count,
       g.relationshipCount AS relationship_count
