// Placeholders: {user_label}, {rel_type}, {feature_label}. Direction ignored.
MATCH (:{user_label})-[r:{rel_type}]-(:{feature_label})
RETURN count(r) AS count
