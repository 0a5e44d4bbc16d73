// Auto-commit session only. Every node of the release except the (:AnonRelease) record.
MATCH (n:AnonNode|AnonUser|AnonFeature|DegreeCount|JointDegreeCount|DegreeTupleCount
       {release_id: $release_id})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF $batch_size ROWS
