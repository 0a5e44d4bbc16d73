// Placeholders: {index} (index name), {label} (a release label). Finds a release's nodes.
CREATE INDEX {index} IF NOT EXISTS FOR (n:{label}) ON (n.release_id)
