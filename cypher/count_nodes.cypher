// Placeholder: {label}. Memory estimate and progress total before a read.
MATCH (n:{label})
RETURN count(n) AS count
