// drop-release: the dropping attempt takes the record over (status "dropping", its own
// token); a write attempt still in progress fails at its next transaction.
MATCH (r:AnonRelease {release_id: $release_id})
SET r.status = 'dropping', r.write_token = $write_token
RETURN r.release_id AS release_id
