// Placeholders: {index}, {label}. Looks up (release_id, uid) while relationships are written.
CREATE INDEX {index} IF NOT EXISTS FOR (n:{label}) ON (n.release_id, n.uid)
