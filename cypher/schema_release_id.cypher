// Unique release ids: one (:AnonRelease) record per release.
CREATE CONSTRAINT graphanon_release_id IF NOT EXISTS
FOR (r:AnonRelease) REQUIRE r.release_id IS UNIQUE
