// Placeholders: {index}, {label}. Lookup index for loading sample data.
CREATE INDEX {index} IF NOT EXISTS FOR (n:{label}) ON (n.id)
