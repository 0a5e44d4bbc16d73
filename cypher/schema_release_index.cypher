// Placeholders: {index} (index name), {label} (a statistics label, whose nodes have no
// uid). Finds a release's statistics when it is replaced or dropped.
CREATE INDEX {index} IF NOT EXISTS FOR (n:{label}) ON (n.release_id)
