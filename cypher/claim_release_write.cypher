// Second statement of begin_release's transaction (the record's lock is held): the attempt's
// random $write_token goes on the record; every later transaction of the attempt starts with
// lock_release and goes on only while the record holds it. A complete release keeps its
// status, properties and current_attempt, so its readers see it unchanged while the attempt
// stages its rows; any other record (new, pending under a writer that stopped, or being
// dropped) takes the attempt's properties and status "pending".
MATCH (r:AnonRelease {release_id: $release_id})
SET r.write_token = $write_token
WITH r
WHERE r.status IS NULL OR r.status <> 'complete'
SET r = $properties, r.release_id = $release_id, r.status = 'pending',
    r.write_token = $write_token
